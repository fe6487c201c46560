"""Benchmark: `health_report` and `maintain` on a project with a long session history.

Builds a git repository with N active memories (the shared corpus, made model-initiated so that
retirement must judge each), F repository files, S recorded sessions of T tool calls each with a
ledger line for a share of them, then times `health_report` (the review UI calls it per page
load), a first `maintain` (rolls every session up, prunes the old half, retires) and a second
`maintain` (nothing new to roll up); each figure is the median of ``--runs`` projects built
afresh (``figures``: median, spread and runs; with the load, machine and condition). Prints one
JSON object with --json.
Usage: python tools/bench/lifecycle.py [--memories N] [--files F] [--sessions S] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import AREAS, EXTS, SUBS, build_project
from _figures import condition, figure, load, machine

DAY = 24 * 3600


def _files(root: Path, count: int, rng: random.Random) -> list[str]:
    files: set[str] = set()
    while len(files) < count:
        area, sub, ext = rng.choice(AREAS), rng.choice(SUBS), rng.choice(EXTS)
        files.add(f"src/{area}/{sub}{rng.randrange(40)}/f{rng.randrange(50)}.{ext}")
    for rel in files:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return sorted(files)


def _fixed(t: float) -> Callable[[], float]:
    """A clock that always reads ``t``."""
    return lambda: t


def _sessions(root: Path, files: list[str], count: int, calls: int, rng: random.Random) -> None:
    from cuecard.core.engine._footprint import Footprint
    from cuecard.core.engine._ledger import Ledger

    local = str(root / ".cuecard" / "local")
    ids = [p.stem for p in (root / ".cuecard" / "memories").glob("*.json")]
    now = time.time()
    for n in range(count):
        start = now - (count - n) * 3600 * 12  # one every 12 hours: half are older than 7 days
        name = f"session-{n}"
        for i in range(calls):
            t = start + i
            path = rng.choice(files)
            Footprint(local, name, clock=_fixed(t)).tool(
                "Edit", rng.choice(["read", "edit"]), paths=[path], outcome="ok"
            )
            if rng.random() < 0.2:
                Ledger(local, name, clock=_fixed(t)).append(
                    {
                        "event": "edit",
                        "epoch": 0,
                        "delivered": 1,
                        "deferred": 0,
                        "size": 400,
                        "ids": [[rng.choice(ids), "paths"]],
                    }
                )
        folder = Path(local) / "sessions" / name
        end = start + calls
        for item in folder.iterdir():
            os.utime(item, (end, end))
        os.utime(folder, (end, end))


TIMES = (
    "health_seconds_live_files",
    "health_cpu_seconds_live_files",
    "health_seconds_after_rollup",
    "health_cpu_seconds_after_rollup",
    "maintain_first_seconds",
    "maintain_first_cpu_seconds",
    "maintain_second_seconds",
    "maintain_second_cpu_seconds",
)


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    """One project built afresh and timed: each figure of ``TIMES``, and what the run found."""
    from cuecard.core import Store
    from cuecard.core.lifecycle._health import health_report
    from cuecard.core.lifecycle._maintain import maintain

    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        root = build_project(Path(tmp) / "repo", args.memories)
        for path in (root / ".cuecard" / "memories").glob("*.json"):
            record = json.loads(path.read_text())
            record["origin"] = "model_initiated"
            record["created_at"] = "2020-01-01T00:00:00+00:00"
            path.write_text(json.dumps(record))
        files = _files(root, args.files, rng)
        _sessions(root, files, args.sessions, args.calls, rng)
        store = Store.open(root)
        started, cpu = time.perf_counter(), time.process_time()
        report = health_report(store)
        health_live = time.perf_counter() - started
        health_live_cpu = time.process_time() - cpu
        cpu = time.process_time()
        first = maintain(store)
        first_cpu = time.process_time() - cpu
        cpu = time.process_time()
        second = maintain(store)
        second_cpu = time.process_time() - cpu
        started, cpu = time.perf_counter(), time.process_time()
        health_report(store)
        health_rolled = time.perf_counter() - started
        health_rolled_cpu = time.process_time() - cpu
        return {
            "files": len(files),
            "health_seconds_live_files": health_live,
            "health_cpu_seconds_live_files": health_live_cpu,
            "health_seconds_after_rollup": health_rolled,
            "health_cpu_seconds_after_rollup": health_rolled_cpu,
            "maintain_first_seconds": first.seconds,
            "maintain_first_cpu_seconds": first_cpu,
            "maintain_second_seconds": second.seconds,
            "maintain_second_cpu_seconds": second_cpu,
            "sessions_pruned": first.sessions_pruned,
            "retired": len(first.retired),
            "dead_triggers": len(report["dead_triggers"]),
            "hubs": len(report["hubs"]),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="projects built and timed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started_load = load()
    runs = [one_run(args) for _ in range(args.runs)]
    last = runs[-1]
    result = {
        "memories": args.memories,
        "files": last["files"],
        "sessions": args.sessions,
        "calls_per_session": args.calls,
        **{key: round(statistics.median(run[key] for run in runs), 3) for key in TIMES},
        "sessions_pruned": last["sessions_pruned"],
        "retired": last["retired"],
        "dead_triggers": last["dead_triggers"],
        "hubs": last["hubs"],
        "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 1),
        "runs": args.runs,
        "figures": {key: figure([run[key] for run in runs]) for key in TIMES},
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
