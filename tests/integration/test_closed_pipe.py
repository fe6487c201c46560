"""A reader that closes the pipe early (``cuecard ... | head``) ends the command quietly.

The commands write into a real pipe whose read end is already closed, so every write fails with
EPIPE, as it does once ``head`` has read its lines and exited; and through a real shell pipeline
into ``head -n 1``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
CLOSED_PIPE = 141


def run_into_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write
    try:
        return subprocess.run(
            [str(BIN / "cuecard"), *args],
            cwd=cwd,
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ("list", "--json"),  # a built-in command's JSON
        ("schema", "memory"),
        ("recall", "billing", "retries"),  # the per-call fast path
        ("demo",),  # satellites' commands, through the entry-point group
        ("dsh", "call", "status"),
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(args: tuple[str, ...], project: Path) -> None:
    result = run_into_closed_pipe(*args, cwd=project)
    assert result.stderr == ""
    assert result.returncode == CLOSED_PIPE


def test_a_command_whose_reader_stays_prints_as_before(project: Path) -> None:
    result = subprocess.run(
        [str(BIN / "cuecard"), "schema", "memory"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("{")


def test_piped_into_head_in_a_shell(project: Path) -> None:
    # head -n 0 exits at once, before cuecard (a fresh interpreter) writes a line: the writes
    # then fail as they do once any head has read its fill.
    cuecard = BIN / "cuecard"
    script = f'"{cuecard}" schema memory | head -n 0; "{cuecard}" demo | head -n 0'
    result = subprocess.run(
        ["bash", "-c", script], cwd=project, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0
    assert result.stderr == ""
