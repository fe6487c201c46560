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


def git_check_ignore(
    globs: list[str], paths: list[str], *, folders: bool = False
) -> dict[tuple[str, str], bool]:
    """What ``git check-ignore --no-index`` says of each (glob, path) pair, in one process.

    Glob ``k`` is the only line of ``dk/.gitignore``, which git applies to the paths under
    ``dk/`` only, so every pair is asked at once (``--stdin -z``) with no line shadowing
    another. The paths name files that do not exist, as an event's paths may (each folder
    above them is a folder), or, with ``folders``, folders made on disk. Neither the user's
    nor the system's excludes are read.
    """
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        for k, glob in enumerate(globs):
            os.mkdir(os.path.join(tmp, f"d{k}"))
            with open(os.path.join(tmp, f"d{k}", ".gitignore"), "w", encoding="utf-8") as out:
                out.write(glob + "\n")
            for path in paths if folders else ():
                os.makedirs(os.path.join(tmp, f"d{k}", path), exist_ok=True)
        asked = "".join(f"d{k}/{path}\0" for k in range(len(globs)) for path in paths)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp,
            "XDG_CONFIG_HOME": tmp,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        result = subprocess.run(
            ["git", "-c", "core.excludesFile=", "-c", "core.ignoreCase=false", "check-ignore",
             "--no-index", "--stdin", "-z", "-v", "-n"],
            cwd=tmp, input=asked.encode("utf-8", "surrogateescape"), capture_output=True,
            env=env, check=False, timeout=120,
        )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    fields = result.stdout.decode("utf-8", "surrogateescape").split("\0")
    said: dict[str, bool] = {}
    for i in range(0, len(fields) - 1, 4):
        source, _line, pattern, path = fields[i : i + 4]
        said[path] = bool(source) and not pattern.startswith("!")
    return {(glob, path): said[f"d{k}/{path}"] for k, glob in enumerate(globs) for path in paths}
