"""``cuecard vault adjudicate``: decide a conflict (or each, interactively)."""

from __future__ import annotations

import argparse
import sys

from cuecard.core.cli.vault import add_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cuecard.core.vault._model import Conflict

DECISIONS = ("use-new", "keep-old", "keep-both", "defer")
_SHORT = {"n": "use-new", "o": "keep-old", "b": "keep-both", "d": "defer", "": "defer"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "adjudicate",
        description=(
            "Decide a queued conflict. use-new replaces the old canonical line with the new "
            "fact; keep-old drops the new fact; keep-both adds the new fact beside the old; "
            "defer leaves it in the queue. Every decision is logged. Without ID, asks about "
            "each conflict in turn on stdin (n/o/b/d, default defer). --json prints keys: "
            "decisions (each id, decision)."
        ),
    )
    parser.add_argument("id", nargs="?", help="conflict id (or a unique prefix)")
    parser.add_argument("--decision", choices=DECISIONS)
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend

    with open_backend(args) as vault:
        return _decide(args, vault.adjudicate, vault.conflicts)


def _decide(
    args: argparse.Namespace,
    decide: Callable[[str, str], Conflict],
    waiting: Callable[[], list[Conflict]],
) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.vault._render import clean

    made: list[dict[str, str]] = []
    if args.id is not None:
        if args.decision is None:
            raise UsageError("adjudicate ID needs --decision use-new|keep-old|keep-both|defer")
        conflict = decide(args.id, args.decision)
        made.append({"id": conflict.id, "decision": args.decision})
    else:
        if args.decision is not None:
            raise UsageError("--decision needs a conflict ID (see `cuecard vault conflicts`)")
        for conflict in waiting():
            print(f"[{conflict.id}] new: {clean(conflict.new)}", file=sys.stderr)
            print(f"           old: {clean(conflict.old)}", file=sys.stderr)
            print(
                "decision [n=use-new / o=keep-old / b=keep-both / d=defer] (default defer): ",
                end="",
                file=sys.stderr,
                flush=True,
            )
            answer = sys.stdin.readline()
            choice = answer.strip().lower()
            decision = _SHORT.get(choice[:1] if choice not in DECISIONS else choice, "defer")
            if choice in DECISIONS:
                decision = choice
            decide(conflict.id, decision)
            made.append({"id": conflict.id, "decision": decision})
            if not answer:
                break
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"decisions": made})
    else:
        for item in made:
            print(f"{item['id']}: {item['decision']}")
        if not made:
            print("no conflicts waiting")
    return 0
