"""Grok Build's folder trust: it runs a project's hooks (``.grok/hooks/*.json``) only in a folder
the person trusted, and skips them silently elsewhere.

Trust lives in ``~/.grok/trusted_folders.toml``, one table per folder, and covers the folder's
subfolders too::

    [folders."/home/me/src/app"]
    trusted = true
    decided_at = 1767225600

``/hooks-trust`` in Grok Build, or one launch with ``grok --trust``, writes it. The gate is off
altogether with ``GROK_FOLDER_TRUST=0`` or ``[folder_trust] enabled = false`` in
``~/.grok/config.toml``. A trust grant also lets the folder's own MCP and LSP servers run, and
every other hook file Grok reads there (``grok_folder_grants`` lists them). Standard library only
(``cuecard doctor`` and ``cuecard install grok`` read it).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

__all__ = [
    "grok_findings",
    "grok_folder_grants",
    "grok_folder_trust",
    "grok_gate_off",
    "grok_trust_file",
    "grok_trust_step",
    "grok_trust_table",
    "read_trust",
]


def grok_trust_file(home: Path) -> Path:
    """Where Grok Build records folder trust."""
    return home / ".grok" / "trusted_folders.toml"


def _read(path: Path) -> dict[str, Any]:
    import tomllib

    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not readable as TOML ({exc})") from None


def grok_gate_off(home: Path, environ: dict[str, str]) -> bool:
    """Whether the person turned folder trust off (then project hooks always run)."""
    if environ.get("GROK_FOLDER_TRUST", "").strip().lower() in ("0", "false", "no", "off"):
        return True
    try:
        config = _read(home / ".grok" / "config.toml")
    except ValueError:
        return False
    gate = config.get("folder_trust")
    return isinstance(gate, dict) and gate.get("enabled") is False


def grok_folder_trust(config: dict[str, Any], folder: Path) -> tuple[str, str | None]:
    """``("trusted", where)`` when ``folder`` or a folder above it is trusted, ``("distrusted",
    where)`` when the person decided against ``folder`` itself, else ``("unknown", None)``."""
    folders = config.get("folders")
    if not isinstance(folders, dict):
        return "unknown", None
    target = str(folder)
    own = folders.get(target)
    if isinstance(own, dict) and own.get("trusted") is False:
        return "distrusted", target
    for candidate in (folder, *folder.parents):
        entry = folders.get(str(candidate))
        if isinstance(entry, dict) and entry.get("trusted") is True:
            return "trusted", str(candidate)
    return "unknown", None


def grok_trust_table(folder: Path, decided_at: int) -> str:
    """The TOML table that trusts ``folder``."""
    return f"[folders.{json.dumps(str(folder))}]\ntrusted = true\ndecided_at = {decided_at}\n"


def grok_trust_step(folder: Path, home: Path) -> str:
    """The exact step that trusts ``folder`` by hand."""
    table = grok_trust_table(folder, 0).replace("decided_at = 0\n", "")
    return (
        f"run /hooks-trust in Grok Build in {folder} (or start it there once with `grok "
        f"--trust`), or add to {grok_trust_file(home)}:\n{table}"
    )


def read_trust(home: Path) -> dict[str, Any]:
    """``trusted_folders.toml`` parsed (``{}`` when missing); ``ValueError`` when unreadable."""
    return _read(grok_trust_file(home))


def grok_findings(
    scope: str, root: Path | None, home: Path, environ: dict[str, str]
) -> list[tuple[bool, str, str]]:
    """``cuecard doctor``'s findings on Grok Build's trust for cuecard's project hooks:
    ``(problem, message, hint)``. User hooks (``~/.grok/hooks``) need no trust."""
    if scope != "project" or root is None or grok_gate_off(home, environ):
        return []
    try:
        state, _ = grok_folder_trust(read_trust(home), root)
    except ValueError as exc:
        return [(True, f"Grok Build's folder trust: {exc}", "fix or remove the file")]
    if state == "trusted":
        return []
    why = (
        f"{root} is marked untrusted in {grok_trust_file(home)}"
        if state == "distrusted"
        else f"{root} is not trusted in {grok_trust_file(home)}"
    )
    return [
        (
            True,
            f"Grok Build skips the project's hooks (.grok/hooks/cuecard.json) silently: {why}",
            "`cuecard install grok` records the trust; or " + grok_trust_step(root, home),
        )
    ]


# What a trust grant lets run, as Grok Build 0.2.111 documents it: project hooks (its own folder
# and the Claude Code and Cursor files it reads for compatibility), MCP servers (its config and
# the Cursor and standard files) and LSP servers. Each file with the key holding its entries.
_HOOK_FILES = (".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json")
_MCP_FILES = ((".grok/config.toml", "mcp_servers"), (".cursor/mcp.json", "mcpServers"),
              (".mcp.json", "mcpServers"))  # fmt: skip
_LSP_FILE = ".grok/lsp.json"
_MAX_CONFIG = 1024 * 1024
_OWN_HOOKS = "cuecard.json"  # .grok/hooks/cuecard.json: what `cuecard install grok` writes


def _config(path: Path) -> Any:
    """A JSON or TOML file's value; ``None`` when it is not a readable regular file of that
    format (then it is listed as it is: Grok may still read it)."""
    from cuecard.core.engine import open_regular

    fd = open_regular(str(path), follow_links=True)
    if fd is None:
        return None
    try:
        with open(fd, "rb", closefd=True) as handle:
            data = handle.read(_MAX_CONFIG + 1)
        if len(data) > _MAX_CONFIG:
            return None
        text = data.decode("utf-8")
        if path.suffix == ".toml":
            import tomllib

            return tomllib.loads(text)
        return json.loads(text)
    except (OSError, ValueError, RecursionError):
        return None


def _foreign_hooks(value: Any) -> bool | None:
    """Whether a Claude Code-shaped hook file holds a hook that is not cuecard's; ``None`` when
    it holds no hooks at all."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    if not isinstance(hooks, dict) or not hooks:
        return None
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else [groups]:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else [group]:
                command = handler.get("command") if isinstance(handler, dict) else None
                if not (isinstance(command, str) and "cuecard-hook" in command):
                    return True
    return False


