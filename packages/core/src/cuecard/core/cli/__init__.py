"""The ``cuecard`` command line.

Built-in commands come from a fixed table (``BUILTINS``: name, help line, module) and are
dispatched before any entry point is scanned; satellite distributions add commands through the
``cuecard.commands`` entry-point group, each entry a callable ``register(subparsers)`` that adds
its parser and sets ``run=callable(args)`` (a ``Command`` is one). Only the chosen command's
module is imported, and of the entry points only the one named on the command line.
"""

from __future__ import annotations

import io
import sys

from cuecard.core.base._lazy import lazy_exports as _lazy_exports
from cuecard.core.cli._command import Command as Command

TYPE_CHECKING = False  # every cuecard run imports this module: typing is not worth its import
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from cuecard.core.cli._output import emit_json as emit_json
    from cuecard.core.cli._output import run_command as run_command
    from cuecard.core.cli._subcommands import add_subcommands as add_subcommands

# Satellites' commands print and exit through these, as the built-in commands do, and build their
# groups with add_subcommands.
_EXPORTS: dict[str, str] = {
    "add_subcommands": "cuecard.core.cli._subcommands",
    "emit_json": "cuecard.core.cli._output",
    "run_command": "cuecard.core.cli._output",
}

__all__ = sorted(["BUILTINS", "ENTRY_POINT_GROUP", "Command", "build_parser", "main", *_EXPORTS])

_DECIDE = "cuecard.core.cli._decide"  # accept, reject and archive share one module

# The built-in commands, in the order `cuecard --help` lists them; each module is imported only
# when its command runs.
BUILTINS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "init",
            "opt this project in: write .cuecard/ (config, .gitignore, memories/, inbox/)",
            "cuecard.core.cli._init",
        ),
        Command(
            "add",
            "add a memory of your own (active at once); prints its id",
            "cuecard.core.cli._add",
        ),
        Command("list", "list memories", "cuecard.core.cli._list"),
        Command(
            "review",
            "what waits for a person: candidates, requests, batches, the vault's inbox",
            "cuecard.core.cli._review",
        ),
        Command("accept", "accept a candidate, a request, a batch, a vault item", _DECIDE),
        Command("reject", "reject a candidate, a request, a batch, a vault item", _DECIDE),
        Command("archive", "archive a live memory (kept, no longer delivered)", _DECIDE),
        Command(
            "revise",
            "propose a revision of a live memory (a candidate that replaces it)",
            "cuecard.core.cli._revise",
        ),
        Command("show", "show one memory", "cuecard.core.cli._show"),
        Command("status", "what cuecard holds for this project", "cuecard.core.cli._status"),
        Command("schema", "print the JSON Schema of a record", "cuecard.core.cli._schema"),
        Command(
            "vault",
            "the shared fact vault: submit, search, review, apply, adjudicate, forget",
            "cuecard.core.cli.vault",
        ),
        Command(
            "mcp",
            "serve the memory tools to any harness over MCP (stdio)",
            "cuecard.core.cli._mcp",
        ),
        Command(
            "recall",
            "search this project's memories and, when one is configured, the vault",
            "cuecard.core.cli._recall",
        ),
        Command(
            "compile", "rebuild the trigger index in .cuecard/local/", "cuecard.core.cli._compile"
        ),
        Command("match", "show what an event would deliver, and why", "cuecard.core.cli._match"),
        Command(
            "ingest",
            "ingest proposals from .cuecard/inbox/ (or the files named)",
            "cuecard.core.cli._ingest",
        ),
        Command(
            "maintain",
            "roll up and prune session files, retire unused memories, refresh similarity",
            "cuecard.core.cli._maintain",
        ),
        Command(
            "health",
            "dead triggers, unused memories, hubs, false alarms, stale evidence, capture funnel",
            "cuecard.core.cli._health",
        ),
        Command(
            "doctor",
            "is cuecard working in this project? (exit 1 on a problem)",
            "cuecard.core.cli._doctor",
        ),
        Command(
            "import",
            "turn .claude/rules, .cursor/rules and other agents' rules into memories",
            "cuecard.core.cli._import",
        ),
        Command(
            "migrate",
            "convert a DeltaDictum store (.dd/atoms, schema 7) into cuecard memories",
            "cuecard.core.cli._migrate",
        ),
        Command(
            "export",
            "write live path-scoped memories as claude, cursor or AGENTS.md rules",
            "cuecard.core.cli._export",
        ),
        Command(
            "completion",
            "print a bash or zsh completion script for the commands installed here",
            "cuecard.core.cli._completion",
        ),
    )
}

