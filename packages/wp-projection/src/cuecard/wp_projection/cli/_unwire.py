"""``cuecard wp unwire``: remove cuecard's owned block or entries from a runtime's configuration."""

from __future__ import annotations

import argparse

from cuecard.wp_projection.cli._common import add_root, run_wiring


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "unwire",
        allow_abbrev=False,
        description=(
            "Remove only what `cuecard wp wire` owns: the CLAUDE.md block or the owned "
            "opencode.json entries. --json prints keys: runtime, wired, paths."
        ),
    )
    parser.add_argument("runtime", choices=("claude", "opencode", "kimaki"))
    add_root(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run_wiring, wire_on=False)
