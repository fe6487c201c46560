"""The ``cuecard`` command line.

Built-in commands come from a fixed table and are dispatched before any entry point is scanned;
satellite distributions add commands through the ``cuecard.commands`` entry-point group, each
entry a callable ``register(subparsers)`` that adds its parser and sets ``run=callable(args)``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from cuecard.core.__about__ import __version__
from cuecard.core._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from cuecard.core.cli._output import emit_json as emit_json
    from cuecard.core.cli._output import run_command as run_command

# Satellites' commands print and exit through these, as the built-in commands do.
_EXPORTS: dict[str, str] = {
    "emit_json": "cuecard.core.cli._output",
    "run_command": "cuecard.core.cli._output",
}

__all__ = sorted(["BUILTINS", "ENTRY_POINT_GROUP", "build_parser", "main", *_EXPORTS])

# name -> module holding register(subparsers); one module per command.
BUILTINS: dict[str, str] = {
    "init": "cuecard.core.cli._init",
    "add": "cuecard.core.cli._add",
    "list": "cuecard.core.cli._list",
    "show": "cuecard.core.cli._show",
    "status": "cuecard.core.cli._status",
    "schema": "cuecard.core.cli._schema",
    "vault": "cuecard.core.cli.vault",
    "recall": "cuecard.core.cli._recall",
    "compile": "cuecard.core.cli._compile",
    "match": "cuecard.core.cli._match",
    "ingest": "cuecard.core.cli._ingest",
    "maintain": "cuecard.core.cli._maintain",
    "health": "cuecard.core.cli._health",
    "doctor": "cuecard.core.cli._doctor",
    "import": "cuecard.core.cli._import",
    "migrate": "cuecard.core.cli._migrate",
    "export": "cuecard.core.cli._export",
}

ENTRY_POINT_GROUP = "cuecard.commands"


def _add_entry_points(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from importlib.metadata import entry_points

    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if entry.name in BUILTINS:
            continue
        try:
            entry.load()(subparsers)
        except Exception as exc:  # a broken satellite must not take the built-ins down
            print(
                f"cuecard: warning: command {entry.name!r} failed to load: {exc}", file=sys.stderr
            )


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class Parser(argparse.ArgumentParser):
        """An argument parser that never guesses: ``--secret`` is not ``--secret-file``."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("allow_abbrev", False)
            super().__init__(*args, **kwargs)

    return Parser


def build_parser(*, with_entry_points: bool = True) -> argparse.ArgumentParser:
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
    parser.add_argument("--version", action="version", version=f"cuecard {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for name, module in BUILTINS.items():
        try:
            importlib.import_module(module).register(subparsers)
        except ImportError as exc:  # one broken command must not take the others down
            print(f"cuecard: warning: command {name!r} failed to load: {exc}", file=sys.stderr)
    if with_entry_points:
        _add_entry_points(subparsers)
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
    from cuecard.core.cli._fast import fast_command

    fast = fast_command(args_list)  # per-call commands skip argparse and the other modules
    if fast is not None:
        return fast()
    from cuecard.core.cli._output import run_command

    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(with_entry_points=first not in BUILTINS)
    args = parser.parse_args(args_list)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return 2
    return run_command(args.run, args)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
