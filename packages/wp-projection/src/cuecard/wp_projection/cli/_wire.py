"""``cuecard wp wire``: include the projected files in a runtime's configuration."""

from __future__ import annotations

import argparse

from cuecard.core.cli import emit_json
from cuecard.wp_projection.cli._common import add_root


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "wire",
        allow_abbrev=False,
        help="include the projected files in Claude Code, OpenCode or Kimaki configuration",
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
    parser.set_defaults(run=run, wire_on=True)


def run(args: argparse.Namespace) -> int:
    from cuecard.wp_projection._projector import Projector
    from cuecard.wp_projection._wiring import RUNTIMES, included_paths, unwire, wire
    from cuecard.wp_projection.cli._common import root_of

    root = root_of(args)
    projector = Projector(root)
    with root.lock():
        manifest = projector.load()
        if args.wire_on:
            wire(root, manifest, args.runtime)
        else:
            unwire(root, manifest, args.runtime)
        projector.save(manifest)
    paths = included_paths(manifest, root.managed) if args.wire_on else []
    wired = sorted(k for k in manifest.wired if k in RUNTIMES)
    if args.json:
        emit_json({"runtime": args.runtime, "wired": wired, "paths": paths})
    else:
        verb = "wired" if args.wire_on else "unwired"
        print(f"{verb} {args.runtime}; {len(paths)} projected files included")
    return 0
