"""Helpers of the DSH adapter tests: run the adapter as the plugins do, and the vault CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import run_cli


@dataclass(frozen=True)
class Home:
    root: Path
    config: Path
    cache: Path
    vault: Path


def dsh(
    *args: str, stdin: str | bytes = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m cuecard.dsh_adapter ARGS`` as the plugins do (no shell)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run(
        [sys.executable, "-m", "cuecard.dsh_adapter", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def call(
    tool: str, request: object, *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """One tool call; returns the exit status and the parsed JSON response."""
    stdin = request if isinstance(request, str | bytes) else json.dumps(request)
    done = dsh("call", tool, stdin=stdin, cwd=cwd, env=env)
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, (done.stdout, done.stderr)  # exactly one JSON line
    return done.returncode, json.loads(lines[0])


def vault_cli(*args: str, stdin: str | None = None) -> str:
    """Run the real ``cuecard`` CLI (its public interface) and return stdout."""
    done = run_cli(*args, cwd=Path.cwd(), stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def serve(lines: list[bytes], cwd: Path | None = None) -> list[dict[str, object]]:
    """Feed ``lines`` to ``python -I -m cuecard.dsh_adapter serve``; its answers, parsed."""
    done = subprocess.run(
        [sys.executable, "-I", "-m", "cuecard.dsh_adapter", "serve"],
        input=b"".join(lines),
        capture_output=True,
        cwd=cwd,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def line(value: object) -> bytes:
    """One request line of the worker's protocol."""
    return json.dumps(value).encode() + b"\n"


FACTS = [
    "The staging server listens on port 8443",
    "We deploy with make release from the main branch",
    "用户偏好简体中文回复",
    "The parser lives in snake_case module token_stream.py",
]


def isolate(root: Path, mp: pytest.MonkeyPatch) -> Home:
    """An isolated cuecard user under ``root`` (config, cache, HOME), ``CUECARD_VAULT`` set."""
    h = Home(root, root / "config", root / "cache", root / "vault")
    mp.setenv("XDG_CONFIG_HOME", str(h.config))
    mp.setenv("XDG_CACHE_HOME", str(h.cache))
    mp.setenv("CUECARD_VAULT", str(h.vault))
    mp.setenv("HOME", str(root / "userhome"))
    (root / "userhome").mkdir(exist_ok=True)
    return h


def seed_vault() -> None:
    """Make the vault ``CUECARD_VAULT`` names and promote ``FACTS`` into it."""
    vault_cli("vault", "init")
    vault_cli("vault", "submit", "--agent", "seed", stdin="\n".join(FACTS) + "\n")
    vault_cli("vault", "apply", "--auto")
