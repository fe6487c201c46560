"""``cuecard add``: a person's explicit memory, active at once."""

from __future__ import annotations

import argparse
import textwrap

from cuecard.core.base._errors import UsageError
from cuecard.core.cli._memory_args import EVENT_KINDS, KINDS, TRIGGER_SYNTAX


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "add",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=TRIGGER_SYNTAX,
        description=textwrap.fill(
            "Add a person's explicit memory: origin user_explicit, status active. The repeated "
            "trigger flags of one call make one trigger clause: --on names the event kinds, and "
            "--paths, --commands, --symbols and --keywords narrow them. With no trigger flags the "
            "memory has no trigger and is found by recall only. The hooks' index is compiled "
            "afterwards, so the next hook event pays nothing for it. Prints the new id alone on "
            "stdout."
        ),
    )
    parser.add_argument(
        "--topic", required=True, help="lowercase, /-separated, e.g. billing/retries"
    )
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--title", required=True)
    parser.add_argument("--body", required=True, help="the knowledge itself")
    parser.add_argument(
        "--not-derivable",
        required=True,
        dest="not_derivable",
        help="why a capable agent reading the code would not work this out",
    )
    parser.add_argument("--on", action="append", choices=EVENT_KINDS, default=[], help="event kind")
    parser.add_argument(
        "--paths", action="append", default=[], metavar="GLOB", help="a file glob (see below)"
    )
    parser.add_argument(
        "--commands",
        action="append",
        default=[],
        metavar="PATTERN",
        help="the words a command starts with (see below)",
    )
    parser.add_argument(
        "--symbols", action="append", default=[], metavar="NAME", help="an identifier"
    )
    parser.add_argument(
        "--keywords",
        action="append",
        default=[],
        metavar="WORD",
        help="a word or phrase of the prompt (see below)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    narrowing = {
        "paths": args.paths,
        "commands": args.commands,
        "symbols": args.symbols,
        "keywords": args.keywords,
    }
    if any(narrowing.values()) and not args.on:
        used = ", ".join(f"--{name}" for name, values in narrowing.items() if values)
        raise UsageError(f"{used} narrow a trigger clause; name its event kinds with --on")
    triggers = [{"on": list(dict.fromkeys(args.on)), **narrowing}] if args.on else []

    from cuecard.core.store._store import Store
    from cuecard.core.store._validate import validate_memory

    store = Store.open()
    now = store.now().isoformat()
    memory = validate_memory(
        {
            "topic": args.topic.strip().lower(),
            "kind": args.kind,
            "status": "active",
            "title": args.title,
            "body": args.body,
            "not_derivable": args.not_derivable,
            "triggers": triggers,
            "origin": "user_explicit",
            "source": "cli",
            "created_at": now,
            "updated_at": now,
        }
    )
    saved = store.add(memory)
    print(saved.id)
    from cuecard.core.cli._compile import compile_after_change

    compile_after_change(store)
    return 0
