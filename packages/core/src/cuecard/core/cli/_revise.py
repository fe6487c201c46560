"""``cuecard revise ID``: propose a revision of a live memory (a candidate that replaces it)."""

from __future__ import annotations

import argparse
import textwrap

from cuecard.core.cli._memory_args import EVENT_KINDS, KINDS, TRIGGER_SYNTAX


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "revise",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=TRIGGER_SYNTAX,
        description=textwrap.fill(
            "Propose a revision of the live memory ID: a candidate with the fields given here "
            "changed and the others kept, which supersedes ID when accepted (`cuecard accept "
            "NEW-ID`, or --accept to accept it at once). Trigger flags, when given, replace "
            "all its trigger clauses with one. Prints the new id alone on stdout; --json "
            "prints keys: ok, message, id, revises, compile."
        ),
    )
    parser.add_argument("id", help="the live memory to revise (its id or a unique prefix)")
    parser.add_argument("--kind", choices=KINDS)
    parser.add_argument("--title")
    parser.add_argument("--body", help="the knowledge itself")
    parser.add_argument("--not-derivable", dest="not_derivable")
    parser.add_argument("--reason", default="", help="why it changes, kept with the candidate")
    parser.add_argument("--on", action="append", choices=EVENT_KINDS, default=[])
    parser.add_argument("--paths", action="append", default=[], metavar="GLOB")
    parser.add_argument("--commands", action="append", default=[], metavar="PATTERN")
    parser.add_argument("--symbols", action="append", default=[], metavar="NAME")
    parser.add_argument("--keywords", action="append", default=[], metavar="WORD")
    parser.add_argument("--accept", action="store_true", help="accept the revision at once")
    parser.add_argument("--reviewer", help="name recorded with it (default: your login)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.base._errors import UsageError
    from cuecard.core.cli._output import emit_json
    from cuecard.core.cli._reviewing import decisions

    changes: dict[str, object] = {
        k: getattr(args, k)
        for k in ("kind", "title", "body", "not_derivable")
        if getattr(args, k) is not None
    }
    narrowing = {k: getattr(args, k) for k in ("paths", "commands", "symbols", "keywords")}
    if any(narrowing.values()) and not args.on:
        raise UsageError("--paths, --commands, --symbols and --keywords need --on")
    if args.on:
        changes["triggers"] = [{"on": list(dict.fromkeys(args.on)), **narrowing}]
    if not changes:
        raise UsageError("say what changes: --title, --body, --kind, --not-derivable or --on …")
    desk = decisions(args)
    done = desk.revise(args.id, changes, reason=args.reason)
    if args.accept:
        accepted = desk.accept(str(done.details["id"]))
        done.message += f"; accepted: {accepted.message}"
        done.details["compile"] = accepted.details["compile"]
    if args.json:
        emit_json(done.as_json())
    else:
        print(done.details["id"])
        import sys

        print(f"cuecard: {done.message}", file=sys.stderr)
        if not args.accept:
            print(
                f"cuecard: accept it with `cuecard accept {str(done.details['id'])[:8]}`",
                file=sys.stderr,
            )
    return 0
