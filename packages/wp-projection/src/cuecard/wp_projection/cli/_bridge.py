"""``cuecard wp bridge``: write the WordPress bridge plugin and its settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cuecard.core.cli import emit_json
from cuecard.wp_projection.cli._common import add_secret, load_secret


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "bridge",
        allow_abbrev=False,
        description=(
            "Write cuecard-bridge.php into DIR (wp-content/mu-plugins) and its settings, which "
            "hold the secret, into DIR/cuecard-bridge/settings.php (a folder WordPress does not "
            "load by itself; mode 0700, the file 0600). The bridge asks Data Machine for each "
            "scope's agent. --json prints keys: files, endpoint, settings_dir, owner, "
            "owner_command, removed, agent_slug, blocking."
        ),
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument(
        "--endpoint",
        default="http://127.0.0.1:8765/events",
        help="the receiver's URL (default http://127.0.0.1:8765/events)",
    )
    add_secret(parser)
    parser.add_argument(
        "--owner",
        metavar="USER[:GROUP]",
        help=(
            "the user the web server runs PHP as (e.g. www-data): the settings become theirs; "
            "without the right to change owners, the command to run is printed"
        ),
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="ID=SLUG",
        help=(
            "slug of the agent with this id, used only where Data Machine's own agent lookup "
            "is missing (repeatable)"
        ),
    )
    parser.add_argument(
        "--agent-slug",
        metavar="SLUG",
        help=(
            "last-resort slug of the default agent (id 0), used only when the bridge cannot ask "
            "Data Machine at all (neither its directory manager nor its agents repository "
            "exists) and only while the site has exactly one user; never overrides what Data "
            "Machine resolves, and with several users such scopes are refused and logged"
        ),
    )
    parser.add_argument(
        "--timeout", type=float, default=5.0, help="delivery timeout, seconds (default 5)"
    )
    parser.add_argument(
        "--blocking",
        action="store_true",
        help=(
            "each request that queued an envelope also delivers the queue when it ends, after "
            "its response is sent (PHP-FPM, LiteSpeed; elsewhere the visitor waits), instead of "
            "waiting for Action Scheduler or WP-Cron; after a failed delivery the scheduler's "
            "backoff retries alone"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core import UsageError
    from cuecard.wp_projection._bridge import parse_owner, render_settings, write_bridge

    slugs: dict[int, str] = {}
    for item in args.agent:
        agent_id, sep, slug = item.partition("=")
        if not sep or not agent_id.isdigit():
            raise UsageError(f"--agent {item!r} must be ID=SLUG")
        slugs[int(agent_id)] = slug
    owner = parse_owner(args.owner) if args.owner else None
    settings = render_settings(
        endpoint=args.endpoint,
        secret=load_secret(args),
        agent_slugs=slugs,
        timeout_s=args.timeout,
        agent_slug=args.agent_slug,
        blocking=args.blocking,
    )
    written = write_bridge(args.out, settings, owner)
    if args.json:
        emit_json(
            {
                "files": [str(f) for f in written.files],
                "endpoint": args.endpoint,
                "settings_dir": str(written.settings_dir),
                "owner": owner.name if owner else None,
                "owner_command": written.owner_command,
                "removed": [str(p) for p in written.removed],
                "agent_slug": args.agent_slug,
                "blocking": args.blocking,
            }
        )
    else:
        for path in written.files:
            print(f"wrote {path}")
        for path in written.removed:
            print(f"removed {path} (settings of an older bridge, loaded by WordPress itself)")
    if written.owner_command:
        print(
            f"cuecard wp: the web server's user {owner.name if owner else ''} cannot read the "
            f"settings yet; run: {written.owner_command}",
            file=sys.stderr,
        )
    elif owner is None:
        print(
            f"cuecard wp: {written.settings_dir} is readable by this user only; if the web "
            "server runs PHP as another user, run again with --owner USER (e.g. www-data)",
            file=sys.stderr,
        )
    _explain(args)
    return 0


def _explain(args: argparse.Namespace) -> None:
    """What --agent-slug and --blocking mean now that Data Machine resolves agents and envelopes
    are queued (stderr; both options were documented before, so they are kept, not refused)."""
    if args.agent_slug is not None:
        print(
            "cuecard wp: note: Data Machine resolves each scope's agent itself; --agent-slug "
            f"{args.agent_slug} is only a fallback, used for the default agent (id 0) when the "
            "bridge cannot ask Data Machine at all and only while the site has exactly one "
            "user. It never overrides Data Machine's answer; on a site with several users such "
            "scopes are refused and logged, never filed under this slug.",
            file=sys.stderr,
        )
    if args.blocking:
        print(
            "cuecard wp: note: --blocking: each request that queues an envelope also delivers "
            "the queue when it ends, after its response is sent under PHP-FPM or LiteSpeed "
            "(elsewhere the visitor waits, at most about twice --timeout); Action Scheduler or "
            "WP-Cron still retries what fails, with backoff, and requests stand aside meanwhile.",
            file=sys.stderr,
        )
