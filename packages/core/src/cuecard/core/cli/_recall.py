"""``cuecard recall``: search this project's live memories and the vault."""

from __future__ import annotations

import argparse

from cuecard.core.cli._vault_search import limit_arg


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "recall",
        help="search this project's memories and, when one is configured, the vault",
        description=(
            "Rank the current project's live memories (index in .cuecard/local/) and, when a "
            "vault is configured (--vault, $CUECARD_VAULT or the user config), the vault's "
            "canonical facts by BM25 against QUERY; print both, redacted, in one <memory-data> "
            "block. --json prints keys: query, project (each id, text, score), vault (each note, "
            "id, text, score; null when no vault is configured)."
        ),
    )
    parser.add_argument("query", nargs="+", help="what to look for")
    parser.add_argument("--limit", type=limit_arg, default=8, help="most results per source")
    parser.add_argument("--vault", metavar="PATH", help="the vault folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core._errors import UsageError
    from cuecard.core._text import redact, wrap_memory_data
    from cuecard.core.recall._index import Hit
    from cuecard.core.recall._project import project_index, project_root
    from cuecard.core.vault._render import DATA_LINE, clean, hit_json
    from cuecard.core.vault._vault import Vault

    query = " ".join(args.query)
    project_hits: list[Hit] = []
    root = project_root()
    if root is not None:
        index = project_index(root)
        index.sync()
        project_hits = index.search(query, args.limit)
    vault_hits: list[Hit] | None = None
    from cuecard.core.vault._location import resolve_vault_path

    try:
        vault_root = resolve_vault_path(args.vault)
    except UsageError:
        vault_root = None
    if vault_root is not None:
        vault = Vault.open(vault_root)
        vault.index.sync()
        vault_hits = vault.index.search(query, args.limit)
        vault.record_use([h.key for h in vault_hits])
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "query": query,
                "project": [
                    {"id": h.key, "text": clean(h.text), "score": round(h.score, 4)}
                    for h in project_hits
                ],
                "vault": None if vault_hits is None else [hit_json(h) for h in vault_hits],
            }
        )
        return 0
    lines = [DATA_LINE.replace("vault files", "project memories and vault files"), ""]
    lines.append("project memories:" if project_hits else "project memories: no matches")
    for h in project_hits:
        lines.append(f"  [{h.key[:8]}] {redact(h.text)}")
    if vault_hits is not None:
        lines.append("")
        lines.append("vault facts:" if vault_hits else "vault facts: no matches")
        for h in vault_hits:
            lines.append(f"  {h.path.rsplit('/', 1)[-1]} [{h.key}]: {redact(h.text)}")
    print(wrap_memory_data("\n".join(lines), source="recall"))
    return 0
