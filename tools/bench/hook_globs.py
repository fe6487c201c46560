"""Benchmark: what the worst globs validation accepts cost a ``cuecard-hook claude PreToolUse``.

Two projects of 10,000 memories each: the ordinary one of ``hook.py`` (folder globs, commands,
keywords, symbols), and one where every memory's glob is a different 200-character glob with no
literal part (``*`` + a letter + 196 ``?`` with a second letter among them + ``#``), the shape
whose matcher state set is new at nearly every character and which lands in the bucket every
event with a path reads. Each project is sent a Read of a 4,096-character path (16 folders of
255 random letters) and of a 1,000,000-character one, a new session per run, the four
combinations in turn and the order rotated from run to run. The figure is the median time of
the worst project over that of the ordinary one, per path (the budget is 10). ``figures`` gives
each timing's and the run-by-run ratio's median, spread and runs; ``load_start`` and
``load_end`` the load averages, ``machine`` and ``condition`` (wheels or editable, revision).

    python tools/bench/hook_globs.py [--memories 10000] [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine
from hook import CUECARD, HOOK, memory, timed, triggers_for

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def worst_glob(i: int) -> str:
    """A distinct 200-character glob per memory: no literal part, ``?`` runs that keep every
    ``*`` start alive, a final ``#`` no path here holds (so the whole path is read)."""
    first, second = LETTERS[i % 26], LETTERS[(i // 26) % 26]
    split = (i // 676) % 196
    return "*" + first + "?" * split + second + "?" * (196 - split) + "#"


def build(root: Path, count: int, worst: bool) -> float:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([CUECARD, "init"], cwd=root, check=True, capture_output=True)
    folder = root / ".cuecard" / "memories"
    for i in range(1, count + 1):
        worst_triggers: list[dict[str, object]] = [{"on": ["read"], "paths": [worst_glob(i)]}]
        triggers = worst_triggers if worst else triggers_for(i)
        record = memory(i, triggers)
        (folder / f"{record['id']}.json").write_text(json.dumps(record), encoding="utf-8")
    result = subprocess.run(
        [CUECARD, "compile", "--json"], cwd=root, check=True, capture_output=True, text=True
    )
    report = json.loads(result.stdout)
    assert report["memories"] == count, report
    return float(report["seconds"])


def long_path(length: int, seed: int) -> str:
    rng = random.Random(seed)
    segments: list[str] = []
    while sum(len(s) + 1 for s in segments) <= length:
        segments.append("".join(rng.choice(LETTERS) for _ in range(255)))
    path = "/".join(segments)[:length]
    return path[:-1] + "z" if path.endswith("/") else path


def payload(root: Path, session: str, rel: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / rel)},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def run_ratios(times: dict[tuple[str, str], list[float]], size: str) -> list[float]:
    """The worst globs' hook over the ordinary one's, run by run, for a path of ``size``."""
    pairs = zip(times["worst", size], times["ordinary", size], strict=True)
    return [worst / ordinary for worst, ordinary in pairs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    started_load = load()
    base = Path(tempfile.mkdtemp(prefix="cuecard-bench-globs-"))
    drop = {"CUECARD_PROJECT_DIR", "PYTHONDONTWRITEBYTECODE"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    paths = {"4096": long_path(4_096, 1), "1000000": long_path(1_000_000, 2)}
    assert [len(p) for p in paths.values()] == [4_096, 1_000_000]
    try:
        roots = {"ordinary": base / "ordinary", "worst": base / "worst"}
        compile_s = {n: build(root, args.memories, n == "worst") for n, root in roots.items()}
        combos = [(name, size) for name in roots for size in paths]
        for name, size in combos:  # bytecode caches, and a check that the hook answers
            timed([HOOK, "claude", "PreToolUse"], payload(roots[name], "warm", paths[size]),
                  roots[name], env)  # fmt: skip
        times: dict[tuple[str, str], list[float]] = {c: [] for c in combos}
        for run in range(args.runs):
            shift = run % len(combos)
            for name, size in combos[shift:] + combos[:shift]:
                data = payload(roots[name], f"run{run}", paths[size])
                ms, _out = timed([HOOK, "claude", "PreToolUse"], data, roots[name], env)
                times[name, size].append(ms)
        ledger = sorted((roots["worst"] / ".cuecard" / "local").rglob("*.jsonl"))
        reasons = sorted(
            {
                json.loads(line).get("reason", "")
                for file in ledger
                for line in file.read_text(encoding="utf-8").splitlines()
                if '"unmatched"' in line
            }
        )
        median = {c: statistics.median(v) for c, v in times.items()}
        figures = {
            "memories": args.memories,
            "runs": args.runs,
            "compile_s": {k: round(v, 1) for k, v in compile_s.items()},
            **{f"{n}_{s}_ms": round(median[n, s], 1) for n, s in combos},
            **{f"ratio_{s}": round(median["worst", s] / median["ordinary", s], 2) for s in paths},
            "load": round(os.getloadavg()[0], 1),
            "ledger_reasons": reasons,
            # each timing's median, spread and runs; the ratio run by run (worst over ordinary)
            "figures": {
                **{f"{n}_{s}_ms": figure(times[n, s], 1) for n, s in combos},
                **{f"ratio_{s}": figure(run_ratios(times, s)) for s in paths},
            },
            "load_start": started_load,
            "load_end": load(),
            "machine": machine(),
            "condition": condition(env=env),
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>18}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
