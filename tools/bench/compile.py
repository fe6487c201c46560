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
``--evidence SHARES`` (comma-separated, e.g. ``0.5,1``) times stores whose memories carry file
evidence (one or two hashed files, as ``cuecard import`` and ``ingest`` record them) in that share,
beside the plain store, every store in each round: each figure as ``figures`` (median, spread,
runs), its ratio to the plain store's in the same run, CPU time after one change, the sha256 of
the index each revision compiled, and the load.
Usage: python tools/bench/compile.py [--memories N] [--runs N] [--json]
       [--venv DIR] [--baseline-venv DIR] [--rounds N] [--evidence SHARES]
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
# What ``--evidence`` reports of each store (CPU first: on a loaded machine it is the steadier).
EVIDENCE_TIMES = (
    "cold_process_cpu_s",
    "cold_process_s",
    "incremental_cpu_s",
    "incremental_s",
    "compile_s",
)


def _children_cpu() -> float:
    """CPU time (user + system) of the finished child processes and of theirs (the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _index_sha256(root: Path) -> str:
    """The sha256 of the current index generation's tables (not its meta.json, which holds the
    time of the compile): the same for two revisions that compiled the same index."""
    import hashlib

    index = root / ".cuecard" / "local" / "index"
    current = index / (index / "CURRENT").read_text().strip()
    digest = hashlib.sha256()
    for path in sorted(current.iterdir()):
        if path.name != "meta.json" and not path.name.startswith(".") and path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


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
    times: dict[str, list[float]] = {key: [] for key in (*TIMES, "incremental_cpu_s")}
    # Each file's stamp, given back at the end: a series leaves the store as it found it, so that
    # every revision compiles the same index (a record names its file's stamp).
    stamps = {
        path: (st.st_atime_ns, st.st_mtime_ns)
        for path in store.memories_dir.glob("*.json")
        for st in [path.stat()]
    }
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
    index_sha256 = _index_sha256(root)
    one = min(store.memories_dir.glob("*.json"))
    original = one.read_text()
    assert '"source": "bench"' in original
    try:
        for run in range(runs):  # new bytes each time (a rewrite of the same is a touch)
            one.write_text(original.replace('"source": "bench"', f'"source": "bench-{run}"'))
            cpu = time.process_time()
            report_one = compile_index(store)
            times["incremental_cpu_s"].append(time.process_time() - cpu)
            times["incremental_s"].append(report_one.seconds)
    finally:
        one.write_text(original)
        os.utime(one, ns=stamps[one])
    compile_index(store)  # the written-back file compiled, untimed
    for run in range(max(1, runs // 2)):
        for path in store.memories_dir.glob("*.json"):
            os.utime(path, ns=(2_000_000_000 + run, 2_000_000_000 + run))
        report_all = compile_index(store)
        times["touched_s"].append(report_all.seconds)
    for path, stamp in stamps.items():
        os.utime(path, ns=stamp)
    return {
        "times": times,
        "index_sha256": index_sha256,
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


def evidence_report(
    args: argparse.Namespace, ours: Path | None, base: Path | None, rounds: int
) -> dict[str, Any]:
    """The plain store and a store per share of memories with file evidence, every revision on
    every store in each round (the order reversed every other round): per store and revision,
    each figure (median, spread, runs) and its ratio to the plain store's; with a baseline, this
    revision's ratio to it and whether both compiled the same index."""
    from _corpus import build_project

    shares = sorted({0.0, *(float(x) for x in args.evidence.split(","))})
    revisions = [("ours", ours), ("baseline", base)] if base else [("ours", ours)]
    runs: dict[tuple[str, float], list[dict[str, Any]]] = {
        (name, share): [] for name, _ in revisions for share in shares
    }
    round_loads = []
    started = load()
    with tempfile.TemporaryDirectory() as tmp:
        roots = {
            share: build_project(Path(tmp) / f"store-{share:g}", args.memories, evidence=share)
            for share in shares
        }
        for number in range(rounds):
            order = [(name, python, share) for share in shares for name, python in revisions]
            if number % 2:
                order.reverse()
            before = load()[0]
            for name, python, share in order:
                one = _run_series(python, roots[share], args.runs, Path(tmp) / name)
                runs[name, share].append(one)
            round_loads.append([before, load()[0]])

    def values(name: str, share: float, key: str) -> list[float]:
        return [value for one in runs[name, share] for value in one["times"][key]]

    def ratio(mine: list[float], other: list[float]) -> float:
        return round(statistics.median(mine) / statistics.median(other), 3)

    stores: dict[str, Any] = {}
    for share in shares:
        entry: dict[str, Any] = {"evidence_share": share}
        for name, _ in revisions:
            entry[name] = {key: figure(values(name, share, key)) for key in EVIDENCE_TIMES}
            entry[name]["vs_plain"] = {
                key: ratio(values(name, share, key), values(name, 0.0, key))
                for key in EVIDENCE_TIMES
            }
            entry[name]["index_sha256"] = sorted({one["index_sha256"] for one in runs[name, share]})
        if base:
            entry["ours_vs_baseline"] = {
                key: ratio(values("ours", share, key), values("baseline", share, key))
                for key in EVIDENCE_TIMES
            }
            entry["same_index"] = (
                len(entry["ours"]["index_sha256"]) == 1
                and entry["ours"]["index_sha256"] == entry["baseline"]["index_sha256"]
            )
        stores[f"evidence_{share:g}"] = entry
    return {
        "memories": args.memories,
        "runs_per_series": args.runs,
        "rounds": rounds,
        "wheels": bool(args.venv),
        "stores": stores,
        "load_average_start": started,
        "load_average": load(),
        "round_loads": round_loads,
        "machine": machine(),
        "condition": condition(str(ours) if ours else None),
        "baseline_condition": condition(str(base)) if base else None,
    }


def evidence_lines(report: dict[str, Any]) -> list[str]:
    """``evidence_report`` for a person: per store and revision, each figure's median [spread]
    and its ratio to the plain store's; then this revision's ratio to the baseline's."""
    lines = [
        f"{report['memories']} memories, {report['rounds']} rounds of "
        f"{report['runs_per_series']} runs, {report['condition']}"
        f" against {report['baseline_condition']}, "
        f"load {report['load_average_start']} -> {report['load_average']}, "
        f"per round {report['round_loads']}"
    ]
    for name, entry in report["stores"].items():
        for revision in ("ours", "baseline"):
            if revision not in entry:
                continue
            figures = entry[revision]
            lines.append(f"{name} {revision} (index {figures['index_sha256'][0][:12]}):")
            for key in EVIDENCE_TIMES:
                one = figures[key]
                lines.append(
                    f"  {key:>18}: {one['median']:.3f} s {one['spread']} x{one['runs']}"
                    f"  {figures['vs_plain'][key]:.2f}x plain"
                )
        if "ours_vs_baseline" in entry:
            ratios = ", ".join(f"{k} {v:.2f}x" for k, v in entry["ours_vs_baseline"].items())
            lines.append(f"{name} ours/baseline: {ratios}; same index: {entry['same_index']}")
    return lines


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
    parser.add_argument(
        "--evidence", help="shares of memories with file evidence, e.g. 0.5,1 (beside the plain)"
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
    if args.evidence:
        report = evidence_report(args, ours, base, rounds)
        print(json.dumps(report) if args.json else "\n".join(evidence_lines(report)))
        return 0
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
