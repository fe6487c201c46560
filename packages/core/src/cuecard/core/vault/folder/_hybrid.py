"""Hybrid vault search: BM25, the concept graph and (with the extra) local vectors, fused by RRF.

Runs in the cold search process: standard library only at import, no pydantic, no entry-point
scan. The settings come from the ``[recall]`` table of the user config (``config.toml``):

- ``mode``: ``"bm25"`` (the default: the cold path loads nothing more), ``"hybrid"`` (BM25 and
  the concept graph, plus local vectors when the ``cuecard-core[vectors]`` extra is installed)
  or ``"auto"`` (hybrid when the extra is installed, BM25 otherwise); ``--mode`` overrides it.
- ``weights``: a table of per-stream weights (``bm25``, ``graph``, ``vectors``), each a number
  from 0 to 10 (0 turns the stream off).
- ``per_note``: at most this many results from one note (1-100, ``PER_NOTE``: 10; a cap of 3
  cost recall when the answers cluster in one note, as a conversation's do, and bought nothing
  on the paraphrase set: tools/bench/recall_quality.py --ablation).
- ``rrf_k``: the RRF constant (1-1000, 60).
"""

from __future__ import annotations

import os
import sys

from cuecard.core._errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._index import RecallIndex

__all__ = [
    "DEFAULT_WEIGHTS",
    "MODES",
    "Settings",
    "hybrid_results",
    "load_settings",
    "print_results",
    "resolve_mode",
    "run_hybrid",
    "vectors_state",
]

MODES = ("auto", "bm25", "hybrid")
STREAMS = ("bm25", "graph", "vectors")
DEFAULT_WEIGHTS = {"bm25": 1.0, "graph": 0.5, "vectors": 2.0}
PER_NOTE = 10


class Settings:
    """The ``[recall]`` settings (see the module docstring)."""

    __slots__ = ("mode", "per_note", "rrf_k", "weights")

    def __init__(
        self,
        mode: str = "bm25",
        weights: dict[str, float] | None = None,
        per_note: int = PER_NOTE,
        rrf_k: int = 60,
    ) -> None:
        self.mode = mode
        self.weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
        self.per_note = per_note
        self.rrf_k = rrf_k


