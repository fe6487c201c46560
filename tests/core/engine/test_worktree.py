"""The folders a turn's git question is limited to: a superset of what the checks' globs match."""

from __future__ import annotations

import pytest

from cuecard.core.engine._wildmatch import glob_matches
from cuecard.core.engine._worktree import folders_of


@pytest.mark.parametrize(
    ("globs", "folders"),
    [
        (["app/**"], ["app"]),
        (["/app/**", "src/billing/*.py"], ["app", "src/billing"]),
        (["src/b?lling/x.py"], ["src"]),
        (["a/b/c/"], ["a/b"]),
        (["*.py"], None),
        (["docs/"], None),
        (["**/migrations/*.sql"], None),
        (["pkg*/**"], None),
        (["app/**", "*.sql"], None),
        ([], None),
    ],
)
def test_folders_of(globs: list[str], folders: list[str] | None) -> None:
    assert folders_of(globs) == folders


@pytest.mark.parametrize("glob", ["app/**", "src/billing/*.py", "a/b/c/", "/x/y/*"])
@pytest.mark.parametrize("path", ["app/x.py", "src/billing/a.py", "a/b/c/d", "x/y/z", "q/r"])
def test_every_path_a_glob_matches_lies_in_its_folders(glob: str, path: str) -> None:
    (folder,) = folders_of([glob]) or [""]
    if glob_matches(glob, path):
        assert path.startswith(folder + "/")
