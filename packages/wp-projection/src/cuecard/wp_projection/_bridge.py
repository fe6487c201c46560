"""The WordPress bridge plugin (package data) and its settings file."""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import shlex
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from cuecard.core import UsageError

__all__ = [
    "PLUGIN_NAME",
    "SETTINGS_DIR",
    "SETTINGS_FILE",
    "Owner",
    "Written",
    "parse_owner",
    "plugin_source",
    "render_settings",
    "write_bridge",
]

PLUGIN_NAME = "cuecard-bridge.php"
SETTINGS_DIR = "cuecard-bridge"
"""Beside the plugin; WordPress loads only the top-level PHP files of ``mu-plugins``."""
SETTINGS_FILE = "settings.php"
LEGACY_SETTINGS_NAME = "cuecard-bridge-settings.php"
"""Where bridges before 0.2 kept the settings: auto-loaded by WordPress, so removed."""
_ENDPOINT = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+(/[A-Za-z0-9._~/\-]*)?")
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")


def plugin_source() -> bytes:
    """The plugin file as shipped in this distribution."""
    return (resources.files("cuecard.wp_projection") / "bridge" / PLUGIN_NAME).read_bytes()


def _php_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def render_settings(
    *,
    endpoint: str,
    secret: str,
    agent_slugs: dict[int, str] | None = None,
    timeout_s: float = 5.0,
    agent_slug: str | None = None,
    blocking: bool = False,
) -> str:
    """The settings file: a PHP ``return array(...)`` the plugin includes.

    ``agent_slug`` is the last-resort slug of the default agent (id 0) of a site with exactly one
    user, used only where the bridge cannot ask Data Machine at all; ``blocking`` makes each
    request that queued an envelope deliver the queue when it ends (after its response is sent
    where PHP allows) instead of leaving it to the scheduler.
    """
    if not _ENDPOINT.fullmatch(endpoint):
        raise UsageError(
            f"--endpoint {endpoint!r} must be an http(s) URL such as http://127.0.0.1:8765/events"
        )
    if not secret or any(ord(c) < 0x20 for c in secret):
        raise UsageError("the shared secret must be non-empty and free of control characters")
    for agent_id, slug in (agent_slugs or {}).items():
        if agent_id < 1 or not _SLUG.fullmatch(slug):
            raise UsageError(
                f"--agent {agent_id}={slug!r}: ID must be >= 1, SLUG [a-z0-9][a-z0-9-]*"
            )
    if agent_slug is not None and not _SLUG.fullmatch(agent_slug):
        raise UsageError(f"--agent-slug {agent_slug!r} must match [a-z0-9][a-z0-9-]*")
    if not 0 < timeout_s <= 30:
        raise UsageError("--timeout must be between 0 and 30 seconds")
    slugs = ", ".join(
        f"{_php_string(str(k))} => {_php_string(v)}" for k, v in sorted((agent_slugs or {}).items())
    )
    return (
        "<?php\n"
        "// Written by `cuecard wp bridge`; holds the shared secret: readable by the web server's\n"
        "// user only. WordPress does not load this folder by itself; the bridge plugin does.\n"
        "if ( ! defined( 'ABSPATH' ) ) {\n\treturn null;\n}\n"
        "return array(\n"
        f"\t'endpoint'    => {_php_string(endpoint)},\n"
        f"\t'secret'      => {_php_string(secret)},\n"
        f"\t'agent_slugs' => array({slugs}),\n"
        f"\t'timeout'     => {timeout_s!r},\n"
        f"\t'agent_slug'  => {'null' if agent_slug is None else _php_string(agent_slug)},\n"
        f"\t'blocking'    => {'true' if blocking else 'false'},\n"
        ");\n"
    )


@dataclass(frozen=True)
class Owner:
    """The user (and group) the web server runs PHP as; the settings are made theirs."""

    name: str
    uid: int
    gid: int
    group: str


def parse_owner(spec: str) -> Owner:
    """``USER`` or ``USER:GROUP`` (names or numeric ids) -> ``Owner``; the group defaults to the
    user's primary group."""
    user, _, group = spec.partition(":")
    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, ValueError):
        raise UsageError(f"--owner {spec!r}: no such user on this machine") from None
    try:
        if group:
            gentry = grp.getgrgid(int(group)) if group.isdigit() else grp.getgrnam(group)
        else:
            gentry = grp.getgrgid(entry.pw_gid)
    except (KeyError, ValueError):
        raise UsageError(f"--owner {spec!r}: no such group on this machine") from None
    return Owner(entry.pw_name, entry.pw_uid, gentry.gr_gid, gentry.gr_name)


@dataclass
class Written:
    """What ``write_bridge`` did."""

    files: list[Path]
    """The plugin, the settings file."""
    settings_dir: Path
    """The folder holding the settings (not loaded by WordPress itself)."""
    owner_command: str | None = None
    """When the settings could not be given to ``--owner`` here: the exact command to run."""
    removed: list[Path] = field(default_factory=list)
    """Settings files of an older bridge, inside the folder WordPress loads, removed."""


def _refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise UsageError(f"{path}: is a symlink; refusing to write through it")


def write_bridge(out: Path, settings_php: str, owner: Owner | None = None) -> Written:
    """Write the plugin into ``out`` (created if missing) and its settings into
    ``out/cuecard-bridge/settings.php``: a folder WordPress does not load by itself, mode 0700,
    the file 0600, both made ``owner``'s when given (or the command to do so is returned)."""
    out.mkdir(parents=True, exist_ok=True)
    plugin = out / PLUGIN_NAME
    folder = out / SETTINGS_DIR
    settings = folder / SETTINGS_FILE
    for path in (plugin, folder, settings):
        _refuse_link(path)
    plugin.write_bytes(plugin_source())
    plugin.chmod(0o644)
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o700)
    fd = os.open(settings, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(settings_php)
    settings.chmod(0o600)
    written = Written([plugin, settings], folder)
    legacy = out / LEGACY_SETTINGS_NAME
    if legacy.is_file() and not legacy.is_symlink():
        with contextlib.suppress(OSError):
            if b"Written by `cuecard wp bridge`" in legacy.read_bytes()[:400]:
                legacy.unlink()
                written.removed.append(legacy)
    if owner is not None and (os.geteuid(), os.getegid()) != (owner.uid, owner.gid):
        try:
            for path in (folder, settings):
                os.chown(path, owner.uid, owner.gid, follow_symlinks=False)
        except PermissionError:
            written.owner_command = (
                f"sudo chown -R {shlex.quote(owner.name)}:{shlex.quote(owner.group)} "
                f"{shlex.quote(str(folder))}"
            )
    return written