ENTRY_POINT_GROUP = "cuecard.commands"


def _add_entry_points(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], chosen: str | None
) -> None:
    """The satellites' commands: only ``chosen``'s entry point when one has that name, else all
    (for ``--help`` and the list of choices)."""
    from importlib.metadata import entry_points

    found = [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name not in BUILTINS]
    named = [e for e in found if e.name == chosen]
    for entry in sorted(named or found, key=lambda e: e.name):
        try:
            entry.load()(subparsers)
        except Exception as exc:  # a broken satellite must not take the built-ins down
            print(
                f"cuecard: warning: command {entry.name!r} failed to load: {exc}", file=sys.stderr
            )


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class Parser(argparse.ArgumentParser):
        """An argument parser that never guesses (``--secret`` is not ``--secret-file``) and
        never prints back a value it refuses: a credential pasted into ``--kind`` stays off the
        screen and out of logs. Every command's parser is one (subparsers inherit the class)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("allow_abbrev", False)
            super().__init__(*args, **kwargs)

        def _check_value(self, action: argparse.Action, value: Any) -> None:
            choices = action.choices
            if choices is not None and value not in choices:
                allowed = ", ".join(str(choice) for choice in choices)
                raise argparse.ArgumentError(action, f"choose one of: {allowed}")

    return Parser


def _versions() -> str:
    """``cuecard X``, then one line per installed cuecard distribution: ``cuecard-hooks 0.1.0``."""
    from importlib.metadata import distributions

    from cuecard.core.__about__ import __version__

    found: dict[str, str] = {}
    for dist in distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name.startswith("cuecard-") and name not in found:
            found[name] = dist.version
    lines = [f"cuecard {__version__}", *(f"{n} {v}" for n, v in sorted(found.items()))]
    return "\n".join(lines)


def _version_action() -> type[argparse.Action]:
    import argparse

    class Version(argparse.Action):
        """``--version``: the versions are read only when it is given."""

        def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
            print(_versions())
            parser.exit()

    return Version


def _root_parser(chosen: str | None, *, with_entry_points: bool) -> argparse.ArgumentParser:
    from cuecard.core.cli._subcommands import add_subcommands

    parser_class = _parser_class()
    parser = parser_class(
        prog="cuecard",
        description=(
            "cuecard keeps the project knowledge an agent cannot derive from the code and "
            "delivers each piece at the action it applies to."
        ),
        epilog=(
            "Exit status: 0 success, 1 refused or failed, 2 usage error, 141 the reader closed "
            "the pipe (quietly). Messages go to stderr."
        ),
    )
    parser.add_argument(
        "--version",
        action=_version_action(),
        nargs=0,
        help="print cuecard's version and that of every installed cuecard distribution",
    )
    subparsers = add_subcommands(
        parser, BUILTINS.values(), dest="command", parser_class=parser_class
    )
    if with_entry_points:
        _add_entry_points(subparsers, chosen)
    return parser


def build_parser(*, with_entry_points: bool = True) -> argparse.ArgumentParser:
    """The whole parser, every command's module loaded (for docs and tests; ``main`` loads only
    the chosen command)."""
    from cuecard.core.cli._subcommands import load_everything

    parser = _root_parser(None, with_entry_points=with_entry_points)
    load_everything(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cuecard ARGS``; returns the exit status. A reader that closes the pipe early
    (``cuecard list | head -1``) ends it quietly, without a traceback, with status 141."""
    try:
        try:
            code = _main(argv)
        finally:  # also after --help's SystemExit: a closed pipe fails here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        from cuecard.core.cli._output import closed_pipe

        return closed_pipe()
    return code


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    from cuecard.core.base._decoding import check_arguments
    from cuecard.core.base._errors import BadInput

    try:  # every command takes text only: an argument that is not UTF-8 stops it here
        check_arguments(args_list)
    except BadInput as exc:
        print(f"cuecard: {exc}", file=sys.stderr)
        return 1
    if isinstance(sys.stdin, io.TextIOWrapper):  # and so does its standard input
        sys.stdin.reconfigure(errors="strict")
    from cuecard.core.cli._fast import fast_command

    fast = fast_command(args_list)  # per-call commands skip argparse and the other modules
    if fast is not None:
        return fast()
    from cuecard.core.cli._output import run_command

    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = _root_parser(first, with_entry_points=first not in BUILTINS)
    args = parser.parse_args(args_list)
    if getattr(args, "run", None) is None:  # a group without its subcommand: list everything
        _root_parser(None, with_entry_points=first not in BUILTINS).print_help(sys.stderr)
        return 2
    return run_command(args.run, args)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
