"""cuecard's hooks in a harness's JSON configuration: which events, the command each runs, and
merging them into (or out of) a configuration that holds other hooks too.

Merging keeps every hook that is not cuecard's and replaces cuecard's own (a command that runs
``cuecard-hook``), so merging twice changes nothing.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from cuecard.core.harnesses import portable_command

__all__ = [
    "EVENTS",
    "MARK",
    "default_hook_path",
    "hook_command",
    "merge_hooks",
    "quote_path",
    "unmerge_hooks",
]

MARK = "cuecard-hook"
# Event -> (matcher or None, timeout in seconds), per harness. No matcher means every tool (and
# every SessionStart source): "*" is not a valid regular expression, and Codex and Claude Code's
# plugin loader read matchers as regular expressions (a "*" group is dropped without a word).
EVENTS: dict[str, dict[str, tuple[str | None, int]]] = {
    "claude": {
        "SessionStart": (None, 15),
        "UserPromptSubmit": (None, 10),
        "PreToolUse": (None, 10),
        "PostToolUse": (None, 30),
        "PostToolUseFailure": (None, 10),
        "Stop": (None, 15),
    },
    "codex": {
        "SessionStart": (None, 15),
        "UserPromptSubmit": (None, 10),
        "PreToolUse": (None, 10),
        "PostToolUse": (None, 30),
        "Stop": (None, 15),
        "PostCompact": (None, 10),  # Codex reports a compaction here, not at SessionStart
    },
    "grok": {
        "SessionStart": (None, 15),
        "UserPromptSubmit": (None, 10),
        "PreToolUse": (None, 10),
        "PostToolUse": (None, 30),
        "PostToolUseFailure": (None, 10),
        "Stop": (None, 15),
        "PostCompact": (None, 10),  # a compaction starts a new epoch (not seen headless)
    },
}


# -- commands -----------------------------------------------------------------------------------


def quote_path(path: str) -> str:
    """``path`` quoted for the harness's shell: POSIX single quotes, or double quotes for a
    Windows-style path (a drive letter or backslashes), which cmd and PowerShell read too."""
    windows = "\\" in path or (len(path) > 1 and path[1] == ":" and path[0].isalpha())
    if windows:
        return '"' + path.replace('"', "") + '"'
    return shlex.quote(path)


def default_hook_path() -> str:
    """The installed ``cuecard-hook`` beside this Python, else the one on PATH."""
    here = Path(sys.executable).parent
    for name in ("cuecard-hook", "cuecard-hook.exe"):
        if (here / name).is_file():
            return str(here / name)
    found = shutil.which("cuecard-hook")
    return found or "cuecard-hook"


def hook_command(hook_path: str | None, harness: str, event: str) -> str:
    """The command a harness runs: ``hook_path`` quoted, or the portable command (``None``)."""
    if hook_path is None:
        return portable_command(harness, event)
    return f"{quote_path(hook_path)} {harness} {event}"


# -- JSON hook configurations -------------------------------------------------------------------


def _ours(entry: Any) -> bool:
    return isinstance(entry, dict) and MARK in str(entry.get("command", ""))


def unmerge_hooks(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` without cuecard's hooks (other hooks and keys kept, in order)."""
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        return config
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept[event] = groups
            continue
        new_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                left = [h for h in group["hooks"] if not _ours(h)]
                if left:
                    new_groups.append({**group, "hooks": left})
                elif not any(_ours(h) for h in group["hooks"]):
                    new_groups.append(group)
            else:
                new_groups.append(group)
        if new_groups:
            kept[event] = new_groups
    out = dict(config)
    if kept:
        out["hooks"] = kept
    else:
        out.pop("hooks", None)
    return out


def merge_hooks(config: dict[str, Any], harness: str, hook_path: str | None) -> dict[str, Any]:
    """``config`` with cuecard's hooks for ``harness`` in place of any earlier ones."""
    out = unmerge_hooks(config)
    hooks = dict(out.get("hooks") or {})
    for event, (matcher, timeout) in EVENTS[harness].items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [
            {
                "type": "command",
                "command": hook_command(hook_path, harness, event),
                "timeout": timeout,
            }
        ]
        existing = hooks.get(event)
        hooks[event] = [*(existing if isinstance(existing, list) else []), group]
    out["hooks"] = hooks
    return out
