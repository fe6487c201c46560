"""Glob cases with gitignore's answer: the compiled matcher and the linear matcher agree on
each (``(glob, path, matches)``)."""

from __future__ import annotations

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
