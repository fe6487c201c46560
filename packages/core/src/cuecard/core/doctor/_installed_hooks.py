"""The harness configurations that run ``cuecard-hook``, found by reading the files the
installers write (``cuecard install``), without importing the hooks package."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["HOOK_FILES", "HOOK_MARK", "installed_hooks"]

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
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
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
