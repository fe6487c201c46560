"""``cuecard review``: what waits for a person, in the terminal.

What it lists and what ``cuecard accept|reject|archive|revise`` do are core's decisions
(``cuecard.core.review.Decisions``), the same the review UI makes.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from cuecard.core.cli._reviewing import REFS, add_common, decisions


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "review",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=REFS,
        description=textwrap.fill(
            "List what waits for a person: candidates, revisions, contested memories, archive "
            "requests, batches, and (when a vault is configured) the vault's inbox submissions, "
            "pending promotions and conflicts. Each line starts with the REF to give `cuecard "
            "accept`, `reject` or `archive`; `cuecard revise ID` proposes a revision of a live "
            "memory. The same decisions as the review UI (`cuecard ui`, from the cuecard-ui "
            "distribution). --json prints keys: "
            "candidates, revisions, contested, requests, batches, problems, vault (null without "
            "one; else location, inbox, pending, conflicts, error)."
        ),
    )
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._output import emit_json

    waiting = decisions(args).waiting()
    if args.json:
        emit_json(waiting)
        return 0
    for line in lines(waiting):
        print(line)
    return 0


def lines(waiting: dict[str, Any]) -> list[str]:
    """What ``cuecard review`` prints: each queue with its hint, then its items."""
    from cuecard.core.vault._render import clean

    out: list[str] = []

    def say(title: str, items: list[str], hint: str) -> None:
        if items:
            out.append(f"{title} ({len(items)}): {hint}")
            out.extend(f"  {item}" for item in items)

    def memory(row: dict[str, Any]) -> str:
        line = f"{str(row['id'])[:8]}  {clean(str(row['topic']))}  {clean(str(row['title']))}"
        if row.get("revises"):
            line += f"  (revises {str(row['revises'])[:8]})"
        if row.get("batch"):
            line += f"  [batch {clean(str(row['batch']))}]"
        return line

    def rows(key: str) -> list[dict[str, Any]]:
        value = waiting.get(key)
        return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []

    say(
        "candidates",
        [memory(r) for r in rows("candidates")],
        "`cuecard accept ID` makes one live, `cuecard reject ID` archives it",
    )
    say(
        "revisions",
        [memory(r) for r in rows("revisions")],
        "`cuecard accept ID` supersedes the memory it revises",
    )
    say(
        "contested",
        [memory(r) for r in rows("contested")],
        "`cuecard accept ID` settles it, `cuecard archive ID` retires it",
    )
    say(
        "archive requests",
        [
            f"request:{str(r['id'])[:8]}  archive {str(r['target'])[:8]} "
            f"{clean(str(r.get('target_title') or '(unknown)'))!r}: {clean(str(r['reason']))}"
            for r in rows("requests")
        ],
        "`cuecard accept request:ID` archives the memory, `cuecard reject request:ID` "
        "dismisses the request",
    )
    say(
        "batches",
        [
            f"batch:{clean(str(b['name']))}  {len(b['candidates'])} candidate(s), "
            f"{len(b['requests'])} request(s)"
            for b in rows("batches")
        ],
        "`cuecard accept batch:NAME` or `cuecard reject batch:NAME` decides it whole",
    )
    vault = waiting.get("vault")
    if isinstance(vault, dict):
        if vault.get("error"):
            out.append(f"vault: cannot be read: {clean(str(vault['error']))}")
        inbox = vault.get("inbox") or []
        say(
            "vault inbox",
            [clean(str(name)) for name in inbox],
            "`cuecard accept inbox` promotes them (a conflict is queued); `cuecard vault "
            "review` lists them first",
        )
        say(
            "vault pending",
            [f"pending:{p['id']}  {clean(str(p['fact']))}" for p in vault.get("pending") or []],
            "`cuecard accept pending` promotes the list, `cuecard reject pending:N` leaves one out",
        )
        say(
            "vault conflicts",
            [
                f"conflict:{c['id']}  new: {clean(str(c['new']))}  old: {clean(str(c['old']))}"
                for c in vault.get("conflicts") or []
            ],
            "`cuecard accept conflict:ID` uses the new fact, `cuecard reject conflict:ID` keeps "
            "the old",
        )
    problems = waiting.get("problems")
    if isinstance(problems, list):
        out.extend(f"problem: {clean(str(p))}" for p in problems)
    if not out:
        out.append("nothing waits for you")
    return out
