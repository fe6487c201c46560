"""``cuecard wp serve``: the loopback receiver for the bridge's signed events."""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sys
from pathlib import Path

from cuecard.core import UsageError
from cuecard.wp_projection.cli._common import add_root, add_secret, load_secret, read_json_config


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve",
        allow_abbrev=False,
        description=(
            "Serve POST /events and GET /status (both signed) on loopback. Events are queued "
            "durably (SQLite WAL) before the 202 answer and applied in order by one worker. "
            "Prints 'listening on URL' on stderr once ready."
        ),
    )
    add_root(parser)
    add_secret(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks one)")
    parser.add_argument(
        "--allow-non-loopback",
        action="store_true",
        help="allow binding a non-loopback address (put TLS in front of it)",
    )
    parser.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="URL=NAME",
        help="name the folder of the site with this home URL (repeatable)",
    )
    parser.add_argument("--default-agent", help="agent slug for scopes with agent id 0 and no slug")
    parser.add_argument(
        "--sync-config",
        type=Path,
        help="JSON config of `cuecard wp sync`: reconcile at start and when a site needs it",
    )
    parser.add_argument(
        "--pull-every",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="with --sync-config, also pull this often (default 300)",
    )
    parser.set_defaults(run=run)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from cuecard.wp_projection._receiver import LOOPBACK_NAMES, ReceiverSettings, build_app
    from cuecard.wp_projection.cli._common import root_of, sync_settings

    if not _loopback(args.host) and not args.allow_non_loopback:
        raise UsageError(
            f"--host {args.host}: not a loopback address; pass --allow-non-loopback to bind it"
        )
    root = root_of(args)
    aliases = {}
    for item in args.alias:
        url, sep, name = item.rpartition("=")
        if not sep or not url:
            raise UsageError(f"--alias {item!r} must be URL=NAME")
        aliases[url.strip().rstrip("/")] = name
    sync = None
    if args.sync_config is not None:
        sync = sync_settings(read_json_config(args.sync_config), root.root)
    hosts = set(LOOPBACK_NAMES) | {args.host.lower()}
    settings = ReceiverSettings(
        root=root.root,
        secret=load_secret(args).encode("utf-8"),
        managed=args.managed,
        allowed_hosts=frozenset(hosts),
        aliases=aliases,
        default_agent=args.default_agent,
        sync=sync,
        reconcile_every_s=max(args.pull_every, 1.0),
    )
    from cuecard.wp_projection._manifest import MANIFEST_NAME
    from cuecard.wp_projection._queue import QUEUE_NAME

    root.check_writable((QUEUE_NAME, MANIFEST_NAME))  # before "listening": exit 1, clear reason
    root.database(QUEUE_NAME)  # and for a link or a FIFO in the queue's place
    app = build_app(settings)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise UsageError(
            f"--host/--port: cannot bind {args.host}:{args.port} ({exc.strerror})"
        ) from None
    sock.listen(2048)  # connections wait in the backlog until the app is ready
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        server_header=False,
        proxy_headers=False,
        access_log=False,
    )
    server = uvicorn.Server(config)
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(
        f"cuecard wp: listening on http://{shown}:{port} (pid {os.getpid()})",
        file=sys.stderr,
        flush=True,
    )
    server.run(sockets=[sock])
    return 0
