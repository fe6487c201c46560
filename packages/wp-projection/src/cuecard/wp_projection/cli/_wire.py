"""``cuecard wp wire``: include the projected files in a runtime's configuration."""

from __future__ import annotations

import argparse

from cuecard.wp_projection.cli._common import add_root, run_wiring


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "wire",
        allow_abbrev=False,
        description=(
            "claude: an include block in the root CLAUDE.md between cuecard's markers. "
            "opencode: owned entries of `instructions` in the root opencode.json (backed up "
            "once). kimaki: through the same opencode.json. Kept current as records change. "
            "--json prints keys: runtime, wired, paths."
        ),
    )
    parser.add_argument("runtime", choices=("claude", "opencode", "kimaki"))
    add_root(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run_wiring, wire_on=True)
