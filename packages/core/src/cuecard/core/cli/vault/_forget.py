"""``cuecard vault forget``: move stale, unprotected, unused facts aside (dry run by default)."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def _days(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--days {value!r} must be a whole number") from None
    if not 1 <= number <= 36_500:
        raise argparse.ArgumentTypeError(f"--days {number} must be between 1 and 36500")
    return number


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "forget",
        description=(
            "A fact is forgotten when its promotion stamp is at least --days old, it names "
            "nothing protected (paths, servers, ports, accounts, rules, agents, ..., or #keep) "
            "and no search or show returned it within --days. Without --apply nothing changes. "
            "--apply moves the lines to the forgotten folder (one file per note; reversible, "
            "nothing is deleted). --json prints keys: applied, days, candidates (each note, id, "
            "line, stamped, last_used)."
        ),
    )
    parser.add_argument("--apply", action="store_true", help="move the candidates")
    parser.add_argument("--days", type=_days, default=90, help="staleness in days (90)")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._render import clean

    with open_backend(args) as vault:
        found = vault.forget(today=vault.today(), days=args.days, apply=args.apply)
        forgotten = vault.places.forgotten
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "applied": args.apply,
                "days": args.days,
                "candidates": [
                    {
                        "note": c.note,
                        "id": c.id,
                        "line": clean(c.line),
                        "stamped": c.stamped.isoformat(),
                        "last_used": c.last_used.isoformat() if c.last_used else None,
                    }
                    for c in found
                ],
            }
        )
        return 0
    verb = "moved" if args.apply else "dry run: would move"
    print(f"{verb} {len(found)} line(s) to {forgotten} (reversible)")
    for c in found:
        print(f"  {c.note}: {clean(c.line)[:90]}")
    return 0
