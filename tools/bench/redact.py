"""Benchmark: what the hook's first redaction costs a process (a PostToolUse record of a command).

Each run starts a new Python process that has imported ``cuecard.core.engine._text`` (as the
hook has when it records a tool call) and times, in CPU time, its first ``redact`` of one
command: loading the credential rules and compiling what they need included. Commands: one with
nothing to redact, a git command with a commit id, one with an environment reference and one with
a bearer token. ``--against DIR`` times another checkout's core (``DIR/packages/core/src``) in the
same loop, the two alternating run by run, and prints the ratio. Bytecode is cached
(``PYTHONPYCACHEPREFIX`` in a temporary folder), as in an installed wheel. Besides each
command's medians, ``figures`` gives each one's median, spread and runs (``<command> / this``,
``/ against``, ``/ ratio`` run by run), with the load at start and end, the machine and the
condition (the source trees timed and their revisions).

    python tools/bench/redact.py [--runs 15] [--against ../main] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import figure, load, machine, revision

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "nothing": "make test && git push origin main",
    "commit id": "git show 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
    "reference": "TOKEN=$GITHUB_TOKEN make release",
    "bearer": "curl -H 'Authorization: Bearer " + "abcdefghij" + "0123456789abcdef' https://x",
}
PROBE = (
    "import sys, time\n"
    "import cuecard.core.engine._text as text\n"
    "start = time.process_time()\n"
    "text.redact(sys.argv[1])\n"
    "print((time.process_time() - start) * 1000)\n"
)


def once(src: Path, command: str, env: dict[str, str]) -> float:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, command],
        capture_output=True,
        text=True,
        check=True,
        env={**env, "PYTHONPATH": str(src)},
    )
    return float(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--against", type=Path, help="another checkout to time in the same loop")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trees = {"this": ROOT / "packages/core/src"}
    if args.against is not None:
        trees["against"] = args.against.resolve() / "packages/core/src"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started_load = load()
    result: dict[str, object] = {}
    figures: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for name, command in COMMANDS.items():
            times: dict[str, list[float]] = {tree: [] for tree in trees}
            for src in trees.values():  # untimed: writes the bytecode
                once(src, command, env)
            for run in range(args.runs):
                order = list(trees.items())
                for tree, src in order if run % 2 == 0 else reversed(order):
                    times[tree].append(once(src, command, env))
            row = {f"{tree}_cpu_ms": round(statistics.median(t), 2) for tree, t in times.items()}
            if "against" in times:
                row["ratio"] = round(row["this_cpu_ms"] / row["against_cpu_ms"], 2)
            result[name] = row
            for tree, values in times.items():
                figures[f"{name} / {tree}"] = figure(values, 2)
            if "against" in times:
                pairs = zip(times["this"], times["against"], strict=True)
                figures[f"{name} / ratio"] = figure([a / b for a, b in pairs])
    commands = dict(result)
    result["figures"] = figures
    result["load_start"] = started_load
    result["load_end"] = load()
    result["machine"] = machine()
    result["condition"] = {  # each source tree runs with PYTHONPATH set to it: editable
        tree: {"installed": "editable", "revision": revision(src)} for tree, src in trees.items()
    }
    if args.json:
        print(json.dumps(result))
    else:
        for name, medians in commands.items():
            assert isinstance(medians, dict)
            print(f"{name:10} " + "  ".join(f"{k} {v}" for k, v in medians.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
