"""Benchmark: what asking git for the turn's changed files adds to Stop, on 50,000 files.

Two copies of a project with 50,000 committed files, 20 of them changed before the turn: one
with a turn check (on ``edit`` and ``run``), where Stop runs ``git status`` and keeps the files
modified since the turn began; one with that memory archived, where Stop judges nothing and
asks git nothing. Each round, in alternating order, a turn in each: the prompt, a shell call
that changed 3 files it does not name, and the timed cold ``Stop`` process.

    python tools/bench/turn_changes.py [--files 50000] [--rounds 9] [--glob GLOB] [--json]

Prints the medians (wall and CPU of the child), the ratios with / without, and the load;
``figures`` gives each timing's and each round's ratio's median, spread and runs, with the load
at start and end, the machine and the condition (wheels or editable, revision).
Bytecode is cached (PYTHONPYCACHEPREFIX in a temporary folder), as in an installed wheel.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

BIN = Path(sys.executable).parent
HOOK = str(BIN / "cuecard-hook")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]  # fmt: skip
NOW = "2026-11-01T00:00:00+00:00"


def _memory(status: str, glob: str) -> dict[str, object]:
    return {
        "schema_version": 1,
        "id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
        "topic": "config/debug",
        "kind": "trap",
        "status": status,
        "title": "DEBUG must stay off",
        "body": "DEBUG = True leaks stack traces.",
        "not_derivable": "Benchmark data.",
        "triggers": [{"on": ["edit", "run"], "paths": [glob]}],
        "check": {"if_content": "DEBUG\\s*=\\s*True", "when": "turn", "message": "DEBUG is on",
                  "violates": ["DEBUG = True"], "passes": ["DEBUG = False"]},
        "origin": "user_explicit",
        "source": "bench",
        "created_at": NOW,
        "updated_at": NOW,
    }  # fmt: skip


def build(root: Path, files: int, status: str, glob: str) -> None:
    root.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    for i in range(files):
        path = root / f"pkg{i // 500}" / f"m{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("DEBUG = False\n")
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "files"], cwd=root, check=True)
    subprocess.run([str(BIN / "cuecard"), "init", str(root)], check=True, capture_output=True)
    memory = root / ".cuecard/memories/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa.json"
    memory.write_text(json.dumps(_memory(status, glob)))
    subprocess.run([str(BIN / "cuecard"), "compile"], cwd=root, check=True, capture_output=True)
    for i in range(min(20, files // 500)):  # the person's own changes, before the turn
        (root / f"pkg{i}" / f"m{i * 500}.py").write_text("x = 1\n")


def _turn_folders(files: int) -> list[int]:
    """The three full folders of 500 files the turn changes a file in: pkg4, pkg44 and pkg84
    with 50,000 files, closer together in a smaller project (pkg4 is always one of them)."""
    step = min(40, (files // 500 - 5) // 2)
    return [4 + i * step for i in range(3)]


def timed(
    root: Path, event: str, session: str, env: dict[str, str], **fields: object
) -> tuple[float, float]:
    payload = json.dumps({"session_id": session, "cwd": str(root), "hook_event_name": event,
                          **fields}).encode()  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([HOOK, "claude", event], input=payload, cwd=root, env=env,
                   capture_output=True, check=True)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--files", type=int, default=50_000, help="committed files, at least 3,500 (default 50,000)"
    )
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--glob",
        default="pkg*/**",
        help="the turn check's paths: the default can match in every folder (git looks at the "
        "whole tree); 'pkg4/**' limits git to one folder of 500 files",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.files < 3_500:
        parser.error("--files: at least 3,500 (seven folders of 500 files)")
    started_load = load()
    work = Path(tempfile.mkdtemp(prefix="cuecard-bench-turn-"))
    try:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(work / "pycache")}
        env.pop("CUECARD_PROJECT_DIR", None)
        with_check, without = work / "with", work / "without"
        targets = _turn_folders(args.files)
        build(with_check, args.files, "active", args.glob)
        build(without, args.files, "archived", args.glob)
        series: dict[str, list[tuple[float, float]]] = {"stop_with": [], "stop_without": []}
        for n in range(args.rounds):
            for snap in [True, False] if n % 2 == 0 else [False, True]:
                root = with_check if snap else without
                session = f"s{n}-{int(snap)}"
                timed(root, "UserPromptSubmit", session, env, prompt="switch it on")
                for folder in targets:
                    target = root / f"pkg{folder}" / f"m{folder * 500 + n % 500 + 1}.py"
                    target.write_text(f"DEBUG = True  # {n}\n")
                timed(root, "PostToolUse", session, env, tool_name="Bash",
                      tool_input={"command": "./gen.sh"},
                      tool_response={"stdout": "", "interrupted": False})  # fmt: skip
                key = "with" if snap else "without"
                series[f"stop_{key}"].append(timed(root, "Stop", session, env,
                                                   stop_hook_active=False))  # fmt: skip
                subprocess.run([*GIT, "checkout", "-q", "--", "."], cwd=root, check=True)
                for i in range(min(20, args.files // 500)):
                    (root / f"pkg{i}" / f"m{i * 500}.py").write_text("x = 1\n")
        out: dict[str, object] = {"files": args.files, "rounds": args.rounds, "glob": args.glob,
                                  "load": round(os.getloadavg()[0], 2)}  # fmt: skip
        for name, values in series.items():
            out[f"{name}_ms"] = round(statistics.median(v[0] for v in values), 1)
            out[f"{name}_cpu_ms"] = round(statistics.median(v[1] for v in values), 1)
        for unit, at in (("", 0), ("_cpu", 1)):
            with_ms = statistics.median(v[at] for v in series["stop_with"])
            without_ms = statistics.median(v[at] for v in series["stop_without"])
            out[f"stop_ratio{unit}"] = round(with_ms / without_ms, 2)
        pairs = list(zip(series["stop_with"], series["stop_without"], strict=True))
        out["figures"] = {
            **{f"{name}_ms": figure([v[0] for v in values], 1) for name, values in series.items()},
            **{
                f"{name}_cpu_ms": figure([v[1] for v in values], 1)
                for name, values in series.items()
            },
            "stop_ratio": figure([a[0] / b[0] for a, b in pairs]),
            "stop_ratio_cpu": figure([a[1] / b[1] for a, b in pairs]),
        }
        out["load_start"] = started_load
        out["load_end"] = load()
        out["machine"] = machine()
        out["condition"] = condition(env=env)
        if args.json:
            print(json.dumps(out))
        else:
            for key, value in out.items():
                print(f"{key}: {value}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
