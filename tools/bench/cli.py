"""Benchmark: cold ``cuecard`` command lines, the time to start and the modules each imports.

Each run starts a new process (bytecode cached, as in an installed wheel): ``cuecard --help``,
a built-in command's and a group's ``--help``, ``cuecard list --json`` in a fresh project, and a
satellite command's ``--help`` (``wp status``, ``install``). In the same loop it times
``python -c "import json"``. ``--compare BIN`` also runs the ``cuecard`` of another environment
(its ``bin`` folder, e.g. a checkout of an older commit) in the same loop, for a before/after on
one machine at one load.

    python tools/bench/cli.py [--runs 15] [--compare BIN] [--json]

With ``--json`` it prints one JSON object: runs, python_json_ms, commands (each argv, ms,
cpu_ms, modules: how many cuecard modules it imported; with --compare also
before_ms, before_cpu_ms, before_modules), load (at the end); ``figures`` gives each median's
spread and runs (keyed by the command line, ``before:`` for --compare's), with ``load_start``,
``load_end``, ``machine`` and ``condition`` (wheels or editable, revision; ``before_condition``).
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

from _figures import condition, figure, load, machine

BIN = Path(sys.executable).parent
COMMANDS = (
    ["--help"],
    ["status", "--help"],
    ["vault", "status", "--help"],
    ["list", "--json"],
    ["wp", "status", "--help"],
    ["install", "--help"],
)


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) milliseconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


COUNT = """
import sys
from cuecard.core.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write("\\nmodules %d\\n" % sum(1 for m in sys.modules if m.startswith("cuecard")))
"""


def modules(bin_dir: Path, argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    """How many cuecard modules the command line imports (``-X importtime`` misses those
    imported through ``importlib``, so ``sys.modules`` is read at the end)."""
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", COUNT, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return int(done.stderr.rsplit("modules ", 1)[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--compare", type=Path, help="the bin folder of another environment")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started_load = load()
    bins = {"after": BIN, **({"before": args.compare} if args.compare else {})}
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        env.pop("CUECARD_VAULT", None)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        subprocess.run(
            [str(BIN / "cuecard"), "init"], cwd=project, env=env, check=True, capture_output=True
        )
        times: dict[tuple[str, int], list[tuple[float, float]]] = {}
        baseline: list[tuple[float, float]] = []
        for _ in range(args.runs):
            baseline.append(timed([sys.executable, "-c", "import json"], project, env))
            for name, bin_dir in bins.items():
                for i, argv in enumerate(COMMANDS):
                    run = timed([str(bin_dir / "cuecard"), *argv], project, env)
                    times.setdefault((name, i), []).append(run)
        rows = []
        figures: dict[str, object] = {
            "python_json_ms": figure([r[0] for r in baseline], 1),
        }
        for i, argv in enumerate(COMMANDS):
            row: dict[str, object] = {"argv": argv}
            for name, bin_dir in bins.items():
                prefix = "" if name == "after" else "before_"
                runs = times[(name, i)]
                row[prefix + "ms"] = round(statistics.median(r[0] for r in runs), 1)
                row[prefix + "cpu_ms"] = round(statistics.median(r[1] for r in runs), 1)
                row[prefix + "modules"] = modules(bin_dir, argv, project, env)
                label = ("" if name == "after" else "before: ") + " ".join(argv)
                figures[label + " ms"] = figure([r[0] for r in runs], 1)
                figures[label + " cpu_ms"] = figure([r[1] for r in runs], 1)
            rows.append(row)
    result = {
        "runs": args.runs,
        "load": [round(x, 2) for x in os.getloadavg()],
        "python_json_ms": round(statistics.median(r[0] for r in baseline), 1),
        "commands": rows,
        "figures": figures,
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(str(BIN / "python")),
        **({"before_condition": condition(str(args.compare / "python"))} if args.compare else {}),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"python -c 'import json': {result['python_json_ms']} ms")
        for row in rows:
            before = (
                f" (before {row['before_ms']} ms, {row['before_modules']} modules)"
                if ("before_ms" in row)
                else ""
            )
            command = row["argv"]
            assert isinstance(command, list)
            print(
                f"cuecard {' '.join(command)}: {row['ms']} ms, {row['modules']} cuecard "
                f"modules{before}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
