"""Benchmark: `cuecard compile` of 10,000 realistic memories (targets: 1.5 s for a cold process
from scratch, 0.3 s after one memory changed).

Measures a compile from scratch (no per-file cache; median of runs, in one process, so the
per-glob memo is warm after the first), a cold `cuecard compile` process from scratch, an
incremental compile after one memory file changed, and a compile after every file was touched
(new modification times, same bytes, as a checkout leaves them). The cold process's CPU time
(user + system, its worker processes included) is steadier than its wall time on a loaded
machine; on two free cores its wall time is about half of it plus the serial parts.
Usage: python tools/bench/compile.py [--memories N] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import build_project


def _children_cpu() -> float:
    """CPU time (user + system) of the finished child processes and of theirs (the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from cuecard.core import Store
    from cuecard.core.store._compiler import compile_index

    with tempfile.TemporaryDirectory() as tmp:
        root = build_project(Path(tmp) / "repo", args.memories)
        store = Store.open(root)
        times = []
        for _ in range(args.runs):
            report = compile_index(store, cached=False)
            times.append(report.seconds)
        cold: list[float] = []
        cold_cpu: list[float] = []
        cuecard = Path(sys.executable).parent / "cuecard"
        # cache.json: the per-file cache of earlier versions (so this script can time those too)
        caches = [store.local_dir / "index" / name for name in ("cache.dat", "cache.json")]
        # Bytecode cached as an installed wheel has it (a checkout may run with
        # PYTHONDONTWRITEBYTECODE, which would recompile every module in every cold process).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        # One untimed compile first writes the bytecode of every module a compile imports
        # (`--help` alone would leave pydantic's and the compiler's to the first timed run).
        subprocess.run(
            [str(cuecard), "compile"], cwd=root, env=env, check=True, capture_output=True
        )
        for _ in range(max(3, args.runs // 2)):
            for cache in caches:
                cache.unlink(missing_ok=True)
            cpu = _children_cpu()
            started = time.perf_counter()
            subprocess.run(
                [str(cuecard), "compile"], cwd=root, env=env, check=True, capture_output=True
            )
            cold.append(time.perf_counter() - started)
            cold_cpu.append(_children_cpu() - cpu)
        incremental = []
        one = next(store.memories_dir.glob("*.json"))
        original = one.read_text()
        assert '"source": "bench"' in original
        for run in range(args.runs):  # new bytes each time (a rewrite of the same is a touch)
            one.write_text(original.replace('"source": "bench"', f'"source": "bench-{run}"'))
            report_one = compile_index(store)
            incremental.append(report_one.seconds)
        touched = []
        for run in range(max(1, args.runs // 2)):
            for path in store.memories_dir.glob("*.json"):
                os.utime(path, ns=(2_000_000_000 + run, 2_000_000_000 + run))
            report_all = compile_index(store)
            touched.append(report_all.seconds)
    figures = {
        "memories": args.memories,
        "clauses": report.clauses,
        "buckets": report.buckets,
        "compile_s": round(statistics.median(times), 3),
        "cold_process_s": round(statistics.median(cold), 3),
        "cold_process_cpu_s": round(statistics.median(cold_cpu), 3),
        "incremental_s": round(statistics.median(incremental), 3),
        "incremental_validated": getattr(report_one, "validated", None),
        "touched_s": round(statistics.median(touched), 3),
        "touched_validated": getattr(report_all, "validated", None),
        "target_cold_s": 1.5,
        "target_incremental_s": 0.3,
        "within_target": statistics.median(cold) <= 1.5 and statistics.median(incremental) <= 0.3,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
