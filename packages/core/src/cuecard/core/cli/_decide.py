"""``cuecard accept|reject|archive REF``: a person's decision on one thing that waits.

The rules are core's (``cuecard.core.review.Decisions``), the same the review UI follows;
this module only reads the REF (see ``cuecard review --help``) and says what was done.
"""

from __future__ import annotations

import argparse
import textwrap

from cuecard.core.cli._reviewing import REFS, add_common, decisions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cuecard.core.lifecycle._decisions import Decision, Decisions

VERBS = {
    "accept": "Accept what REF names: a candidate or revision goes live (a revision supersedes "
    "the memory it revises), a contested memory is settled, an archive request is carried out, "
    "a batch is accepted whole, the vault's inbox or pending list is promoted, a vault conflict "
    "takes the new fact.",
    "reject": "Reject what REF names: a candidate is archived with the reason, an archive "
    "request is dismissed, a batch is rejected whole, a pending vault item is left out of the "
    "promotion, a vault conflict keeps the old fact.",
    "archive": "Archive what REF names: a live memory is retired (kept, no longer delivered), "
    "an archive request is carried out.",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for verb, text in VERBS.items():
        parser = sub.add_parser(
            verb,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            epilog=REFS,
            description=textwrap.fill(
                text + " `cuecard review` lists what waits, each with its REF. --json prints "
                "keys: ok, message, and what the decision did (id, done, refused, left, "
                "compile, warnings, …)."
            ),
        )
        parser.add_argument("ref", metavar="REF", help="what to decide (see below)")
        parser.add_argument(
            "--reason",
            default="",
            help="why, recorded with the decision (a rejection or an archive)",
        )
        parser.add_argument("--reviewer", help="name recorded with it (default: your login)")
        add_common(parser)
        parser.set_defaults(run=run, verb=verb)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli._output import emit_json

    done = decide(decisions(args, need_vault=_is_vault(args.ref)), args.verb, args.ref, args.reason)
    if args.json:
        emit_json(done.as_json())
        return 0
    print(done.message)
    for item in done.details.get("refused", []):
        print(f"  refused {str(item.get('id'))[:8]}: {'; '.join(item.get('reasons', []))}")
    for item in done.details.get("left", []):
        print(f"  left to you {str(item.get('id'))[:8]}: {item.get('reason')}")
    for line in done.warnings:
        print(f"cuecard: {line}", flush=True)
    return 0


def _is_vault(ref: str) -> bool:
    return ref in ("inbox", "pending") or ref.startswith(("pending:", "conflict:"))


def decide(desk: Decisions, verb: str, ref: str, reason: str = "") -> Decision:
    """Carry out ``verb`` on what ``ref`` names."""
    from cuecard.core.base._errors import NotFound, UsageError

    kind, _, name = ref.partition(":")
    if not name and kind not in ("inbox", "pending"):
        kind, name = "memory", ref
    name = name.strip()
    table: dict[tuple[str, str], Callable[[], Decision]] = {
        ("batch", "accept"): lambda: desk.decide_batch(name, "accept"),
        ("batch", "reject"): lambda: desk.decide_batch(name, "reject"),
        ("request", "accept"): lambda: desk.decide_request(name, "archive"),
        ("request", "archive"): lambda: desk.decide_request(name, "archive"),
        ("request", "reject"): lambda: desk.decide_request(name, "dismiss"),
        ("conflict", "accept"): lambda: desk.adjudicate(name, "use-new"),
        ("conflict", "reject"): lambda: desk.adjudicate(name, "keep-old"),
        ("inbox", "accept"): lambda: desk.apply_pending(auto=True),
        ("pending", "accept"): lambda: desk.apply_pending(auto=False),
        ("memory", "accept"): lambda: desk.accept(name),
        ("memory", "reject"): lambda: desk.reject(name, note=reason),
        ("memory", "archive"): lambda: desk.set_status(
            name, "archived", note=reason or f"archived by {desk.reviewer}"
        ),
    }
    if kind == "pending" and name:
        if verb != "reject":
            raise UsageError(
                "the pending list is promoted whole: `cuecard accept pending`; "
                "`cuecard reject pending:N` leaves one item out"
            )
        if not name.isdigit() or len(name) > 18:
            raise NotFound(f"pending item {name[:40]!r}: no such item")
        return desk.drop_pending(int(name))
    action = table.get((kind, verb))
    if action is None:
        if kind == "memory":
            raise UsageError(f"{ref[:60]!r} is not a REF: see `cuecard review --help`")
        raise UsageError(f"`cuecard {verb}` does not apply to {kind}: see `cuecard {verb} --help`")
    if kind == "memory":
        try:
            desk.store.get(name)
        except NotFound:
            if any(str(r.get("id", "")).startswith(name.lower()) for r in desk.requests()):
                return decide(desk, verb, f"request:{name}", reason)
            raise
    return action()
