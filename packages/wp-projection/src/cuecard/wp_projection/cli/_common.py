"""Options and helpers shared by the ``cuecard wp`` subcommands."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from cuecard.core import UsageError

__all__ = [
    "add_root",
    "add_secret",
    "add_sync_options",
    "load_secret",
    "read_json_config",
    "root_of",
    "run_wiring",
    "sync_settings",
    "sync_values",
]

SECRET_ENV = "CUECARD_WP_SECRET"  # noqa: S105 - the variable's name, not a secret
AUTH_ENV = "CUECARD_WP_AUTH"


def add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", type=Path, required=True, help="the runtime root (an existing directory)"
    )
    parser.add_argument(
        "--managed",
        default=".dm-memory",
        help="the managed folder under the root where records land (default .dm-memory)",
    )


def root_of(args: argparse.Namespace) -> Any:
    from cuecard.wp_projection._errors import PathRefused
    from cuecard.wp_projection._safefs import SafeRoot

    try:
        return SafeRoot(Path(os.path.abspath(args.root)), args.managed)
    except PathRefused as exc:
        raise UsageError(f"--root/--managed: {exc}") from None


def add_secret(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--secret-file",
        type=Path,
        help=f"file holding the shared HMAC secret (else the environment variable {SECRET_ENV})",
    )


def load_secret(args: argparse.Namespace) -> str:
    if args.secret_file is not None:
        try:
            secret = Path(args.secret_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise UsageError(f"--secret-file {args.secret_file}: {exc.strerror}") from None
    else:
        secret = os.environ.get(SECRET_ENV, "").strip()
    if len(secret) < 16:
        raise UsageError(
            f"the shared secret (--secret-file or {SECRET_ENV}) must be at least 16 characters"
        )
    return secret


def add_sync_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--site-url", help="the site's home URL (REST lives under /wp-json)")
    parser.add_argument(
        "--auth-file",
        type=Path,
        help=(
            "file outside the root holding 'user:application password' or a 'datamachine_' "
            f"agent token (else the environment variable {AUTH_ENV})"
        ),
    )
    parser.add_argument("--user-id", type=int, help="the effective user id (default 1)")
    parser.add_argument("--agent-id", type=int, help="the agent id (default 0)")
    parser.add_argument("--agent-slug", help="the agent's slug; names the agent folder")
    parser.add_argument("--alias", help="site folder name (default: a short hash of the URL)")
    parser.add_argument("--no-daily", action="store_true", help="do not pull daily files")
    parser.add_argument(
        "--secret-file",
        type=Path,
        help=(
            "file holding the bridge's shared secret (else the environment variable "
            f"{SECRET_ENV}, when set): also read the bridge's queue and Data Machine's agent "
            "folders, and remove agent folders Data Machine no longer has"
        ),
    )
    parser.add_argument(
        "--config", type=Path, help="JSON file with the same keys (site_url, auth_file, …)"
    )


def sync_settings(values: dict[str, Any], root: Path) -> Any:
    """``SyncSettings`` from option values (or a JSON config of the same keys)."""
    from cuecard.wp_projection._reconcile import SyncSettings, load_auth

    site_url = values.get("site_url")
    if not isinstance(site_url, str) or not site_url.startswith(("http://", "https://")):
        raise UsageError("--site-url (site_url) must be the site's http(s) home URL")
    auth_file = values.get("auth_file")
    authorization = load_auth(
        Path(auth_file) if auth_file else None, os.environ.get(AUTH_ENV), root
    )
    alias = values.get("alias")
    for key in ("user_id", "agent_id"):
        value = values.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UsageError(f"{key} must be a non-negative integer")
    secret_file = values.get("secret_file")
    bridge_secret = None
    if secret_file or os.environ.get(SECRET_ENV):
        holder = argparse.Namespace(secret_file=Path(secret_file) if secret_file else None)
        bridge_secret = load_secret(holder).encode("utf-8")
    return SyncSettings(
        bridge_secret=bridge_secret,
        site_url=site_url,
        authorization=authorization,
        user_id=int(values.get("user_id", 1)),
        agent_id=int(values.get("agent_id", 0)),
        agent_slug=values.get("agent_slug"),
        aliases={site_url.strip().rstrip("/"): alias} if alias else {},
        include_daily=bool(values.get("include_daily", True)),
    )


def sync_values(args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if args.config is not None:
        values = read_json_config(args.config)
    for key in ("site_url", "auth_file", "agent_slug", "alias", "secret_file"):
        if getattr(args, key) is not None:
            values[key] = str(getattr(args, key))
    for key in ("user_id", "agent_id"):
        if getattr(args, key) is not None:
            values[key] = getattr(args, key)
    if args.no_daily:
        values["include_daily"] = False
    return values


def read_json_config(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read a JSON object ({exc})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path}: must hold a JSON object")
    return value


def run_wiring(args: argparse.Namespace) -> int:
    """``wp wire`` and ``wp unwire`` (``wire_on`` tells which)."""
    from cuecard.core.cli import emit_json
    from cuecard.wp_projection._projector import Projector
    from cuecard.wp_projection._wiring import RUNTIMES, included_paths, unwire, wire

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
