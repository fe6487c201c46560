"""The repository's files and trigger globs matched against them, for lifecycle tools.

``repository_files`` lists what git tracks (and what it would track: untracked, not ignored), or
walks the folder when there is no git. ``GlobSet`` matches paths with the compiler's semantics
(gitignore-style, braces expanded), so what health and import call a match is what the hooks fire
on.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

__all__ = ["MAX_FILES", "GlobSet", "repository_files"]

MAX_FILES = 200_000


def repository_files(root: Path) -> list[str]:
    """Repository-relative paths (``/`` separators) of the files of the project at ``root``."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            timeout=30,
            check=True,
        ).stdout.decode("utf-8", "replace")
        return sorted({p for p in out.split("\0") if p})[:MAX_FILES]
    except (OSError, subprocess.SubprocessError):
        found: list[str] = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel = os.path.relpath(folder, root)
            found += [f if rel == "." else f"{rel}/{f}" for f in files]
            if len(found) > MAX_FILES:
                break
        return sorted(p.replace(os.sep, "/") for p in found)[:MAX_FILES]


class GlobSet:
    """A set of trigger globs compiled once; ``match(path)`` tells whether any covers ``path``."""

    def __init__(self, globs: Iterable[str]) -> None:
        from cuecard.core._compiler import glob_regex
        from cuecard.core._globs import expand_braces

        self.globs = list(globs)
        patterns: list[re.Pattern[str]] = []
        for glob in self.globs:
            try:
                patterns += [re.compile(glob_regex(one)) for one in expand_braces(glob)]
            except (ValueError, re.error):
                continue
        self._patterns = patterns

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def match(self, path: str) -> bool:
        return any(p.match(path) for p in self._patterns)

    def matching(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if self.match(p)]
