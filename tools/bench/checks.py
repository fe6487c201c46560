"""Benchmark: the worst case of check evaluation, on RE2 over the judged 256 KB.

A check's patterns run on RE2, whose time is linear in the text judged (times the pattern's
size): no pattern backtracks. The text is cut to its first 256 KB (``JUDGED_BYTES``), so one
check costs at most one linear pass over 256 KB for ``violates`` and, for ``introduced``, one
pass per line of the file before and after the change. This runs the patterns that make
backtracking engines explode, and the longest allowed pattern (500 characters of alternatives),
over 256 KB of text shaped to hurt them (one long line, or many short lines), and over a 4 MB
file (cut to 256 KB). Figures are the slowest of ``--repeat`` runs, in milliseconds (the
bound a check must hold); ``figures`` gives each case's median, spread and runs, with the load
at start and end, the machine and the condition (wheels or editable, revision).
Usage: python tools/bench/checks.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import condition, figure, load, machine

_WORDS = [f"word{i:03d}" for i in range(60)]
PATTERNS = {
    "nested quantifier (a+)+$": r"(a+)+$",
    "overlapping alternation (a|aa)*b": r"(a|aa)*b",
    "(x+x+)+y": r"(x+x+)+y",
    "^(\\w+\\s?)*$ with a bad last character": r"^(\w+\s?)*!$",
    "500-character alternation": "(?:" + "|".join(_WORDS)[:494] + ")z",
    "dot-star chain": r".*.*.*=.*;$",
}


def texts() -> dict[str, tuple[str, str]]:
    """Name -> (before, after): texts shaped to make backtracking engines explode."""
    kb = 1024
    one_line = "a" * (256 * kb)
    short_lines = "\n".join(["a" * 30 + "x" * 30 + " word059"] * (256 * kb // 70))
    return {
        "256 KB, one line": (one_line[:-1], one_line),
        "256 KB, 3,700 short lines": (short_lines, short_lines + "\nxxxxxxxxy"),
        "4 MB file (judged: first 256 KB)": ("", ("a" * 63 + "\n") * (4096 * kb // 64)),
    }


# Every run's milliseconds, by the name ``slowest`` was given: what ``figures`` reports.
RUNS: dict[str, list[float]] = {}


def slowest(fn: object, repeat: int, name: str) -> float:
    assert callable(fn)
    times = RUNS.setdefault(name, [])
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return max(times)


def _check_ms(case: dict[str, object]) -> float:
    """A case's whole check: its ``violates`` and ``introduced`` times."""
    violates, introduced = case["violates_ms"], case["introduced_ms"]
    assert isinstance(violates, float) and isinstance(introduced, float)
    return violates + introduced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started_load = load()
    from cuecard.core.engine._checks import JUDGED_BYTES, introduced, pattern_problem, violates

    cases = []
    for name, pattern in PATTERNS.items():
        assert pattern_problem(pattern) is None, (name, pattern_problem(pattern))
        assert len(pattern) <= 500, name
        for label, (before, after) in texts().items():
            cases.append(
                {
                    "pattern": name,
                    "text": label,
                    "violates_ms": round(
                        slowest(
                            lambda p=pattern, a=after: violates(p, None, a),
                            args.repeat,
                            f"{name} / {label} / violates_ms",
                        ),
                        2,
                    ),
                    "introduced_ms": round(
                        slowest(
                            lambda p=pattern, b=before, a=after: introduced(p, None, b, a),
                            args.repeat,
                            f"{name} / {label} / introduced_ms",
                        ),
                        2,
                    ),
                }
            )
    worst = max(cases, key=_check_ms)
    pattern = PATTERNS[str(worst["pattern"])]
    scaling = [  # the worst pattern over growing text: linear, up to the cut
        {
            "chars": size,
            "introduced_ms": round(
                slowest(
                    lambda n=size: introduced(pattern, None, "", "a" * n),
                    args.repeat,
                    f"scaling / {size} / introduced_ms",
                ),
                2,
            ),
        }
        for size in (64 * 1024, 128 * 1024, 256 * 1024, 1024 * 1024)
    ]
    result = {
        "judged_bytes": JUDGED_BYTES,
        "repeat": args.repeat,
        "cases": cases,
        "scaling": scaling,
        "worst": worst,
        "worst_check_ms": round(_check_ms(worst), 2),
        "figures": {name: figure(times, 2) for name, times in RUNS.items()},
        "load_start": started_load,
        "load_end": load(),
        "machine": machine(),
        "condition": condition(),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"judged: first {JUDGED_BYTES:,} characters; slowest of {args.repeat} runs")
    for case in cases:
        print(
            f"{case['pattern']:<42} {case['text']:<34} violates {case['violates_ms']:8.2f} ms  "
            f"introduced {case['introduced_ms']:8.2f} ms"
        )
    print(f"worst check: {result['worst_check_ms']} ms ({worst['pattern']}, {worst['text']})")
    for row in scaling:
        print(f"  the same over {row['chars']:>9,} characters: {row['introduced_ms']:8.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
