"""The repository's files and trigger globs matched against them, for lifecycle tools.

``repository_files`` lists what git tracks (and what it would track: untracked, not ignored), or
walks the folder when there is no git. ``GlobSet`` matches paths with the compiler's semantics
(gitignore-style, braces expanded), so what health and import call a match is what the hooks fire
on.
"""

from __future__ import annotations

import bisect
import os
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cuecard.core._wildmatch import Wildmatch

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
    """A set of trigger globs, each compiled by the linear matcher (``_wildmatch``).

    ``match(path)`` tells whether any glob covers ``path``; ``matching_sorted`` and ``any_in``
    search a sorted file list and look only at the files under each glob's literal folder
    prefix (``src/billing/**`` reads only ``src/billing...``), scanning everything only for a
    glob with no literal prefix (``**/*.sql``).
    """

    def __init__(self, globs: Iterable[str]) -> None:
        from cuecard.core._compiler import glob_key
        from cuecard.core._globs import expand_braces
        from cuecard.core._wildmatch import wildmatch

        self.globs = list(globs)
        parts: list[Wildmatch] = []
        prefixes: set[str] = set()
        floating = False
        for glob in self.globs:
            try:
                for one in expand_braces(glob):
                    compiled = wildmatch(one)
                    if compiled is None:
                        continue
                    parts.append(compiled)
                    prefix = glob_key(one)[1]
                    floating |= not prefix
                    prefixes.add(prefix)
            except ValueError:
                continue
        self._matchers = parts
        self._prefixes = None if floating else sorted(prefixes)

    def __bool__(self) -> bool:
        return bool(self._matchers)

    def match(self, path: str) -> bool:
        return any(m.match(path) for m in self._matchers)

    def matching(self, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if self.match(p)]

    def _candidates(self, files: Sequence[str]) -> Iterator[str]:
        if self._prefixes is None:
            yield from files
            return
        seen: set[str] = set()
        for prefix in self._prefixes:
            index = bisect.bisect_left(files, prefix)
            while index < len(files) and files[index].startswith(prefix):
                if files[index] not in seen:
                    seen.add(files[index])
                    yield files[index]
                index += 1

    def matching_sorted(self, files: Sequence[str]) -> list[str]:
        """The files of the sorted list ``files`` that a glob covers."""
        return [f for f in self._candidates(files) if self.match(f)] if self._matchers else []

    def any_in(self, files: Sequence[str]) -> bool:
        """Whether a glob covers any file of the sorted list ``files``."""
        return bool(self._matchers) and any(self.match(f) for f in self._candidates(files))
