"""``cuecard ingest``: ingest inbox proposals by hand."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.store._store import Store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "ingest",
        description=(
            "Validate each proposal as the store validates, verify its evidence, suggest triggers "
            "from the session when none are given, refuse generic advice and duplicates, apply "
            "auto-accept, and say what became of it. Ingested files move to .cuecard/local/"
            "inbox-done/ (refused ones to inbox-refused/). Exit 1 when any was refused. --json "
            'prints {"results": [{"proposal", "outcome", "memory_id", "file", "reasons", '
            '"message"}]}.'
        ),
    )
    parser.add_argument("files", nargs="*", help="proposal files (default: every inbox *.json)")
    parser.add_argument("--session", default="", help="the session that wrote them")
    parser.add_argument("--agent", default="", help="the agent that wrote them")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.engine._text import redact
    from cuecard.core.lifecycle._ingest import ingest_file
    from cuecard.core.store._store import Store

    store = Store.open()
    files = args.files or _inbox(store)
    results = []
    for name in files:
        result = ingest_file(str(store.root), name, session=args.session, agent=args.agent)
        results.append({"proposal": redact(name), **result.as_json()})  # a name can hold a key
        if not args.json:
            print(result.message)
    if args.json:
        emit_json({"results": results})
    elif not files:
        print("the inbox is empty")
    return 1 if any(r["outcome"] == "refused" for r in results) else 0


def _inbox(store: Store) -> list[str]:
    """The inbox's ``*.json`` entries, listed through the confined layer, sorted (each kind:
    ``ingest_file`` refuses what is not a regular file, a link included). An inbox that is a
    link is never listed: it stands for itself, and ``ingest_file`` refuses it as a link; any
    other inbox that is not a plain folder of this user stops the command, naming it and why."""
    from cuecard.core.base._confined import UnsafePath

    try:
        entries = store.tree.entries(".cuecard/inbox")
    except UnsafePath:
        if not (store.dir.is_symlink() or store.inbox_dir.is_symlink()):
            raise
        return [str(store.inbox_dir)]
    return [str(store.inbox_dir / name) for name, _kind in entries if name.endswith(".json")]
