"""``cuecard wp bridge``: write the WordPress bridge plugin and its settings."""

from __future__ import annotations

import argparse
from pathlib import Path

from cuecard.core.cli._output import emit_json
from cuecard.wp_projection.cli._common import add_secret, load_secret


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "bridge",
        allow_abbrev=False,
        help="write the WordPress bridge plugin with its settings",
        description=(
            "Write cuecard-bridge.php and cuecard-bridge-settings.php (mode 0600, holds the "
            "secret) into DIR, e.g. wp-content/mu-plugins. --json prints keys: files, endpoint."
        ),
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument(
        "--endpoint",
        default="http://127.0.0.1:8765/events",
        help="the receiver's URL (default http://127.0.0.1:8765/events)",
    )
    add_secret(parser)
    parser.add_argument("--agent-slug", help="slug sent for scopes with agent id 0")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="ID=SLUG",
        help="slug sent for scopes with this agent id (repeatable)",
    )
    parser.add_argument("--timeout", type=float, default=2.0, help="delivery timeout, seconds")
    parser.add_argument(
        "--blocking", action="store_true", help="wait for the receiver's answer (default: no)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core import UsageError
    from cuecard.wp_projection._bridge import render_settings, write_bridge

    slugs: dict[int, str] = {}
    for item in args.agent:
        agent_id, sep, slug = item.partition("=")
        if not sep or not agent_id.isdigit():
            raise UsageError(f"--agent {item!r} must be ID=SLUG")
        slugs[int(agent_id)] = slug
    settings = render_settings(
        endpoint=args.endpoint,
        secret=load_secret(args),
        agent_slug=args.agent_slug,
        agent_slugs=slugs,
        timeout_s=args.timeout,
        blocking=args.blocking,
    )
    files = write_bridge(args.out, settings)
    if args.json:
        emit_json({"files": [str(f) for f in files], "endpoint": args.endpoint})
    else:
        for path in files:
            print(f"wrote {path}")
    return 0
