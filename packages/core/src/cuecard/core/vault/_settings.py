"""How a vault search ranks: the ``[recall]`` settings, alike for both backends.

Read in the cold search process: standard library only at import, no pydantic, no entry-point
scan. The settings come from the ``[recall]`` table of the user config (``config.toml``):

- ``mode``: ``"bm25"`` (the default: the cold path loads nothing more), ``"hybrid"`` (BM25 and
  the concept graph, plus local vectors when the ``cuecard-core[vectors]`` extra is installed)
  or ``"auto"`` (hybrid when the extra is installed, BM25 otherwise); ``--mode`` overrides it.
- ``weights``: a table of per-stream weights (``bm25``, ``graph``, ``vectors``), each a number
  from 0 to 10 (0 turns the stream off). The defaults (``DEFAULT_WEIGHTS``) and ``RRF_K`` were
  fitted on the dev split of tools/bench/recall_conversation_set.json (``recall_quality.py
  --fit``): the weights and constant that keep hybrid at or above the default search on every
  question kind, with and without vectors, then rank best overall. The concept graph alone
  ranks far below BM25 there, so the fusion trusts it very little.
- ``per_note``: at most this many results from one note (1-100, ``PER_NOTE``: 10; a cap of 3
  cost recall when the answers cluster in one note, as a conversation's do, and bought nothing
  on the paraphrase set: tools/bench/recall_quality.py --ablation).
- ``rrf_k``: the RRF constant (1-1000, ``RRF_K``: 20; a small constant lets a stream's first
  results count for more than agreement far down the lists, which at 60 outvoted BM25's top).
"""

from __future__ import annotations

import os

from cuecard.core.base._errors import ConfigError

__all__ = [
    "DEFAULT_WEIGHTS",
    "MODES",
    "PER_NOTE",
    "RRF_K",
    "STREAMS",
    "Settings",
    "load_settings",
    "parse_settings",
    "recall_mode",
    "resolve_mode",
    "vectors_state",
]

MODES = ("auto", "bm25", "hybrid")
STREAMS = ("bm25", "graph", "vectors")
DEFAULT_WEIGHTS = {"bm25": 1.0, "graph": 0.01, "vectors": 0.5}
PER_NOTE = 10
RRF_K = 20


class Settings:
    """The ``[recall]`` settings (see the module docstring)."""

    __slots__ = ("mode", "per_note", "rrf_k", "weights")

    def __init__(
        self,
        mode: str = "bm25",
        weights: dict[str, float] | None = None,
        per_note: int = PER_NOTE,
        rrf_k: int = RRF_K,
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
    rrf_k = int(_number(path, "rrf_k", table.get("rrf_k", RRF_K), 1, 1000, whole=True))
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


def recall_mode() -> dict[str, object]:
    """How ``vault search`` ranks by default: mode, the streams it fuses, whether vectors run."""
    settings = load_settings()
    mode = resolve_mode(None, settings)
    why = vectors_state()
    streams = ["bm25"]
    if mode == "hybrid":
        streams += [n for n in ("graph", "vectors") if settings.weights[n] > 0]
        if why is not None and "vectors" in streams:
            streams.remove("vectors")
    return {
        "mode": mode,
        "configured": settings.mode,
        "streams": streams,
        "vectors": "available" if why is None else why,
    }
