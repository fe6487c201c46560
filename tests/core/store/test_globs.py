"""Glob semantics after compile: gitignore rules plus brace expansion."""

from __future__ import annotations

import re

import pytest

from cuecard.core.store._compiler import glob_key, glob_regex
from cuecard.core.store._globs import expand_braces
from tests._support.globs import CASES


def matches(glob: str, path: str) -> bool:
    return any(re.match(glob_regex(one), path) for one in expand_braces(glob))


@pytest.mark.parametrize(("glob", "path", "expected"), CASES, ids=[f"{g}~{p}" for g, p, _ in CASES])
def test_glob_semantics(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path) is expected


@pytest.mark.parametrize(
    ("glob", "key"),
    [
        ("billing/**", "p:billing"),
        ("src/billing/*.py", "p:src/billing"),
        ("docs/api.md", "p:docs/api.md"),
        ("**/*.sql", "x:sql"),
        ("*.py", "x:py"),
        ("Makefile", "n:Makefile"),
        ("docs/", "n:docs"),
        ("**/test_*", "*"),
        ("*/x/*", "*"),
    ],
)
def test_bucket_keys(glob: str, key: str) -> None:
    assert glob_key(glob)[0] == key
