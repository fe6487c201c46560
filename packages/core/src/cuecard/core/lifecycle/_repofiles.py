"""The repository's files and trigger globs matched against them, for lifecycle tools.

``repository_files`` lists what git tracks (and what it would track: untracked, not ignored), or
walks the folder when there is no git. ``GlobSet`` matches paths with the compiler's semantics
(gitignore-style, braces expanded), so what health and import call a match is what the hooks fire
on.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
import subprocess
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cuecard.core.engine._wildmatch import Wildmatch

__all__ = ["MAX_FILES", "GlobSet", "repository_files"]

MAX_FILES = 200_000


def _ignore_files_plain(root: Path) -> bool:
    """Whether the ignore files git reads at the root and in the store are missing or regular
    files: git blocks on a FIFO there, so the walk below is used instead."""
    from cuecard.core.base._confined import Tree

    tree = Tree(root)
    for rel in (".gitignore", ".cuecard/.gitignore"):
        try:
            st = tree.lstat(rel)
        except OSError:
            return False
        if st is not None and not stat.S_ISREG(st.st_mode):
            return False
    return True


def repository_files(root: Path) -> list[str]:
    """Repository-relative paths (``/`` separators) of the files of the project at ``root``."""
    try:
        if not _ignore_files_plain(root):
            raise OSError("git would read a special file as an ignore file")
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
    """A set of trigger globs, matched in linear time: the globs whose regular expression cannot
    backtrack (``_wildmatch.backtracks_linearly``: nearly all) as one expression, at C speed for
    the long file lists of health and import, and the others by ``_wildmatch``.

    ``match(path)`` tells whether any glob covers ``path``; ``matching_sorted`` and ``any_in``
    search a sorted file list and look only at the files under each glob's literal folder
    prefix (``src/billing/**`` reads only ``src/billing...``), scanning everything only for a
    glob with no literal prefix (``**/*.sql``).
    """

    def __init__(self, globs: Iterable[str]) -> None:
        from cuecard.core.engine._wildmatch import wildmatch
        from cuecard.core.store._compiler import glob_key
        from cuecard.core.store._globs import expand_braces

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
        self._union, self._others = _regex_union(parts)

    def __bool__(self) -> bool:
        return bool(self._matchers)

    def match(self, path: str) -> bool:
        if self._union is not None and self._union.match(path) is not None:
            return True
        return any(m.match(path) for m in self._others)

    def _test(self) -> Callable[[str], object]:
        """The fastest test this set allows: the expression's own ``match`` when it holds every
        glob (a per-file Python call less over long file lists)."""
        return self._union.match if self._union is not None and not self._others else self.match

    def matching(self, paths: Iterable[str]) -> list[str]:
        test = self._test()
        return [p for p in paths if test(p)]

    def _candidates(self, files: Sequence[str]) -> Iterator[str]:
        """The files under the globs' literal prefixes (all of them for a floating glob)."""
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
        if not self._matchers:
            return []
        test = self._test()
        return [f for f in self._candidates(files) if test(f)]

    def any_in(self, files: Sequence[str]) -> bool:
        """Whether a glob covers any file of the sorted list ``files``."""
        if not self._matchers:
            return False
        test = self._test()
        return any(test(f) for f in self._candidates(files))


def _regex_union(matchers: list[Wildmatch]) -> tuple[re.Pattern[str] | None, list[Wildmatch]]:
    """One expression (Python's engine, C speed) for the globs it runs in linear time, and the
    rest, which ``Wildmatch`` matches."""
    from cuecard.core.engine._wildmatch import backtracks_linearly

    patterns: list[str] = []
    others: list[Wildmatch] = []
    for matcher in matchers:
        regex = matcher.regex
        if regex is not None and backtracks_linearly(matcher.glob):
            patterns.append(regex)
        elif regex is not None:
            others.append(matcher)
    if not patterns:
        return None, others
    with warnings.catch_warnings():  # re warns of "[[" inside a class
        warnings.simplefilter("ignore")
        try:
            return re.compile("|".join(f"(?:{p})" for p in patterns), re.DOTALL), others
        except re.error:
            return None, matchers