def _number(path: str, key: str, value: object, low: float, high: float, whole: bool) -> float:
    kind = "a whole number" if whole else "a number"
    problem = ConfigError(f"{path}: key `recall.{key}` must be {kind} from {low:g} to {high:g}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise problem
    if (whole and not isinstance(value, int)) or not low <= value <= high:
        raise problem
    return float(value)


def parse_settings(path: str, table: object) -> Settings:
    """Settings from the ``[recall]`` table of the config at ``path`` (named in errors)."""
    if table is None:
        return Settings()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: key `recall` must be a table")
    unknown = sorted(set(table) - {"mode", "weights", "per_note", "rrf_k"})
    if unknown:
        raise ConfigError(
            f"{path}: key `recall.{unknown[0]}` is not a setting (mode, weights, per_note, rrf_k)"
        )
    mode = table.get("mode", "bm25")
    if mode not in MODES:
        raise ConfigError(f"{path}: key `recall.mode` must be one of {', '.join(MODES)}")
    weights = dict(DEFAULT_WEIGHTS)
    raw = table.get("weights", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: key `recall.weights` must be a table (bm25, graph, vectors)")
    for name, value in raw.items():
        if name not in STREAMS:
            raise ConfigError(
                f"{path}: key `recall.weights.{name}` is not a stream (bm25, graph, vectors)"
            )
        weights[name] = _number(path, f"weights.{name}", value, 0, 10, whole=False)
    per_note = int(_number(path, "per_note", table.get("per_note", PER_NOTE), 1, 100, whole=True))
    rrf_k = int(_number(path, "rrf_k", table.get("rrf_k", 60), 1, 1000, whole=True))
    return Settings(str(mode), weights, per_note, rrf_k)


def load_settings() -> Settings:
    """The ``[recall]`` settings of the user config (defaults when it has none)."""
    from cuecard.core.vault._location import user_config_path

    path = user_config_path()
    if not os.path.isfile(path):
        return Settings()
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return parse_settings(path, data.get("recall"))


def vectors_state() -> str | None:
    """``None`` when the local-vector stream can run, else why not (for ``status``)."""
    from cuecard.core.recall._vectors import unavailable

    return unavailable()


def resolve_mode(requested: str | None, settings: Settings) -> str:
    """``bm25`` or ``hybrid``: the flag, else the config; ``auto`` is hybrid with the extra."""
    mode = requested or settings.mode
    if mode == "auto":
        return "hybrid" if vectors_state() is None else "bm25"
    return mode


class Result:
    """One search result with its fused score and per-stream ranks."""

    __slots__ = ("key", "path", "ranks", "score", "text")

    def __init__(
        self, path: str, key: str, text: str, score: float, ranks: dict[str, int | None]
    ) -> None:
        self.path = path
        self.key = key
        self.text = text
        self.score = score
        self.ranks = ranks


def hybrid_results(
    index: RecallIndex, query: str, limit: int, settings: Settings, *, vectors: bool
) -> tuple[list[Result], dict[str, object]]:
    """The fused results for ``query`` over a synchronised ``RecallIndex``, and what each
    stream contributed (counts; the graph's expansion; why vectors did not run)."""
    from cuecard.core.recall._fusion import fuse
    from cuecard.core.recall._graph import content_query, graph_search

    pool = max(limit * 4, 40)
    texts: dict[tuple[str, str], str] = {}
    streams: dict[str, list[tuple[str, str]]] = {}
    info: dict[str, object] = {}
    weights = settings.weights
    if weights["bm25"] > 0:
        hits = index.search(content_query(query), pool)
        streams["bm25"] = [(h.path, h.key) for h in hits]
        texts.update({(h.path, h.key): h.text for h in hits})
    if weights["graph"] > 0:
        graph, expansion = graph_search(index._connect(), query, pool)
        streams["graph"] = [(h.path, h.key) for h in graph]
        texts.update({(h.path, h.key): h.text for h in graph})
        info["expansion"] = {c: [t for t, _ in near] for c, near in expansion.items()}
    why = vectors_state() if vectors else "not asked"
    if vectors and why is None and weights["vectors"] > 0:
        from cuecard.core.recall._vectors import vector_search

        found = vector_search(index, query, pool)
        streams["vectors"] = [(h.path, h.key) for h in found]
        texts.update({(h.path, h.key): h.text for h in found})
    elif vectors:
        info["vectors_off"] = why or "weight 0"
    fused = fuse(streams, weights, limit=limit, per_note=settings.per_note, k=settings.rrf_k)
    info["streams"] = {name: len(items) for name, items in streams.items()}
    results = [Result(f.item[0], f.item[1], texts[f.item], f.score, f.ranks) for f in fused]
    return results, info


def _ranks_line(ranks: dict[str, int | None]) -> str:
    return ", ".join(f"{name} {'-' if r is None else f'#{r}'}" for name, r in ranks.items())


def run_hybrid(
    root: str, query: str, limit: int, as_json: bool, mode: str | None, explain: bool
) -> int | None:
    """Search the vault at ``root`` in the resolved mode and print the results; ``None`` when
    the mode is plain BM25 without ``--explain`` (the caller's own path then runs)."""
    settings = load_settings()
    resolved = resolve_mode(mode, settings)
    if resolved == "bm25" and not explain:
        return None
    from cuecard.core.vault._errors import NotAVault
    from cuecard.core.vault._layout import detect_layout
    from cuecard.core.vault.folder._recall import cache_dir, notes_index, record_use

    layout = detect_layout(root)
    if layout is None:
        raise NotAVault(
            f"{root}: no vault here (neither notes/ with inbox/ nor 50-Agent-Context/); "
            "create one with `cuecard vault init`"
        )
    index = notes_index(root, layout)
    index.sync()
    if resolved == "bm25":
        hits = index.search(query, limit)
        results = [
            Result(h.path, h.key, h.text, h.score, {"bm25": i}) for i, h in enumerate(hits, 1)
        ]
        info: dict[str, object] = {"streams": {"bm25": len(hits)}}
    else:
        results, info = hybrid_results(index, query, limit, settings, vectors=True)
    import time

    record_use(cache_dir(root), [r.key for r in results], time.strftime("%Y-%m-%d"))
    print_results(query, resolved, results, info, as_json=as_json, explain=explain)
    return 0


def print_results(
    query: str,
    mode: str,
    results: list[Result],
    info: dict[str, object],
    *,
    as_json: bool,
    explain: bool,
) -> None:
    """Print hybrid-mode results (redacted text, inside ``<memory-data>`` unless ``as_json``):
    one JSON object of query, mode, count, results (note, id, text, score, and ranks with
    ``explain``) and explain, or the text form with each stream's ranks."""
    from cuecard.core.vault._render import DATA_LINE, NO_MATCHES, safe, wrap

    if as_json:
        import json

        rows = []
        for r in results:
            row: dict[str, object] = {
                "note": safe(r.path.rsplit("/", 1)[-1]),
                "id": r.key,
                "text": safe(r.text),
                "score": round(r.score, 6),
            }
            if explain:
                row["ranks"] = r.ranks
            rows.append(row)
        value: dict[str, object] = {
            "query": query,
            "mode": mode,
            "count": len(rows),
            "results": rows,
        }
        if explain:
            value["explain"] = info
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        return
    lines = [DATA_LINE, ""]
    if explain:
        counts = info.get("streams", {})
        assert isinstance(counts, dict)
        lines.append(
            f"mode: {mode}; streams: "
            + ", ".join(f"{n} {c} found" for n, c in counts.items())
            + (f"; vectors off: {info['vectors_off']}" if "vectors_off" in info else "")
        )
        if "lexical" in info:
            lines.append(f"bm25 stream: {safe(str(info['lexical']))}")
        expansion = info.get("expansion") or {}
        assert isinstance(expansion, dict)
        for concept, near in expansion.items():
            lines.append(f"graph: {safe(concept)} -> {safe(', '.join(near))}")
        lines.append("")
    if not results:
        lines.append(NO_MATCHES)
    for r in results:
        lines.append(f"doc: {safe(r.path.rsplit('/', 1)[-1])} [{r.key}]")
        lines.append(f"  {safe(r.text)}")
        if explain:
            lines.append(f"  ranks: {_ranks_line(r.ranks)}; score {r.score:.5f}")
    sys.stdout.write(wrap("\n".join(lines), "vault") + "\n")
