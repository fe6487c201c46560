"""The ``cuecard`` console script run as a user runs it, and the in-process runner's type."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

BIN = Path(sys.executable).parent

Run = Callable[..., tuple[int, str, str]]
"""``cc(*args, stdin="")``: the CLI in this process, giving (exit code, stdout, stderr)."""


def run_cli(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``cuecard`` console script as a user would."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("CUECARD_PROJECT_DIR", None)
    return subprocess.run(
        [str(BIN / "cuecard"), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )
