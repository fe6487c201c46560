"""The WordPress bridge plugin (package data) and its settings file."""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from cuecard.core import UsageError

__all__ = ["PLUGIN_NAME", "SETTINGS_NAME", "plugin_source", "render_settings", "write_bridge"]

PLUGIN_NAME = "cuecard-bridge.php"
SETTINGS_NAME = "cuecard-bridge-settings.php"
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
    agent_slug: str | None = None,
    agent_slugs: dict[int, str] | None = None,
    timeout_s: float = 2.0,
    blocking: bool = False,
) -> str:
    """The settings file: a PHP ``return array(...)`` the plugin includes."""
    if not _ENDPOINT.fullmatch(endpoint):
        raise UsageError(
            f"--endpoint {endpoint!r} must be an http(s) URL such as http://127.0.0.1:8765/events"
        )
    if not secret or any(ord(c) < 0x20 for c in secret):
        raise UsageError("the shared secret must be non-empty and free of control characters")
    if agent_slug is not None and not _SLUG.fullmatch(agent_slug):
        raise UsageError(f"--agent-slug {agent_slug!r} must match [a-z0-9][a-z0-9-]*")
    for agent_id, slug in (agent_slugs or {}).items():
        if agent_id < 0 or not _SLUG.fullmatch(slug):
            raise UsageError(
                f"--agent {agent_id}={slug!r}: ID must be >= 0, SLUG [a-z0-9][a-z0-9-]*"
            )
    if not 0 < timeout_s <= 30:
        raise UsageError("--timeout must be between 0 and 30 seconds")
    slug = "null" if agent_slug is None else _php_string(agent_slug)
    slugs = ", ".join(
        f"{_php_string(str(k))} => {_php_string(v)}" for k, v in sorted((agent_slugs or {}).items())
    )
    return (
        "<?php\n"
        "// Written by `cuecard wp bridge`; holds the shared secret: keep it private (mode 0600).\n"
        "if ( ! defined( 'ABSPATH' ) ) {\n\treturn null;\n}\n"
        "return array(\n"
        f"\t'endpoint'   => {_php_string(endpoint)},\n"
        f"\t'secret'     => {_php_string(secret)},\n"
        f"\t'agent_slug' => {slug},\n"
        f"\t'agent_slugs' => array({slugs}),\n"
        f"\t'timeout'    => {timeout_s!r},\n"
        f"\t'blocking'   => {'true' if blocking else 'false'},\n"
        ");\n"
    )


def write_bridge(out: Path, settings_php: str) -> list[Path]:
    """Write the plugin and its settings into ``out`` (created if missing)."""
    out.mkdir(parents=True, exist_ok=True)
    plugin, settings = out / PLUGIN_NAME, out / SETTINGS_NAME
    for path in (plugin, settings):
        if path.is_symlink():
            raise UsageError(f"{path}: is a symlink; refusing to write through it")
    plugin.write_bytes(plugin_source())
    plugin.chmod(0o644)
    fd = os.open(settings, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(settings_php)
    settings.chmod(0o600)
    return [plugin, settings]
