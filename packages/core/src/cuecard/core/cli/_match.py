"""``cuecard match``: what an event would deliver, and why."""

from __future__ import annotations

import argparse
import os

from cuecard.core.base._errors import UsageError
from cuecard.core.cli._output import emit_json

EVENT_KINDS = ("prompt", "read", "edit", "write", "run", "search")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "match",
        description=(
            "Build an event as a hook would and show what it delivers. With --command and no "
            "--event, the command is classified (read, search or run). --event write over a file "
            "that exists is an edit, as the hooks classify a Write; a --path outside the "
            "repository is an error (the hooks ignore it). With --session it claims "
            "in the ledger as a hook would, so a second identical call delivers nothing. --json "
            'prints keys: event ({"kind", "paths", "symbols", "command", "prompt"}), deliveries '
            '([{"id", "title", "dimension"}]), deferred ([{"id", "title"}]), size, text, and '
            'held_until (the event whose output carries them: null, or "Stop" for a harness '
            "that passes hook output on only when a turn ends, as Grok Build does)."
        ),
    )
    parser.add_argument("--event", choices=EVENT_KINDS, help="the event kind")
    parser.add_argument("--path", action="append", default=[], help="a path the event touches")
    parser.add_argument("--command", help="a shell command")
    parser.add_argument("--prompt", help="the user's prompt text")
    parser.add_argument("--symbol", action="append", default=[], help="an identifier it names")
    parser.add_argument("--session", default="", help="claim in this session's ledger")
    parser.add_argument("--agent", default="", help="a subagent id (its own ledger)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    _harness_option(parser)
    parser.set_defaults(run=run)


def _harness_option(parser: argparse.ArgumentParser) -> None:
    from cuecard.core.engine._limits import INLINE_LIMITS

    parser.add_argument(
        "--harness",
        choices=sorted(INLINE_LIMITS),
        help=(
            "deliver as this harness's hook would: within what the harness keeps inline as well "
            "as delivery_limit (default: delivery_limit alone)"
        ),
    )


def _hook_event(args: argparse.Namespace, event: object) -> str | None:
    """The hook event whose output carries ``event``'s memories to ``--harness``'s model:
    ``Stop`` for a harness that drops the output of the event itself; ``None`` without it."""
    from cuecard.core.engine._event import Event
    from cuecard.core.engine._limits import PASSED_ON

    if args.harness is None:
        return None
    assert isinstance(event, Event)
    hook_event = "UserPromptSubmit" if event.kind == "prompt" else "PreToolUse"
    passed_on = PASSED_ON.get(args.harness)
    return hook_event if passed_on is None or hook_event in passed_on else "Stop"


def _event(args: argparse.Namespace, root: str) -> object:
    from cuecard.core.engine._event import Event, command_event
    from cuecard.core.engine._paths import repo_relative

    cwd = os.getcwd()
    if args.command is not None:
        event = command_event(
            args.command, root, cwd=cwd, kind=args.event, session=args.session, agent=args.agent
        )
    elif args.prompt is not None:
        event = Event("prompt", prompt=args.prompt, session=args.session, agent=args.agent)
    elif args.event is None:
        raise UsageError("say what happens: --event KIND with --path, or --command, or --prompt")
    else:
        event = Event(args.event, session=args.session, agent=args.agent)
    paths = []
    for given in args.path:
        rel = repo_relative(given, root, cwd)
        if not rel:
            raise UsageError(
                f"--path {given}: outside the repository {root}; the hooks ignore such a path"
            )
        paths.append(rel)
    kind = args.event or event.kind
    if kind == "write" and paths and all(os.path.exists(os.path.join(root, p)) for p in paths):
        kind = "edit"  # as the hooks classify a Write over an existing file
    if args.prompt is not None and args.event not in (None, "prompt"):
        raise UsageError("--prompt makes a prompt event; leave out --event or use --event prompt")
    return event.replace(
        kind=kind,
        paths=tuple(dict.fromkeys([*event.paths, *paths])),
        symbols=tuple(args.symbol),
        prompt=args.prompt or "",
    )


def run(args: argparse.Namespace) -> int:
    from cuecard.core.engine._engine import handle
    from cuecard.core.engine._event import Event
    from cuecard.core.engine._limits import INLINE_LIMITS, hook_limit
    from cuecard.core.store._store import Store

    store = Store.open()
    event = _event(args, str(store.root))
    assert isinstance(event, Event)
    hook_event = _hook_event(args, event)
    limit = None if hook_event is None else hook_limit(INLINE_LIMITS[args.harness], hook_event)
    held = "Stop" if hook_event == "Stop" else None
    delivery = handle(str(store.root), event, limit=limit)
    if args.json:
        emit_json(
            {
                "event": event.as_dict(),
                **delivery.as_json(),
                "text": delivery.text,
                "held_until": held,
            }
        )
        return 0
    print(f"event: {event.describe()}")
    if limit is not None:
        print(
            f"as the {args.harness} hook delivers: within {limit:,} characters and delivery_limit"
        )
    if held:
        print(
            f"the {args.harness} harness drops what a hook prints at this event: the memories "
            "are held and reach the model when the turn ends (Stop), as feedback on the turn"
        )
    if not delivery.delivered and not delivery.deferred:
        print("nothing would be delivered")
        return 0
    for block in delivery.delivered:
        print(f"delivers {block.key[:8]}  {block.title}  (fired by {block.dimension})")
    for block in delivery.deferred:
        print(f"holds back {block.key[:8]}  {block.title}  (no room; arrives at its next event)")
    print(f"\n--- what the agent receives ({delivery.size} characters of knowledge) ---")
    print(delivery.text)
    return 0
