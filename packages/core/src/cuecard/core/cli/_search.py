"""The search commands' work (``vault search``, ``recall``): search through the backend
interface, print what it found. Free of argparse.

Both run as a cold process per call, so this module and what it imports stay on the standard
library and import nothing until needed: no pydantic, no argparse, no entry-point scan, no
dataclasses. A folder vault's plain BM25 search reads the recall index and nothing more.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._index import Hit
    from cuecard.core.vault._results import Found
    from cuecard.core.vault._settings import Settings

__all__ = ["print_json", "run_recall", "run_search"]


def print_json(value: dict[str, object]) -> None:
    """One JSON object on stdout (the same shape as the CLI's ``emit_json``)."""
    import json

    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def _search(
    location: str,
    query: str,
    limit: int,
    mode: str = "bm25",
    explain: bool = False,
    settings: Settings | None = None,
) -> Found:
    """What the vault at ``location`` finds for ``query``, through the backend interface."""
    from cuecard.core.vault._factory import open_backend

    with open_backend(location) as backend:
        return backend.search(query, limit, mode=mode, explain=explain, settings=settings)


def run_search(
    vault_arg: str | None,
    query: str,
    limit: int,
    as_json: bool,
    mode: str | None = None,
    explain: bool = False,
) -> int:
    from cuecard.core.vault._location import resolve_vault_location
    from cuecard.core.vault._render import hit_json, render_hits
    from cuecard.core.vault._settings import load_settings, resolve_mode

    location = resolve_vault_location(vault_arg)
    settings = load_settings()  # before the vault is opened: a bad config is named first
    found = _search(location, query, limit, resolve_mode(mode, settings), explain, settings)
    if not found.plain:
        _print_ranked(query, found.mode, found, found.info, as_json=as_json, explain=explain)
    elif as_json:
        results = [hit_json(h) for h in found]
        print_json({"query": query, "count": len(results), "results": results})
    else:
        sys.stdout.write(render_hits(found) + "\n")
    return 0


def run_recall(vault_arg: str | None, query: str, limit: int, as_json: bool) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.recall._project import project_index, project_root
    from cuecard.core.vault._location import resolve_vault_location
    from cuecard.core.vault._render import DATA_LINE, hit_json, safe, wrap

    project_hits: list[Hit] = []
    root = project_root()
    if root is not None:
        from cuecard.core.base._confined import UnsafePath

        index = project_index(root)
        try:
            index.sync()
            project_hits = index.search(query, limit)
        except UnsafePath as exc:  # a linked .cuecard/local: left alone, said; the vault answers
            sys.stderr.write(f"cuecard: project memories not searched: {exc}\n")
        finally:
            index.close()
    try:
        vault_root: str | None = resolve_vault_location(vault_arg)
    except UsageError:
        vault_root = None
    vault_hits = None if vault_root is None else _search(vault_root, query, limit)
    if as_json:
        print_json(
            {
                "query": query,
                "project": [
                    {"id": h.key, "text": safe(h.text), "score": round(h.score, 4)}
                    for h in project_hits
                ],
                "vault": None if vault_hits is None else [hit_json(h) for h in vault_hits],
            }
        )
        return 0
    lines = [DATA_LINE.replace("vault files", "project memories and vault files"), ""]
    lines.append("project memories:" if project_hits else "project memories: no matches")
    lines.extend(f"  [{h.key[:8]}] {safe(h.text)}" for h in project_hits)
    if vault_hits is not None:
        lines.append("")
        lines.append("vault facts:" if vault_hits else "vault facts: no matches")
        lines.extend(
            f"  {safe(h.path.rsplit('/', 1)[-1])} [{h.key}]: {safe(h.text)}" for h in vault_hits
        )
    sys.stdout.write(wrap("\n".join(lines), "recall") + "\n")
    return 0


def _ranks_line(ranks: dict[str, int | None]) -> str:
    return ", ".join(f"{name} {'-' if r is None else f'#{r}'}" for name, r in ranks.items())


def _print_ranked(
    query: str,
    mode: str,
    results: Found,
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
