"""``cuecard doctor``: whether cuecard is working in this project; exit 1 on a problem."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json


def _description() -> str:
    from cuecard.core.doctor._doctor import KEYS

    keys = "; ".join(f"{k}: {v}" for k, v in KEYS.items())
    return (
        "Check whether cuecard is working in this project: the Python version, the opt-in, a "
        "readable config and memories, the compiled index and its freshness, session files "
        "recorded, hooks installed for which harnesses (project and home configuration), the "
        "last maintenance run, and the counts that need a person. Each finding is a problem "
        "with a hint, or a note. Exit status 1 when there is a problem. A project that did not "
        f"opt in is told so and nothing is created. --json prints keys: {keys}."
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "doctor",
        description=_description(),
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cuecard.core.doctor._doctor import diagnose

    report = diagnose(home=Path.home())
    if args.json:
        emit_json(report)
        return 0 if report["ok"] else 1
    where = report["root"] or "(not opted in)"
    print(f"cuecard doctor: {where}, Python {report['python']}")
    for hook in report["hooks"]:
        print(f"  hooks: {hook['harness']} ({hook['scope']}) in {hook['file']}")
    _print_limits(report["limits"])
    for problem in report["problems"]:
        print(f"problem [{problem['check']}]: {problem['message']}")
        print(f"  hint: {problem['hint']}")
    for note in report["notes"]:
        print(f"note [{note['check']}]: {note['message']}")
        if note["hint"]:
            print(f"  hint: {note['hint']}")
    if report["ok"]:
        print("no problem found")
    return 0 if report["ok"] else 1


def _print_limits(limits: dict[str, object] | None) -> None:
    """One line per installed harness: the most knowledge its hook delivers at one event."""
    rows = limits.get("harnesses") if limits else None
    for row in rows if isinstance(rows, list) else []:
        print(
            f"  limit: {row['harness']} delivers at most {row['effective']:,} characters per event"
        )