_OWN_SERVER = re.compile(
    r"sh -c command -v cuecard >/dev/null 2>&1 \|\| exit 0; "
    r"exec cuecard mcp --agent [a-z][a-z0-9-]*"
)


def _foreign_servers(servers: Any) -> Any:
    """``servers`` (an MCP server table) without cuecard's own server: the one named
    ``cuecard`` whose command is exactly the one ``cuecard install`` commits, with no
    environment of its own (anything else there could run code under cuecard's name)."""
    if not isinstance(servers, dict):
        return servers

    def own(name: str, entry: Any) -> bool:
        if name != "cuecard" or not isinstance(entry, dict) or entry.get("env"):
            return False
        command, args = entry.get("command"), entry.get("args", [])
        words = (command if isinstance(command, list) else [command]) + (
            args if isinstance(args, list) else [None]
        )
        if not all(isinstance(w, str) for w in words):
            return False
        return bool(_OWN_SERVER.fullmatch(" ".join(str(w) for w in words)))

    return {name: entry for name, entry in servers.items() if not own(str(name), entry)}


def _names(value: Any) -> str:
    names = sorted(str(k) for k in value)[:5] if isinstance(value, dict) else []
    shown = ", ".join(n if len(n) <= 40 and n.isprintable() else "…" for n in names)
    more = len(value) - len(names) if isinstance(value, dict) else 0
    return f" ({shown}{f' and {more} more' if more > 0 else ''})" if shown else ""


def grok_folder_grants(root: Path) -> list[str]:
    """Every hook, MCP or LSP file of ``root`` that Grok Build runs once the folder is trusted,
    besides cuecard's own ``.grok/hooks/cuecard.json`` (and hook files whose every hook is
    cuecard's, and cuecard's own MCP server), each as ``"<path>: <what>"``. Empty when
    cuecard's are the only ones."""
    found: list[str] = []
    hooks_dir = root / ".grok" / "hooks"
    try:
        names = sorted(e.name for e in os.scandir(hooks_dir)) if hooks_dir.is_dir() else []
    except OSError:
        names = []
    for name in names:
        if name.endswith(".json") and name != _OWN_HOOKS:
            found.append(f".grok/hooks/{name}: hooks")
    for rel in _HOOK_FILES:
        path = root / rel
        if not os.path.lexists(path):
            continue
        value = _config(path)
        if value is None or _foreign_hooks(value):
            found.append(f"{rel}: hooks")
    for rel, key in _MCP_FILES:
        path = root / rel
        if not os.path.lexists(path):
            continue
        value = _config(path)
        servers = _foreign_servers(value.get(key) if isinstance(value, dict) else None)
        if value is None or servers:
            found.append(f"{rel}: MCP servers{_names(servers)}")
    path = root / _LSP_FILE
    if os.path.lexists(path):
        value = _config(path)
        if value is None or value:
            found.append(f"{_LSP_FILE}: LSP servers{_names(value)}")
    return found
