"""Benchmark: cuecard's hooks inside the real harnesses, as each harness reports their time.

One scripted session per round and harness (a prompt, a Read of a file a memory triggers on, an
Edit, the end of the turn), against the scripted model on loopback, in a project set up as the
README says (tests/e2e/_support). Claude Code reports each hook's time in its debug log
(``--debug-file``: ``Hooks: <event> [...] finished with status 0 (N ms)``); Codex reports none
headless, so its times are the logging ``cuecard-hook``'s (the real hook's wall time, measured
around it); so do OpenCode's (the plugin spawns the hook) and Grok Build's (it reports none).
Needs the harnesses ``scripts/deps/harnesses.sh`` installs.

    python tools/bench/harness_hooks.py [--rounds 3] [--harness NAME ...] [--json]

With ``--json`` it prints one JSON object: rounds, load (the 1-minute load average before and
after), and per harness run (claude, codex, opencode, grok): version, source (how the time was
taken), hook_ms ({event: median ms}), session_s (median wall time of one scripted session);
``figures`` gives, per harness, each of those medians with its spread and runs, and
``load_start``, ``load_end``, ``machine`` and ``condition`` (wheels or editable, revision) the
conditions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine  # noqa: E402

from tests.e2e._support import ModelServer, Reply, ToolCall  # noqa: E402
from tests.e2e._support._harnesses import (  # noqa: E402
    claude_command,
    claude_env,
    codex_command,
    codex_env,
    codex_prepare,
    grok_command,
    grok_env,
    opencode_command,
    opencode_env,
    opencode_seed,
    run,
    versions,
)
from tests.e2e._support._project import make_project  # noqa: E402

LINE = "    return provider.charge(order.total)"
DEBUG = re.compile(r"Hooks: (\w+)(?::\w+)? \[.*\] finished with status \d+ \((\d+)ms\)")


def _claude(base: Path, times: dict[str, list[float]]) -> float:
    project = make_project(base, "claude")
    charge = str(project.root / "src/billing/charge.py")
    script = [
        Reply(tool_calls=[ToolCall("Read", {"file_path": charge})]),
        Reply(tool_calls=[ToolCall("Edit", {"file_path": charge, "old_string": "order.total",
                                            "new_string": "order.amount"})]),
        Reply("Done."),
    ]  # fmt: skip
    debug = base / "debug.log"
    with ModelServer(script) as server:
        start = time.monotonic()
        done = run(claude_command("Please deploy the fix.", tools=["Read", "Edit"],
                                  debug_file=debug), cwd=project.root,
                   env=claude_env(project.env, server.url))  # fmt: skip
        took = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-2000:]
    for event, ms in DEBUG.findall(debug.read_text("utf-8")):
        times[event].append(float(ms))
    return took


def _codex(base: Path, times: dict[str, list[float]]) -> float:
    project = make_project(base, "codex", prepare=codex_prepare)
    fixed = LINE.replace("total", "amount")
    patch = f"*** Begin Patch\n*** Update File: src/billing/charge.py\n@@\n-{LINE}\n+{fixed}\n"
    script = [
        Reply(tool_calls=[ToolCall("exec_command", {"cmd": "cat src/billing/charge.py"})]),
        Reply(tool_calls=[ToolCall("apply_patch", patch + "*** End Patch\n")]),
        Reply("Done."),
    ]
    with ModelServer(script) as server:
        start = time.monotonic()
        done = run(codex_command("Please deploy the fix.", url=server.url), cwd=project.root,
                   env=codex_env(project.env))  # fmt: skip
        took = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-2000:]
    for call in project.calls:
        times[call["argv"][1]].append(float(call["ms"]))
    return took


def _opencode(base: Path, times: dict[str, list[float]]) -> float:
    project = make_project(base, "opencode", prepare=opencode_seed)
    charge = str(project.root / "src/billing/charge.py")
    script = [
        Reply(tool_calls=[ToolCall("read", {"filePath": charge})]),
        Reply(tool_calls=[ToolCall("edit", {"filePath": charge, "oldString": "order.total",
                                            "newString": "order.amount"})]),
        Reply("Done."),
    ]  # fmt: skip
    with ModelServer(script) as server:
        start = time.monotonic()
        done = run(opencode_command("Please deploy the fix."), cwd=project.root,
                   env=opencode_env(project.env, server.url), timeout=300)  # fmt: skip
        took = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-2000:]
    for call in project.calls:
        times[call["argv"][1]].append(float(call["ms"]))
    return took


def _grok(base: Path, times: dict[str, list[float]]) -> float:
    project = make_project(base, "grok")
    script = [
        Reply(tool_calls=[ToolCall("read_file", {"target_file": "src/billing/charge.py"})]),
        Reply(tool_calls=[ToolCall("search_replace", {"file_path": "src/billing/charge.py",
                                                      "old_string": "order.total",
                                                      "new_string": "order.amount"})]),
        Reply("Done."),
        Reply("Checked."),
    ]  # fmt: skip
    with ModelServer(script) as server:
        start = time.monotonic()
        done = run(grok_command("Please deploy the fix."), cwd=project.root,
                   env=grok_env(project.env, server.url))  # fmt: skip
        took = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-2000:]
    for call in project.calls:
        times[call["argv"][1]].append(float(call["ms"]))
    return took


SESSIONS = {"claude": _claude, "codex": _codex, "opencode": _opencode, "grok": _grok}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--harness", action="append", choices=list(SESSIONS),
                        help="only this harness (repeatable; default: all)")  # fmt: skip
    args = parser.parse_args()
    chosen = args.harness or list(SESSIONS)
    found = versions()
    loads = [os.getloadavg()[0]]
    started_load = load()
    figures: dict[str, object] = {}
    report: dict[str, object] = {"rounds": args.rounds, "load": loads}
    wrapper = "the logging cuecard-hook"
    sources = {"claude": "Claude Code's debug log", "codex": wrapper, "opencode": wrapper,
               "grok": wrapper}  # fmt: skip
    for harness in chosen:
        session = SESSIONS[harness]
        times: dict[str, list[float]] = defaultdict(list)
        walls = []
        for round_ in range(args.rounds):
            base = Path(tempfile.mkdtemp(prefix=f"cuecard-bench-{harness}-{round_}-"))
            walls.append(session(base, times))
        report[harness] = {
            "version": found.get(harness),
            "source": sources[harness],
            "hook_ms": {e: round(statistics.median(v)) for e, v in sorted(times.items())},
            "session_s": round(statistics.median(walls), 2),
        }
        figures[harness] = {
            "hook_ms": {e: figure(v, 1) for e, v in sorted(times.items())},
            "session_s": figure(walls, 2),
        }
    loads.append(os.getloadavg()[0])
    report |= {
        "figures": figures,
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(),
    }
    if args.json:
        print(json.dumps(report))
        return
    for harness in chosen:
        entry = report[harness]
        assert isinstance(entry, dict)
        print(f"{harness} {entry['version']} ({entry['source']}): session {entry['session_s']} s")
        for event, ms in entry["hook_ms"].items():
            print(f"  {event:<20} {ms:>6} ms")
    print(f"load average before/after: {report['load']}")


if __name__ == "__main__":
    main()
