"""Benchmark: one DSH turn of five tool calls with cuecard's hooks, against the same turn without.

The real host (``dsh --profile headless``, 0.1.0-rc.8, from ``scripts/deps/dsh-node.sh``) runs a
scripted turn against the scripted model on loopback (tests/e2e/_support): two reads, an edit, a
bash run and a glob, then the answer. The project is set up as the README says (``cuecard init``,
the scenario memories, ``cuecard install dsh``: both plugins and the Claude Code hook bridge).
"Without" is the same profile with the bridge's row disabled by an overlay (``--patch``), so the
plugins and their worker run in both. Runs alternate ABBA (with, without, without, with) within
each round, so a change in the machine's load falls on both sides.

    python tools/bench/dsh_turn.py [--rounds 3] [--json]

With ``--json`` it prints one JSON object: rounds, load (the 1-minute load average before and
after), with_s and without_s (every run's wall time, in order), with_median_s,
without_median_s, ratio (with / without, of the medians; the budget is 1.2), hook_ms (the
bridge's own ``durationMs`` per hook point, median over the runs with hooks, and its total per
turn); ``figures`` gives the median, spread and runs of each side's turn, of each round's ratio
(its two turns with over its two without) and of each hook point, with ``load_start``,
``load_end``, ``machine`` and ``condition`` (wheels or editable, revision).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine  # noqa: E402

from tests._support.dsh_host import DSH, hmr_patch, host_env, session_events  # noqa: E402
from tests.e2e._support import ModelServer, Reply, ToolCall  # noqa: E402
from tests.e2e._support._harnesses import VENV_BIN, base_env  # noqa: E402
from tests.e2e._support._project import FILES, GIT, MEMORIES  # noqa: E402

HOOKS_OFF = "- id: cuecard-hooks\n  disabled: true\n"


def _cuecard(env: dict[str, str], cwd: Path, *args: str) -> None:
    done = subprocess.run([str(VENV_BIN / "cuecard"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, (args, done.stdout, done.stderr)


def _setup(base: Path) -> tuple[Path, Path, dict[str, str]]:
    root, home = base / "proj", base / "home"
    root.mkdir(parents=True)
    home.mkdir(parents=True)
    env = host_env({**base_env(home), "CUECARD_VAULT": str(home / "vault")}, home / ".dsh")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "app"]):
        subprocess.run([*GIT, *args], cwd=root, check=True, env=env)
    _cuecard(env, root, "vault", "init")
    _cuecard(env, root, "init")
    for title, args in MEMORIES:
        _cuecard(env, root, "add", "--title", title, "--not-derivable", "Learned.", *args)
    _cuecard(env, root, "install", "dsh", "--profile", "headless", "--dsh", str(DSH))
    return root, home, env


def _script(root: Path) -> list[Reply]:
    charge, adr = str(root / "src/billing/charge.py"), str(root / "docs/adr/0001-provider.md")
    return [
        Reply(tool_calls=[ToolCall("read", {"file_path": adr})]),
        Reply(tool_calls=[ToolCall("read", {"file_path": charge})]),
        Reply(tool_calls=[ToolCall("edit", {"file_path": charge, "old_string": "order.total",
                                            "new_string": "order.amount"})]),
        Reply(tool_calls=[ToolCall("bash", {"command": "ls src", "description": "list"})]),
        Reply(tool_calls=[ToolCall("glob", {"pattern": "**/*.md"})]),
        Reply("Done."),
    ]  # fmt: skip


def _turn(root: Path, env: dict[str, str], patches: list[Path]) -> float:
    (root / "src/billing/charge.py").write_text(FILES["src/billing/charge.py"], encoding="utf-8")
    with ModelServer(_script(root)) as server:
        run_env = {**env, "DEEPSEEK_BASE_URL": server.url, "DEEPSEEK_API_KEY": "sk-test"}
        args = [str(DSH), "--profile", "headless"]
        for patch in patches:
            args += ["--patch", str(patch)]
        start = time.monotonic()
        done = subprocess.run([*args, "Fix the charge."], cwd=root, env=run_env,
                              capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL)  # fmt: skip
        took = time.monotonic() - start
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.spent, "the host did not run the whole script"
    return took


def _hook_ms(home: Path) -> dict[str, float]:
    """The bridge's ``durationMs`` per hook point in the latest session (summed per point)."""
    out: dict[str, float] = defaultdict(float)
    for event in session_events(home / ".dsh"):
        if event["type"] == "hook/result":
            data = event["data"]
            out[str(data.get("point"))] += float(data.get("durationMs") or 0)
    return dict(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    started_load = load()
    with tempfile.TemporaryDirectory(prefix="cuecard-dsh-turn-") as tmp:
        base = Path(tmp)
        root, home, env = _setup(base)
        hmr = hmr_patch(base)
        off = base / "hooks-off.yml"
        off.write_text(HOOKS_OFF)
        _turn(root, env, [hmr])  # warm the host's and Python's file caches; not counted
        with_s: list[float] = []
        without_s: list[float] = []
        points: dict[str, list[float]] = defaultdict(list)
        for _ in range(args.rounds):
            for hooks in (True, False, False, True):
                if hooks:
                    with_s.append(_turn(root, env, [hmr]))
                    for point, ms in _hook_ms(home).items():
                        points[point].append(ms)
                else:
                    without_s.append(_turn(root, env, [hmr, off]))
    hook_ms = {p: round(statistics.median(v), 1) for p, v in sorted(points.items())}
    hook_ms["total"] = round(sum(hook_ms.values()), 1)
    report = {
        "rounds": args.rounds,
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "with_s": [round(t, 3) for t in with_s],
        "without_s": [round(t, 3) for t in without_s],
        "with_median_s": round(statistics.median(with_s), 3),
        "without_median_s": round(statistics.median(without_s), 3),
        "ratio": round(statistics.median(with_s) / statistics.median(without_s), 3),
        "hook_ms": hook_ms,
        "figures": {
            "with_s": figure(with_s),
            "without_s": figure(without_s),
            "ratio": figure(
                [
                    (with_s[2 * n] + with_s[2 * n + 1]) / (without_s[2 * n] + without_s[2 * n + 1])
                    for n in range(args.rounds)
                ]
            ),
            **{f"hook_ms {p}": figure(v, 1) for p, v in sorted(points.items())},
        },
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(str(VENV_BIN / "python")),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"load {report['load'][0]} -> {report['load'][1]}")
        print(f"with hooks    {report['with_median_s']:.3f} s  {report['with_s']}")
        print(f"without hooks {report['without_median_s']:.3f} s  {report['without_s']}")
        print(f"ratio {report['ratio']:.3f} (budget 1.2); hook ms {hook_ms}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
