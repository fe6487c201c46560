"""Glob semantics after compile: gitignore rules plus brace expansion."""

from __future__ import annotations

import re

import pytest

from cuecard.core._compiler import glob_key, glob_regex
from cuecard.core._globs import expand_braces


def matches(glob: str, path: str) -> bool:
    return any(re.match(glob_regex(one), path) for one in expand_braces(glob))


CASES = [
    ("billing/**", "billing/charge.py", True),
    ("billing/**", "billing/a/b/c.py", True),
    ("billing/**", "src/billing/charge.py", False),
    ("billing/*.py", "billing/charge.py", True),
    ("billing/*.py", "billing/sub/charge.py", False),
    ("src/**/*.ts", "src/a/b/c.ts", True),
    ("src/**/*.ts", "src/c.ts", True),
    ("src/**/*.ts", "src/c.tsx", False),
    ("*.py", "deep/down/x.py", True),
    ("*.py", "x.pyc", False),
    ("**/*.sql", "db/migrations/001.sql", True),
    ("*.{ts,tsx}", "ui/app.tsx", True),
    ("*.{ts,tsx}", "ui/app.js", False),
    ("src/{api,web}/**", "src/web/x.js", True),
    ("src/{api,web}/**", "src/cli/x.js", False),
    ("docs/api.md", "docs/api.md", True),
    ("docs/api.md", "docs/api.mdx", False),
    ("docs/", "docs/guide/intro.md", True),
    ("Makefile", "tools/Makefile", True),
    ("a/?.txt", "a/b.txt", True),
    ("a/?.txt", "a/bc.txt", False),
    (".env*", ".env.local", True),
    (".env*", "config/.env", True),
    ("*", ".hidden", True),
    ("config/*.yml", "config/.secret.yml", True),
    ("*.PY", "x.py", False),
    ("Docs/**", "docs/x.md", False),
    ("migrations/**", "migrations", False),
]


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
