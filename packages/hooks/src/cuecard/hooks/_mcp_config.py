"""Registering ``cuecard mcp`` (the memory tools' MCP server) in each harness's own MCP
configuration, and removing it.

===========  ==================================  =========================================
harness      project (committed)                 ``--user``
===========  ==================================  =========================================
claude       ``.mcp.json`` ``mcpServers.cuecard``  ``~/.claude.json`` ``mcpServers.cuecard``
codex        ``.codex/config.toml``               ``$CODEX_HOME/config.toml`` (``~/.codex``)
             ``[mcp_servers.cuecard]``
opencode     ``opencode.json`` ``mcp.cuecard``     ``~/.config/opencode/opencode.json``
grok         ``.grok/config.toml``                ``~/.grok/config.toml``
             ``[mcp_servers.cuecard]``
===========  ==================================  =========================================

A project's files are committed, so they hold no path of this machine: the server is started as
``sh -c 'command -v cuecard … || exit 0; exec cuecard mcp --agent NAME'``, ``cuecard`` from the
PATH, and where cuecard is not installed the server ends at once, which the harness reports as a
server that did not start and goes on. ``--user`` files run the installed ``cuecard`` by its
path. In a TOML file the table sits in a block marked ``# cuecard mcp`` that uninstalling removes
whole; in a JSON file only cuecard's own key is added and removed.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["AGENTS", "SERVER", "mcp_files", "portable_mcp_command", "register", "unregister"]

SERVER = "cuecard"
AGENTS = {"claude": "claude-code", "codex": "codex", "opencode": "opencode", "grok": "grok"}
"""The agent name each harness's submissions are stamped with."""
BEGIN = "# cuecard mcp: begin (cuecard install wrote this block; cuecard uninstall removes it)"
END = "# cuecard mcp: end"


def portable_mcp_command(harness: str) -> list[str]:
    """The server's command line for a committed file: ``cuecard`` from the PATH, else nothing."""
    return [
        "sh",
        "-c",
        f"command -v cuecard >/dev/null 2>&1 || exit 0; exec cuecard mcp --agent {AGENTS[harness]}",
    ]


def _installed_command(harness: str) -> list[str]:
    """The server's command line for the person's own files: this installation's ``cuecard``."""
    found = shutil.which("cuecard") or str(Path(sys.executable).with_name("cuecard"))
    return [found, "mcp", "--agent", AGENTS[harness]]


def mcp_files(
    harness: str, *, project: Path, user: bool, home: Path, environ: dict[str, str] | None = None
) -> Path:
    """The file that holds ``harness``'s MCP servers, project or user."""
    env = os.environ if environ is None else environ
    if harness == "claude":
        return home / ".claude.json" if user else project / ".mcp.json"
    if harness == "codex":
        if user:
            return Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"
        return project / ".codex" / "config.toml"
    if harness == "opencode":
        return (
            home / ".config" / "opencode" / "opencode.json" if user else project / "opencode.json"
        )
    return (home if user else project) / ".grok" / "config.toml"


def _entry(harness: str, command: list[str]) -> dict[str, Any]:
    if harness == "claude":
        return {"type": "stdio", "command": command[0], "args": command[1:], "env": {}}
    return {"type": "local", "command": command, "enabled": True}


def _toml_block(command: list[str], harness: str) -> str:
    lines = [
        BEGIN,
        f"[mcp_servers.{SERVER}]",
        f"command = {json.dumps(command[0])}",
        f"args = [{', '.join(json.dumps(a) for a in command[1:])}]",
    ]
    if harness == "grok":
        lines.append("enabled = true")
    return "\n".join([*lines, END]) + "\n"


def _without_block(text: str) -> str:
    """``text`` without cuecard's marked block (and the blank line before it)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        if line.rstrip("\n") == BEGIN:
            inside = True
            while out and not out[-1].strip():
                out.pop()
            continue
        if inside:
            if line.rstrip("\n") == END:
                inside = False
            continue
        out.append(line)
    result = "".join(out)
    return result if not result or result.endswith("\n") else result + "\n"


def _parse_toml(path: Path, text: str) -> dict[str, Any]:
    import tomllib

    from cuecard.hooks._errors import InstallError

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path}: not valid TOML ({exc}); fix or move it first") from None


def new_text(harness: str, path: Path, old: str | None, command: list[str]) -> str:
    """``path``'s text with cuecard's server registered (``old``: its text, None if missing)."""
    from cuecard.hooks._errors import InstallError

    if path.suffix == ".toml":
        base = _without_block(old or "")
        servers = _parse_toml(path, base).get("mcp_servers")
        if isinstance(servers, dict) and SERVER in servers:
            raise InstallError(
                f"{path} already names an MCP server {SERVER!r} that cuecard did not write: "
                "remove it, or install with --no-mcp"
            )
        gap = "\n" if base.strip() else ""
        text = (base if base.strip() else "") + gap + _toml_block(command, harness)
        _parse_toml(path, text)
        return text
    try:
        value = json.loads(old) if old and old.strip() else {}
    except ValueError as exc:
        raise InstallError(f"{path}: not readable as JSON ({exc}); fix or move it first") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: the top level must be a JSON object")
    key = "mcpServers" if harness == "claude" else "mcp"
    servers = value.get(key)
    if servers is None:
        servers = {}
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: {key} must be a JSON object")
    value[key] = {**servers, SERVER: _entry(harness, command)}
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def removed_text(harness: str, path: Path, old: str) -> str | None:
    """``path``'s text without cuecard's server; ``None`` when nothing else is left in it."""
    if path.suffix == ".toml":
        text = _without_block(old)
        return text if text.strip() else None
    try:
        value = json.loads(old) if old.strip() else {}
    except ValueError:
        return old  # not ours to repair: left as it is
    if not isinstance(value, dict):
        return old
    key = "mcpServers" if harness == "claude" else "mcp"
    servers = value.get(key)
    if isinstance(servers, dict) and SERVER in servers:
        servers = {k: v for k, v in servers.items() if k != SERVER}
        if servers:
            value[key] = servers
        else:
            value.pop(key)
    if not value:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def command_for(harness: str, user: bool) -> list[str]:
    return _installed_command(harness) if user else portable_mcp_command(harness)


def _read(path: Path, project: Path | None) -> str | None:
    """The text of the MCP configuration ``path`` (``None`` when there is none): a project's
    through the confined layer (no link followed, no FIFO opened at any depth), the person's
    own home configuration as they keep it."""
    if project is not None:
        from cuecard.core.fs import Tree

        try:
            return Tree(project).read_text(path.relative_to(project).as_posix())
        except FileNotFoundError:
            return None
    return path.read_text(encoding="utf-8") if path.is_file() else None


def register(
    harness: str,
    *,
    project: Path,
    user: bool,
    home: Path,
    environ: dict[str, str] | None = None,
) -> tuple[Path, str, str | None]:
    """(file, its new text, its old text or None): what registering the server writes."""
    path = mcp_files(harness, project=project, user=user, home=home, environ=environ)
    old = _read(path, None if user else project)
    return path, new_text(harness, path, old, command_for(harness, user)), old


def unregister(
    harness: str,
    *,
    project: Path,
    user: bool,
    home: Path,
    environ: dict[str, str] | None = None,
) -> tuple[Path, str | None] | None:
    """(file, its text without the server, None to delete it), or None when it holds nothing
    of cuecard's."""
    path = mcp_files(harness, project=project, user=user, home=home, environ=environ)
    old = _read(path, None if user else project)
    if old is None:
        return None
    new = removed_text(harness, path, old)
    if new == old:
        return None
    return path, new
