"""``cuecard compile``: rebuild the hot-path index from the live memories."""

from __future__ import annotations

import argparse
import sys

from cuecard.core.cli._output import emit_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.store._store import Store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "compile",
        description=(
            "Build the derived index the hooks read from the live memories: globs translated, "
            "clauses bucketed, checks verified against their examples (a failing or RE2-refused "
            "check is left out and reported), delivery_limit compiled in. Hooks rebuild a stale "
            "index on their own; run this to see the report. A memory file unchanged since the "
            "last compile (same size and modification time, or the same bytes) is taken from "
            "the per-file cache in .cuecard/local/index/. --json prints keys: memories, "
            "clauses, buckets, checks, left_out, problems, validated (files read and validated "
            "afresh), seconds."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.store._compiler import compile_index
    from cuecard.core.store._store import Store

    store = Store.open()
    show = sys.stderr.isatty() and not args.json

    def progress(count: int) -> None:
        if show:
            print(f"\rcompiling: {count} memories read", end="", file=sys.stderr, flush=True)

    report = compile_index(store, progress=progress)
    if show:
        print("\r\033[K", end="", file=sys.stderr)
    summary = {
        "memories": report.memories,
        "clauses": report.clauses,
        "buckets": report.buckets,
        "checks": report.checks,
        "left_out": report.left_out,
        "problems": report.problems,
        "validated": report.validated,
        "seconds": round(report.seconds, 3),
    }
    if args.json:
        emit_json(summary)
        return 0
    print(
        f"compiled {report.memories} live memories, {report.clauses} clauses in "
        f"{report.buckets} buckets, {report.checks} checks in {report.seconds:.2f} s",
        file=sys.stderr,
    )
    for item in report.left_out:
        print(f"check left out: memory {item['id'][:8]}: {item['reason']}", file=sys.stderr)
    for problem in report.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 0


def compile_after_change(store: Store) -> None:
    """Compile the hooks' index after a command changed the memories. The change is kept
    whatever happens here: a compile that cannot run now (the store busy, a broken file of
    another memory) is named on stderr, and the next hook event compiles."""
    from cuecard.core.base._errors import CuecardError
    from cuecard.core.store._compiler import compile_index

    try:
        report = compile_index(store)
    except (CuecardError, OSError) as exc:
        print(
            f"cuecard: the index was not compiled now ({exc}); hooks compile it at the next event",
            file=sys.stderr,
        )
        return
    for problem in report.problems:
        print(f"cuecard: compile: {problem}", file=sys.stderr)
