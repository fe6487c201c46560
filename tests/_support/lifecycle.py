"""Helpers for the lifecycle tests: sessions recorded as the hooks record them."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from cuecard.core import Store
from cuecard.core.cli import main
from cuecard.core.engine import Event, Footprint, handle

DAY = 24 * 3600


def at_time(t: float) -> Callable[[], float]:
    """A clock stopped at ``t``."""
    return lambda: t


def record_session(
    store: Store,
    name: str,
    *,
    at: float,
    calls: Iterable[tuple[str, str]] = (),
    asks: int = 0,
    corrections: int = 0,
) -> float:
    """Run each ``(kind, path)`` call through the engine and the footprint, as the hooks do.

    Returns the time of the session's last record; every file of the session folder gets it
    as its modification time, so the session looks as old as its records.
    """
    root, local = str(store.root), str(store.local_dir)
    t = at
    for _ in range(corrections):
        t += 1
        Footprint(local, name, clock=at_time(t)).prompt(correction=True, preview="no, not that")
    for kind, path in calls:
        t += 1
        handle(root, Event(kind, paths=(path,), session=name), clock=at_time(t))
        Footprint(local, name, clock=at_time(t + 0.5)).tool(
            "Edit", kind, paths=[path], outcome="ok"
        )
    for n in range(asks):
        t += 1
        Footprint(local, name, clock=at_time(t)).stop(asked=f"key{n}")
    t += 1
    Footprint(local, name, clock=at_time(t)).stop()
    folder = store.local_dir / "sessions" / name
    for current, dirs, files in os.walk(folder):
        for item in dirs + files:
            os.utime(os.path.join(current, item), (t, t))
    return t


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``root`` (``.git`` aside) with its modification time and bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(root).parts:
            out[path.relative_to(root).as_posix()] = (path.stat().st_mtime_ns, path.read_bytes())
    return out


def cli(monkeypatch: pytest.MonkeyPatch, cwd: Path, *args: str) -> int:
    """Run the CLI in-process from ``cwd``."""
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    return main(list(args))
