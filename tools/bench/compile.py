"""Benchmark: `cuecard compile` of 10,000 realistic memories (targets: 1.5 s for a cold process
from scratch, 0.3 s after one memory changed).

Measures a compile from scratch (no per-file cache; median of runs, in one process, so the
per-glob memo is warm after the first), a cold `cuecard compile` process from scratch, an
incremental compile after one memory file changed, and a compile after every file was touched
(new modification times, same bytes, as a checkout leaves them). The cold process's CPU time
(user + system, its worker processes included) is steadier than its wall time on a loaded
machine; on two free cores its wall time is about half of it plus the serial parts.

By default the figures are those of the `cuecard` this interpreter imports. ``--venv DIR`` times
the revision installed in DIR instead (a virtual environment made by ``scripts/wheel-venv``:
from the built wheels, as a user installs it), and ``--baseline-venv DIR`` times another one in
the same run: the two revisions' series alternate over ``--rounds`` rounds on the same store,
each in its own interpreter with its own bytecode cache, so that they share the machine's load.
Each figure is then the median of all the rounds' runs, with its spread (min–max), the load
average around each round, and the ratio of this revision's median to the baseline's.
``figures`` gives each timing's median, spread and runs; ``load_start``, ``load_end``, ``machine``
and ``condition`` (wheels or editable, and the revision; ``baseline_condition`` the baseline's)
what they ran under.
Usage: python tools/bench/compile.py [--memories N] [--runs N] [--json]
       [--venv DIR] [--baseline-venv DIR] [--rounds N]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

# Each figure a series gives: seconds per run (lists), then what the last runs reported.
TIMES = ("compile_s", "cold_process_s", "cold_process_cpu_s", "incremental_s", "touched_s")


def _children_cpu() -> float:
    """CPU time (user + system) of the finished child processes and of theirs (the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def series(root: Path, runs: int, pycache: Path) -> dict[str, Any]:
    """One revision's runs on the store at ``root``, by the `cuecard` this interpreter imports:
    each figure's times, and what the compiles reported. The store is left with the bytes it
    had (the changed memory is written back)."""
    from cuecard.core import Store

    try:
        from cuecard.core.store._compiler import compile_index
    except ImportError:  # a revision from before core's modules moved into rooms
        from cuecard.core._compiler import compile_index  # type: ignore[import-untyped,no-redef,unused-ignore]

    store = Store.open(root)
    cuecard = Path(sys.executable).parent / "cuecard"
    # cache.json: the per-file cache of earlier versions (so this script can time those too)
    caches = [store.local_dir / "index" / name for name in ("cache.dat", "cache.json")]
    # Bytecode cached as an installed wheel has it (a checkout may run with
    # PYTHONDONTWRITEBYTECODE, which would recompile every module in every cold process).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    # One untimed compile first writes the bytecode of every module a compile imports
    # (`--help` alone would leave pydantic's and the compiler's to the first timed run); it also
    # replaces a cache another revision left.
    for cache in caches:
        cache.unlink(missing_ok=True)
    subprocess.run([str(cuecard), "compile"], cwd=root, env=env, check=True, capture_output=True)
    times: dict[str, list[float]] = {key: [] for key in TIMES}
    for _ in range(runs):
        report = compile_index(store, cached=False)
        times["compile_s"].append(report.seconds)
    for _ in range(max(3, runs // 2)):
        for cache in caches:
            cache.unlink(missing_ok=True)
        cpu = _children_cpu()
        started = time.perf_counter()
        subprocess.run(
            [str(cuecard), "compile"], cwd=root, env=env, check=True, capture_output=True
        )
        times["cold_process_s"].append(time.perf_counter() - started)
        times["cold_process_cpu_s"].append(_children_cpu() - cpu)
    one = min(store.memories_dir.glob("*.json"))
    original = one.read_text()
    assert '"source": "bench"' in original
    try:
        for run in range(runs):  # new bytes each time (a rewrite of the same is a touch)
            one.write_text(original.replace('"source": "bench"', f'"source": "bench-{run}"'))
            report_one = compile_index(store)
            times["incremental_s"].append(report_one.seconds)
    finally:
        one.write_text(original)
    compile_index(store)  # the written-back file compiled, untimed
    for run in range(max(1, runs // 2)):
        for path in store.memories_dir.glob("*.json"):
            os.utime(path, ns=(2_000_000_000 + run, 2_000_000_000 + run))
        report_all = compile_index(store)
        times["touched_s"].append(report_all.seconds)
    return {
        "times": times,
        "clauses": report.clauses,
        "buckets": report.buckets,
        "incremental_validated": getattr(report_one, "validated", None),
        "touched_validated": getattr(report_all, "validated", None),
    }


def _summary(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over every run of every round, and its spread (min, max)."""
    out: dict[str, Any] = {}
    spread: dict[str, list[float]] = {}
    out["figures"] = {}
    for key in TIMES:
        values = [value for one in rounds for value in one["times"][key]]
        out[key] = round(statistics.median(values), 3)
        spread[key] = [round(min(values), 3), round(max(values), 3)]
        out["figures"][key] = figure(values)
    for key in ("clauses", "buckets", "incremental_validated", "touched_validated"):
        out[key] = rounds[-1][key]
    out["spread"] = spread
    return out


def _run_series(python: Path | None, root: Path, runs: int, pycache: Path) -> dict[str, Any]:
    """``series`` in this interpreter (``python`` None) or in another (a virtual environment's,
    with its own installed cuecard and nothing of this checkout on its path)."""
    if python is None:
        return series(root, runs, pycache)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    command = [str(python), __file__, "--series", str(root), "--runs", str(runs)]
    done = subprocess.run(
        [*command, "--pycache", str(pycache)],
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{python}: the series failed\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--venv", help="a scripts/wheel-venv environment: the revision timed")
    parser.add_argument(
        "--baseline-venv", help="a scripts/wheel-venv environment of another revision, alternated"
    )
    parser.add_argument(
        "--rounds", type=int, help="rounds of alternation (default 3 with a baseline)"
    )
    parser.add_argument("--series", help=argparse.SUPPRESS)  # one series on this store (internal)
    parser.add_argument("--pycache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.series:
        print(json.dumps(series(Path(args.series), args.runs, Path(args.pycache))))
        return 0
    ours = Path(args.venv).resolve() / "bin" / "python" if args.venv else None
    base = Path(args.baseline_venv).resolve() / "bin" / "python" if args.baseline_venv else None
    rounds = args.rounds or (3 if base else 1)
    from _corpus import build_project

    runs: dict[str, list[dict[str, Any]]] = {"ours": [], "baseline": []}
    loads: list[list[float]] = []
    started_load = load()
    with tempfile.TemporaryDirectory() as tmp:
        root = build_project(Path(tmp) / "repo", args.memories)
        for number in range(rounds):
            order = [("ours", ours), ("baseline", base)] if base else [("ours", ours)]
            if number % 2:  # ABBA: neither revision always runs first
                order.reverse()
            before = os.getloadavg()[0]
            for name, python in order:
                runs[name].append(_run_series(python, root, args.runs, Path(tmp) / name))
            loads.append([round(before, 2), round(os.getloadavg()[0], 2)])
    figures = _summary(runs["ours"])
    spread = figures.pop("spread")
    figures = {
        "memories": args.memories,
        "clauses": figures["clauses"],
        "buckets": figures["buckets"],
        "compile_s": figures["compile_s"],
        "cold_process_s": figures["cold_process_s"],
        "cold_process_cpu_s": figures["cold_process_cpu_s"],
        "incremental_s": figures["incremental_s"],
        "incremental_validated": figures["incremental_validated"],
        "touched_s": figures["touched_s"],
        "touched_validated": figures["touched_validated"],
        "target_cold_s": 1.5,
        "target_incremental_s": 0.3,
        "within_target": figures["cold_process_s"] <= 1.5 and figures["incremental_s"] <= 0.3,
        "spread": spread,
        "rounds": rounds,
        "wheels": bool(args.venv),
        "load_average_start": started_load,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "round_loads": loads,
        "figures": figures["figures"],
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(str(ours) if ours else None),
    }
    if base:
        baseline = _summary(runs["baseline"])
        figures["baseline"] = baseline
        figures["baseline_condition"] = condition(str(base))
        figures["ratios"] = {
            key: round(figures[key] / baseline[key], 3) if baseline[key] else None for key in TIMES
        }
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>16}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
