"""The harness configurations that run ``cuecard-hook``, found by reading the files the
installers write (``cuecard install``), without importing the hooks package. A project's files
are read through the confined layer (``cuecard.core.fs.Tree``): a committed link or FIFO at any
depth of ``.claude/``, ``.codex/``, ``.opencode/`` or ``.grok/`` is named as unreadable, never
followed or opened. The person's own home configuration is read as the person keeps it (a
dotfile manager's links included)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import UnsafePath

__all__ = ["HOOK_FILES", "HOOK_MARK", "hook_text", "installed_hooks"]

HOOK_MARK = "cuecard-hook"

# harness -> (project files, files under the home folder) the installers write.
HOOK_FILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "claude": (
        (".claude/settings.json", ".claude/settings.local.json"),
        (".claude/settings.json",),
    ),
    "codex": ((".codex/hooks.json",), (".codex/hooks.json",)),
    "opencode": ((".opencode/plugins/cuecard.js",), (".config/opencode/plugins/cuecard.js",)),
    "grok": ((".grok/hooks/cuecard.json",), (".grok/hooks/cuecard.json",)),
}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def hook_text(scope: str, base: Path, rel: str) -> str:
    """The text of the harness file ``rel`` of ``base`` (the project root for the ``project``
    scope: read through the confined layer; the home folder for ``user``);
    ``FileNotFoundError`` when there is none, another ``OSError`` when it cannot be read."""
    if scope == "project":
        from cuecard.core.base._confined import Tree

        return Tree(base).read_bytes(rel, 4 * 1024 * 1024).decode("utf-8", errors="replace")
    return (base / rel).read_text(encoding="utf-8", errors="replace")


def installed_hooks(
    root: Path | None, home: Path | None
) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    """Harness files that run ``cuecard-hook``, and ``(file, reason)`` for unreadable ones."""
    found: list[dict[str, str]] = []
    broken: list[tuple[str, str]] = []
    for harness, (project_files, home_files) in HOOK_FILES.items():
        places = [("project", root, f) for f in project_files] if root else []
        places += [("user", home, f) for f in home_files] if home else []
        for scope, base, rel in places:
            assert base is not None
            path = base / rel
            if scope == "user" and not path.is_file():
                continue
            try:
                text = hook_text(scope, base, rel)
            except FileNotFoundError:
                continue
            except UnsafePath as exc:
                broken.append((exc.path, f"{exc.reason}: cuecard reads nothing through it"))
                continue
            except OSError as exc:
                broken.append((str(path), f"cannot be read ({exc.strerror})"))
                continue
            if path.suffix == ".json":
                try:
                    data = json.loads(text)
                except ValueError as exc:
                    broken.append((str(path), f"is not valid JSON ({exc})"))
                    continue
                hooks = data.get("hooks", data) if isinstance(data, dict) else data
                hit = any(HOOK_MARK in s for s in _strings(hooks))
            else:
                hit = HOOK_MARK in text or "__CUECARD_HOOK__" in text
            if hit:
                found.append({"harness": harness, "scope": scope, "file": str(path)})
    return found, broken
