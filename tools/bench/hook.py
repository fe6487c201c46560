"""Benchmark: a cold ``cuecard-hook claude PreToolUse`` process with 10,000 active memories.

Each run starts a new process for an Edit of a file that a few memories match (4 of 10,000, none
with a check), in a new session so that the run matches, claims and delivers. In the same loop it
times ``python -c "import json"`` (every hook must at least parse its payload: the budget is
≤ 1.5 times this) and ``node -e 0`` (the floor of a hook written for Node), the order of the
three rotated from run to run. It also times 8 hook
processes started at once on the same session and checks that exactly one delivers.

    python tools/bench/hook.py [--memories 10000] [--runs 25] [--json]

With ``--json`` it prints one JSON object: memories, runs, hook_ms, python_json_ms, node_ms,
ratio (hook / python), ratio_node (hook / node), parallel8_ms, parallel8_delivered, compile_s,
output_chars, the p90 of each timing, and the same medians in CPU time (user + system of the
child: hook_cpu_ms, python_json_cpu_ms, node_cpu_ms, ratio_cpu), which a loaded machine disturbs
less. Bytecode is cached (PYTHONPYCACHEPREFIX in a temporary folder), as in an installed wheel.
``figures`` gives each timing's and each ratio's median, spread and number of runs (the ratios
run by run: the hook over the ``import json`` process of the same run), ``load_start`` and
``load_end`` the load averages, ``installed`` whether cuecard ran from wheels or editable
(``condition``: that and the revision), and ``machine`` the cores and Python.

With ``--against BIN`` (another installation's bin folder, from ``scripts/wheel-venv``), that
installation's ``cuecard-hook`` runs in the same loop, on the same project and index, in sessions
of its own: ``against`` gives its CPU per call, its ratio to ``import json`` and this hook's CPU
over its, each run by run (the run stops if either hook rebuilt the other's index).
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

from _figures import condition, figure, load, machine

BIN = Path(sys.executable).parent
HOOK = str(BIN / "cuecard-hook")
CUECARD = str(BIN / "cuecard")
NOW = "2026-11-01T00:00:00+00:00"
TARGET = "pkg42/service.py"


def memory(i: int, triggers: list[dict[str, object]]) -> dict[str, object]:
    return {
        "schema_version": 1,
        "id": f"{i:08x}-0000-4000-8000-{i:012x}",
        "topic": f"bench/m{i}",
        "kind": ("trap", "fact", "decision", "procedure", "failed_approach")[i % 5],
        "status": "active",
        "title": f"Benchmark memory {i}",
        "body": f"Memory {i}: a paragraph of project knowledge that is about this long. " * 3,
        "not_derivable": "Benchmark data.",
        "triggers": triggers,
        "origin": "user_explicit",
        "source": "bench",
        "created_at": NOW,
        "updated_at": NOW,
    }


def triggers_for(i: int) -> list[dict[str, object]]:
    """Spread the memories over every trigger dimension; 4 of them match an edit of TARGET."""
    if i == 1:
        return [{"on": ["edit"], "paths": ["pkg42/**"]}]
    if i == 2:
        return [{"on": ["edit", "write"], "paths": ["pkg42/service.py"]}]
    if i in (3, 4):
        return (
            [{"on": ["edit"], "paths": ["**/*.py"], "symbols": []}]
            if i == 3
            else [{"on": ["edit"], "paths": ["**/service.py"]}]
        )
    bucket = i % 10
    if bucket < 7:
        return [{"on": ["read", "edit"], "paths": [f"pkg{i % 2000 + 100}/sub{i % 7}/**"]}]
    if bucket == 7:
        return [{"on": ["run"], "commands": [f"tool{i % 300} sub{i % 11}"]}]
    if bucket == 8:
        return [{"on": ["prompt"], "keywords": [f"word{i % 900}"]}]
    return [{"on": ["edit", "search"], "symbols": [f"symbol_{i % 1500}"]}]


def build(root: Path, count: int) -> float:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([CUECARD, "init"], cwd=root, check=True, capture_output=True)
    folder = root / ".cuecard" / "memories"
    for i in range(1, count + 1):
        record = memory(i, triggers_for(i))
        (folder / f"{record['id']}.json").write_text(json.dumps(record), encoding="utf-8")
    (root / TARGET).parent.mkdir(parents=True)
    (root / TARGET).write_text("def serve():\n    return 1\n", encoding="utf-8")
    result = subprocess.run(
        [CUECARD, "compile", "--json"], cwd=root, check=True, capture_output=True, text=True
    )
    report = json.loads(result.stdout)
    assert report["memories"] == count, report
    return float(report["seconds"])


def payload(root: Path, session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(root / TARGET),
                "old_string": "return 1",
                "new_string": "return 2",
            },
            "tool_use_id": "toolu_bench",
        }
    ).encode()


CPU: dict[str, list[float]] = {}


def _cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def timed(
    argv: list[str], data: bytes, cwd: Path, env: dict[str, str], label: str = ""
) -> tuple[float, bytes]:
    cpu = _cpu_ms()
    start = time.perf_counter()
    result = subprocess.run(argv, input=data, capture_output=True, cwd=cwd, env=env, check=True)
    elapsed = (time.perf_counter() - start) * 1000
    if label:
        CPU.setdefault(label, []).append(_cpu_ms() - cpu)
    return elapsed, result.stdout


def parallel(root: Path, session: str, env: dict[str, str]) -> tuple[float, int]:
    data = payload(root, session)
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [HOOK, "claude", "PreToolUse"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
            env=env,
        )
        for _ in range(8)
    ]
    outs = [p.communicate(data)[0] for p in procs]
    elapsed = (time.perf_counter() - start) * 1000
    return elapsed, sum(1 for out in outs if out.strip())


def _rotated(steps: list[str], run: int) -> list[str]:
    shift = run % len(steps)
    return steps[shift:] + steps[:shift]


def p90(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--against", metavar="BIN", help="another installation's bin folder, timed alongside"
    )
    args = parser.parse_args()
    other = str(Path(args.against) / "cuecard-hook") if args.against else None
    node = shutil.which("node")
    base = Path(tempfile.mkdtemp(prefix="cuecard-bench-hook-"))
    # As installed from a wheel, cuecard's modules have their bytecode cached; the editable
    # checkout may run with PYTHONDONTWRITEBYTECODE, which would recompile every module per run.
    drop = {"CUECARD_PROJECT_DIR", "PYTHONDONTWRITEBYTECODE"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    started_load = load()
    where = condition(env=env)
    try:
        root = base / "repo"
        compile_s = build(root, args.memories)
        generation = (root / ".cuecard/local/index/CURRENT").read_bytes()
        for warmup in range(3):  # writes the bytecode caches
            _, warm = timed([HOOK, "claude", "PreToolUse"], payload(root, f"w{warmup}"), root, env)
            timed([sys.executable, "-c", "import json"], b"", root, env)
            if other:
                timed([other, "claude", "PreToolUse"], payload(root, f"ow{warmup}"), root, env)
        if (root / ".cuecard/local/index/CURRENT").read_bytes() != generation:
            sys.exit(f"{args.against}: its cuecard-hook rebuilt the index (another format)")
        delivered = json.loads(warm)["hookSpecificOutput"]["additionalContext"].count("(memory ")
        assert delivered == 4, f"expected 4 memories to match, got {delivered}"
        hook_ms, python_ms, node_ms, par_ms, par_delivered = [], [], [], [], []
        for run in range(args.runs):
            # The three commands in turn, the order rotated from run to run: a process that
            # always ran right after node (whose memory evicts the interpreter's from the CPU's
            # caches) or right after a Python process would be timed slower or faster than the
            # others.
            for step in _rotated(["python", "node", "hook"] + (["against"] if other else []), run):
                if step == "python":
                    argv = [sys.executable, "-c", "import json"]
                    python_ms.append(timed(argv, b"", root, env, "python")[0])
                elif step == "node" and node:
                    node_ms.append(timed([node, "-e", "0"], b"", root, env, "node")[0])
                elif step == "hook":
                    data = payload(root, f"run{run}")
                    ms, out = timed([HOOK, "claude", "PreToolUse"], data, root, env, "hook")
                    assert out.count(b"(memory ") == 4
                    hook_ms.append(ms)
                elif step == "against" and other:
                    data = payload(root, f"against{run}")
                    _, out = timed([other, "claude", "PreToolUse"], data, root, env, "against")
                    assert out.count(b"(memory ") == 4
        for run in range(max(5, args.runs // 4)):
            ms, count = parallel(root, f"par{run}", env)
            par_ms.append(ms)
            par_delivered.append(count)
        figures = {
            "memories": args.memories,
            "runs": args.runs,
            "hook_ms": round(statistics.median(hook_ms), 2),
            "python_json_ms": round(statistics.median(python_ms), 2),
            "node_ms": round(statistics.median(node_ms), 2) if node_ms else None,
            "ratio": round(statistics.median(hook_ms) / statistics.median(python_ms), 3),
            "ratio_node": (
                round(statistics.median(hook_ms) / statistics.median(node_ms), 3)
                if node_ms
                else None
            ),
            "parallel8_ms": round(statistics.median(par_ms), 2),
            "parallel8_delivered": sorted(set(par_delivered)),
            "compile_s": round(compile_s, 2),
            "output_chars": len(warm),
            "hook_p90_ms": round(p90(hook_ms), 2),
            "python_json_p90_ms": round(p90(python_ms), 2),
            "node_p90_ms": round(p90(node_ms), 2) if node_ms else None,
            "hook_cpu_ms": round(statistics.median(CPU["hook"]), 2),
            "python_json_cpu_ms": round(statistics.median(CPU["python"]), 2),
            "node_cpu_ms": round(statistics.median(CPU["node"]), 2) if node_ms else None,
            "ratio_cpu": round(
                statistics.median(CPU["hook"]) / statistics.median(CPU["python"]), 3
            ),
            "figures": {
                "hook_ms": figure(hook_ms, 2),
                "python_json_ms": figure(python_ms, 2),
                **({"node_ms": figure(node_ms, 2)} if node_ms else {}),
                "hook_cpu_ms": figure(CPU["hook"], 2),
                "python_json_cpu_ms": figure(CPU["python"], 2),
                "ratio": figure([h / p for h, p in zip(hook_ms, python_ms, strict=True)]),
                "ratio_cpu": figure(
                    [h / p for h, p in zip(CPU["hook"], CPU["python"], strict=True)]
                ),
                "parallel8_ms": figure(par_ms, 2),
            },
            "load_start": started_load,
            "load_end": load(),
            "installed": where["installed"],
            "machine": machine(),
            "condition": where,
        }
        if args.against:
            theirs, ours, python = CPU["against"], CPU["hook"], CPU["python"]
            figures["against"] = {
                "bin": args.against,
                "condition": condition(str(Path(args.against) / "python"), env),
                "hook_cpu_ms": figure(theirs, 2),
                "ratio_cpu": figure([a / p for a, p in zip(theirs, python, strict=True)]),
                "hook_over_against_cpu": figure([h / a for h, a in zip(ours, theirs, strict=True)]),
            }
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
