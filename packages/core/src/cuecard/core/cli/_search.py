"""The search commands' work (``vault search``, ``recall``), free of argparse.

Both run as a cold process per call, so this module and what it imports stay on the standard
library and import nothing until needed: no pydantic, no argparse, no entry-point scan.
"""

from __future__ import annotations

import sys

from cuecard.core.recall._index import Hit

__all__ = ["print_json", "run_recall", "run_search"]


def print_json(value: dict[str, object]) -> None:
    """One JSON object on stdout (the same shape as the CLI's ``emit_json``)."""
    import json

    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def _today() -> str:
    import time

    return time.strftime("%Y-%m-%d")


def _vault_hits(root: str, query: str, limit: int) -> list[Hit]:
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
    hits = index.search(query, limit)
    record_use(cache_dir(root), [h.key for h in hits], _today())
    return hits


def _pg_hits(url: str, query: str, limit: int) -> list[Hit]:
    """Hits from a PostgreSQL vault: full-text ranking plus trigram similarity (hybrid mode
    runs in ``vault._pg_hybrid``)."""
    from cuecard.core.vault.postgres._vault import open_pg

    with open_pg(url) as vault:
        return vault.search(query, limit)


def run_search(
    vault_arg: str | None,
    query: str,
    limit: int,
    as_json: bool,
    mode: str | None = None,
    explain: bool = False,
) -> int:
    from cuecard.core.vault._location import is_database_url, resolve_vault_location
    from cuecard.core.vault._render import hit_json, render_hits

    root = resolve_vault_location(vault_arg)
    # Hybrid search (and --explain) run in vault._hybrid / vault._pg_hybrid; plain ranking stays
    # on this path.
    if is_database_url(root):
        from cuecard.core.vault.postgres._hybrid import run_pg_hybrid

        done = run_pg_hybrid(root, query, limit, as_json, mode, explain)
    else:
        from cuecard.core.vault.folder._hybrid import run_hybrid

        done = run_hybrid(root, query, limit, as_json, mode, explain)
    if done is not None:
        return done
    hits = (
        _pg_hits(root, query, limit) if is_database_url(root) else _vault_hits(root, query, limit)
    )
    if as_json:
        results = [hit_json(h) for h in hits]
        print_json({"query": query, "count": len(results), "results": results})
    else:
        sys.stdout.write(render_hits(hits) + "\n")
    return 0


def run_recall(vault_arg: str | None, query: str, limit: int, as_json: bool) -> int:
    from cuecard.core._errors import UsageError
    from cuecard.core.recall._project import project_index, project_root
    from cuecard.core.vault._location import is_database_url, resolve_vault_location
    from cuecard.core.vault._render import DATA_LINE, hit_json, safe, wrap

    project_hits: list[Hit] = []
    root = project_root()
    if root is not None:
        index = project_index(root)
        index.sync()
        project_hits = index.search(query, limit)
    try:
        vault_root: str | None = resolve_vault_location(vault_arg)
    except UsageError:
        vault_root = None
    if vault_root is None:
        vault_hits = None
    elif is_database_url(vault_root):
        vault_hits = _pg_hits(vault_root, query, limit)
    else:
        vault_hits = _vault_hits(vault_root, query, limit)
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
