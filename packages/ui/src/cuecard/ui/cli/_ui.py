"""``cuecard ui``: serve the review UI.

Heavy imports (Starlette, uvicorn, Jinja2, pydantic) happen inside ``run``.
"""

from __future__ import annotations

import argparse
import contextlib


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ui",
        description=(
            "Serve the review UI of the project here (and of its configured vault) on "
            "127.0.0.1 until interrupted. Prints one line on stdout: the URL to open, carrying "
            "a fresh key that the first visit exchanges for an HttpOnly, SameSite=Strict "
            "cookie. Only that Host and that browser are answered; changes are taken only as "
            "JSON. Opens the URL in a browser unless --no-browser."
        ),
    )
    parser.add_argument(
        "--port", type=int, default=0, help="loopback port to listen on (default 0: a free one)"
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="print the URL but do not open a browser"
    )
    parser.add_argument(
        "--vault",
        metavar="PATH|URL",
        help="the vault whose queues to show, a folder or a postgresql:// URL without a password "
        "(default: CUECARD_VAULT or config `vault`)",
    )
    parser.add_argument(
        "--reviewer",
        help="name recorded for your reviews (default: your login name)",
    )
    parser.set_defaults(run=run)


def _vault(explicit: str | None) -> str | None:
    from cuecard.core import UsageError
    from cuecard.core.vault import resolve_vault_location

    try:
        return resolve_vault_location(explicit)
    except UsageError:
        return None  # no vault configured: the vault queues say so


def run(args: argparse.Namespace) -> int:
    import getpass
    import sys
    import webbrowser

    from cuecard.core import Store, UsageError
    from cuecard.ui._project import Project
    from cuecard.ui._server import bind, serve

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: give a port from 0 to 65535")
    store = Store.open()
    store.config()
    vault = _vault(args.vault)

    def notice(line: str) -> None:
        print(line, file=sys.stderr, flush=True)  # the server's log, as the CLI says it

    project = Project(
        store,
        vault_location=vault,
        reviewer=args.reviewer or getpass.getuser() or "person",
        notify=notice,
    )
    try:
        served = bind(args.port)
    except OSError as exc:
        raise UsageError(f"--port {args.port}: cannot listen on 127.0.0.1 ({exc})") from None

    def ready(url: str) -> None:
        print(url, flush=True)
        print(f"cuecard ui: serving {store.root} (Ctrl-C stops it)", file=sys.stderr, flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    with contextlib.suppress(KeyboardInterrupt):
        serve(project, served, on_ready=ready)
    return 0
