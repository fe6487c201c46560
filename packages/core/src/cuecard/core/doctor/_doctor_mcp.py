"""The doctor's MCP check: where ``cuecard mcp`` is registered (the files ``cuecard install``
writes), and whether the server a harness would start answers ``tools/list``.

The server is started as the harness would start it (``cuecard`` from the PATH for a project's
portable entry, the recorded path for a user's) and spoken to in plain JSON-RPC lines:
``initialize``, ``notifications/initialized``, ``tools/list``. Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from cuecard.core.lifecycle._findings import Findings

__all__ = ["TOOL_NAMES", "mcp_setup", "registrations", "tools_list"]

TOOL_NAMES = ("memory_search", "memory_show", "memory_status", "memory_submit")
SERVER = "cuecard"
ANSWER_SECONDS = 60.0
"""How long the server may take to answer (a liveness bound: a cold start imports the SDK)."""


def _files(root: Path | None, home: Path, env: dict[str, str]) -> list[tuple[str, str, Path]]:
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    found = [
        ("claude", "user", home / ".claude.json"),
        ("codex", "user", codex_home / "config.toml"),
        ("opencode", "user", home / ".config" / "opencode" / "opencode.json"),
        ("grok", "user", home / ".grok" / "config.toml"),
    ]
    if root is not None:
        found[:0] = [
            ("claude", "project", root / ".mcp.json"),
            ("codex", "project", root / ".codex" / "config.toml"),
            ("opencode", "project", root / "opencode.json"),
            ("grok", "project", root / ".grok" / "config.toml"),
        ]
    return found


def _entry(harness: str, path: Path, scope: str, root: Path | None) -> dict[str, Any] | None:
    """cuecard's entry in a harness's MCP configuration; a project's file is read through the
    confined layer (a link or FIFO at any depth is no entry), the home's as the person keeps it."""
    from cuecard.core.doctor._installed_hooks import hook_text

    try:
        if scope == "project" and root is not None:
            text = hook_text(scope, root, path.relative_to(root).as_posix())
        else:
            text = hook_text(scope, path.parent, path.name)
        if path.suffix == ".toml":
            import tomllib

            value: Any = tomllib.loads(text).get("mcp_servers")
        else:
            loaded = json.loads(text)
            key = "mcpServers" if harness == "claude" else "mcp"
            value = loaded.get(key) if isinstance(loaded, dict) else None
    except (OSError, ValueError):
        return None
    entry = value.get(SERVER) if isinstance(value, dict) else None
    return entry if isinstance(entry, dict) else None


def _command(harness: str, entry: dict[str, Any]) -> list[str]:
    command = entry.get("command")
    if isinstance(command, list):
        return [str(c) for c in command]
    args = entry.get("args")
    return [str(command), *(str(a) for a in args)] if isinstance(args, list) else [str(command)]


def registrations(
    root: Path | None, home: Path, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """``[{harness, scope, file, command}]``: every registration of cuecard's MCP server."""
    env = dict(os.environ if env is None else env)
    out = []
    for harness, scope, path in _files(root, home, env):
        if path.is_file():
            entry = _entry(harness, path, scope, root)
            if entry is not None:
                out.append(
                    {
                        "harness": harness,
                        "scope": scope,
                        "file": str(path),
                        "command": _command(harness, entry),
                    }
                )
    return out


def _program(command: list[str]) -> tuple[list[str] | None, str]:
    """The server's command line on this machine, or None and why it cannot start."""
    if command[:2] == ["sh", "-c"]:  # the portable entry: `cuecard` from the PATH
        found = shutil.which("cuecard")
        if found is None:
            return None, "cuecard is not on the PATH"
        return [found, "mcp"], found
    program = command[0] if command else ""
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        found = shutil.which(program) if program else None
        if found is None:
            return None, f"{program or '(empty)'} is not an executable file or on the PATH"
        program = found
    return [program, *command[1:]], program


def tools_list(argv: list[str], cwd: Path) -> tuple[list[str] | None, str]:
    """Start the server, ask ``tools/list``; (the tool names, "") or (None, why not)."""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
    except OSError as exc:
        return None, f"it does not start ({exc})"
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    try:
        return _talk(proc, lines)
    except BrokenPipeError:
        return None, _why(proc, "it ended and did not answer initialize")
    except (OSError, ValueError) as exc:
        return None, _why(proc, f"the conversation failed ({exc})")
    finally:
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _answer(lines: queue.Queue[str], ident: int) -> dict[str, Any] | None:
    """The server's answer to request ``ident``; None when it ends or stays silent."""
    while True:
        try:
            line = lines.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            return None
        if not line:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == ident:
            return message


def _talk(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> tuple[list[str] | None, str]:
    def send(message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "cuecard-doctor", "version": "1"},
    }
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    if _answer(lines, 1) is None:
        return None, _why(proc, "it did not answer initialize")
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    listed = _answer(lines, 2)
    result = listed.get("result") if listed is not None else None
    if not isinstance(result, dict):
        return None, _why(proc, "it did not answer tools/list")
    tools = result.get("tools")
    found = tools if isinstance(tools, list) else []
    return sorted(str(t.get("name")) for t in found if isinstance(t, dict)), ""


def _why(proc: subprocess.Popen[str], said: str) -> str:
    if proc.poll() is None:
        proc.kill()
    try:
        _, err = proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        err = ""
    last = [line for line in (err or "").splitlines() if line.strip()][-1:]
    return f"{said}: {last[0][:300]}" if last else said


def mcp_setup(root: Path | None, home: Path, out: Findings) -> dict[str, Any] | None:
    """The MCP registrations and whether their server answers; ``None`` when there is none."""
    found = registrations(root, home)
    if not found:
        return None
    checked: dict[tuple[str, ...], tuple[list[str] | None, str]] = {}
    for item in found:
        argv, why = _program(item["command"])
        if argv is None:
            out.problem(
                "mcp",
                f"{item['harness']} ({item['file']}) cannot start cuecard's MCP server: {why}",
                "install cuecard as a tool (see the README), or `cuecard uninstall "
                f"{item['harness']}` and install again",
            )
            item["answers"] = False
            continue
        key = tuple(argv)
        if key not in checked:
            checked[key] = tools_list(argv, root or home)
        names, why = checked[key]
        item["answers"] = names is not None and sorted(TOOL_NAMES) == names
        item["tools"] = names or []
        if names is None:
            out.problem(
                "mcp",
                f"cuecard's MCP server for {item['harness']} does not work: {why}",
                "run `cuecard mcp` to see why; it needs cuecard-core's `mcp` extra "
                "(pip install 'cuecard-core[mcp]')",
            )
        elif not item["answers"]:
            out.problem(
                "mcp",
                f"cuecard's MCP server for {item['harness']} lists "
                f"{', '.join(names) or 'no tools'}",
                "install the same cuecard version everywhere",
            )
    return {"registrations": found}
