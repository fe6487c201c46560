"""``cuecard maintain``: roll sessions up and prune them, retire unused memories, refresh."""

from __future__ import annotations

import argparse
import sys

from cuecard.core.cli._output import emit_json

_KEYS = (
    "ran (false, alone, when --if-due found the last run less than a day old), "
    "ran_at (Unix seconds), sessions_rolled, sessions_pruned, sessions_left (idle session "
    "folders without cuecard's marker, kept), sessions_failed (list of {folder, error}: "
    "idle folders cuecard marked whose deletion failed partway), sessions_foreign (list of "
    "{folder, reason}: idle folders another user owns, kept), deliveries_rolled, "
    "ingestions_rolled, retired (list of {id, title, sessions}), similarity (live memories "
    "indexed), compiled (whether the trigger index was rebuilt), seconds"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "maintain",
        description=(
            "Maintenance, run detached from session start at most once a day and by hand: session "
            "files under .cuecard/local/ are rolled up into .cuecard/local/telemetry.sqlite and "
            "pruned after seven idle days (only folders holding cuecard's marker); an active "
            "memory whose paths were touched in at least "
            "retire.after_sessions sessions (config.json, default 20) without it firing is "
            "archived (the file stays) unless a person reviewed or wrote it or a pending "
            "candidate revises it; the similarity index used by ingestion and the review UI is "
            f"refreshed. --json prints keys: {_KEYS}."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="print nothing (for detached runs)")
    parser.add_argument(
        "--if-due",
        action="store_true",
        dest="if_due",
        help="run only when the last run is at least a day old (exit 0 either way)",
    )
    parser.set_defaults(run=run)


def _bar(name: str, done: int, total: int) -> None:
    width = 30
    filled = width * done // max(total, 1)
    print(
        f"\r\033[K{name:<11} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
        end="",
        file=sys.stderr,
        flush=True,
    )


def run(args: argparse.Namespace) -> int:
    import time

    from cuecard.core.base._confined import MARKER
    from cuecard.core.engine._schedule import DUE_EVERY, last_run
    from cuecard.core.lifecycle._maintain import maintain
    from cuecard.core.store._store import Store

    store = Store.open()
    if args.if_due:
        ran = last_run(str(store.root))
        if ran is not None and time.time() - ran < DUE_EVERY:
            if not args.quiet and not args.json:
                print("maintenance is not due: it ran less than a day ago", file=sys.stderr)
            if args.json:
                emit_json({"ran": False})
            return 0
    show = sys.stderr.isatty() and not (args.json or args.quiet)
    report = maintain(store, progress=_bar if show else None)
    if show:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    if args.quiet:
        return 0
    if args.json:
        from dataclasses import asdict

        emit_json({"ran": True, **asdict(report)})
        return 0
    print(
        f"rolled up {report.sessions_rolled} sessions ({report.sessions_pruned} pruned), "
        f"{report.deliveries_rolled} deliveries, {report.ingestions_rolled} ingestions",
        file=sys.stderr,
    )
    if report.sessions_left:
        print(
            f"left {len(report.sessions_left)} idle session folders under "
            f"{store.local_dir / 'sessions'} that cuecard cannot prove it made (no "
            f"{MARKER} in them: made by an older cuecard, or not by cuecard): "
            f"{', '.join(report.sessions_left[:5])}"
            f"{' …' if len(report.sessions_left) > 5 else ''}; delete them by hand once you "
            "have looked",
            file=sys.stderr,
        )
    if report.sessions_failed:
        failed = report.sessions_failed
        named = "; ".join(f"{item['folder']} ({item['error']})" for item in failed[:5])
        print(
            f"could not finish deleting {len(failed)} idle session folders under "
            f"{store.local_dir / 'sessions'} that cuecard made: {named}"
            f"{' …' if len(failed) > 5 else ''}; their summaries are kept in telemetry.sqlite "
            "and the next maintenance tries again (or delete them by hand)",
            file=sys.stderr,
        )
    if report.sessions_foreign:
        foreign = report.sessions_foreign
        named = "; ".join(f"{item['folder']} ({item['reason']})" for item in foreign[:5])
        print(
            f"left {len(foreign)} idle session folders under {store.local_dir / 'sessions'} "
            f"in place: {named}{' …' if len(foreign) > 5 else ''}; cuecard deletes nothing of "
            "another user's (their owner, or root, can)",
            file=sys.stderr,
        )
    for item in report.retired:
        print(
            f"retired {item['id'][:8]} {item['title']!r}: paths touched in {item['sessions']} "
            "sessions without it firing",
            file=sys.stderr,
        )
    print(
        f"similarity index: {report.similarity} live memories ({report.seconds:.2f} s)",
        file=sys.stderr,
    )
    return 0
