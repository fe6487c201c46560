"""Subcommands registered lazily: a group's parser lists every command of its table (name and
help line) at once, and imports a command's module only when that command is chosen."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from typing import Any, cast

__all__ = ["LazySubParsers", "add_subcommands", "load_everything"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.cli._command import Command

    _Base = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _Base = argparse._SubParsersAction


class LazySubParsers(_Base):
    """The subparsers of one group. A command added with ``add_lazy`` has a placeholder parser
    until it is chosen (or ``load`` is called); then its module's ``register(self)`` adds the
    real one in its place, and the help line stays the table's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._waiting: dict[str, str] = {}  # name -> module, for commands not loaded yet

    def add_lazy(self, command: Command) -> None:
        super().add_parser(command.name, help=command.help)
        self._waiting[command.name] = command.module

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if self._waiting.pop(name, None) is not None:  # the real parser for a listed command
            del self._name_parser_map[name]
            kwargs.pop("help", None)  # listed already, with the table's line
        return super().add_parser(name, **kwargs)

    def load(self, name: str) -> argparse.ArgumentParser:
        """The parser of ``name``, importing its module first if it was not loaded yet."""
        module = self._waiting.get(name)
        if module is not None:
            importlib.import_module(module).register(self)
            if name in self._waiting:
                raise ImportError(f"{module} has no parser for {name!r}")
        return self._name_parser_map[name]

    def drop(self, name: str) -> None:
        """Leave ``name`` out of the group (its module failed to load)."""
        self._waiting.pop(name, None)
        self._name_parser_map.pop(name, None)
        self._choices_actions[:] = [a for a in self._choices_actions if a.dest != name]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = cast("Sequence[str]", values)[0]
        if name in self._waiting:
            try:
                self.load(name)
            except ImportError as exc:  # as if the command were not there
                warn_failed(name, exc)
                parser.error(f"argument {self.metavar}: command {name!r} is not available")
        super().__call__(parser, namespace, values, option_string)


def warn_failed(name: str, exc: BaseException) -> None:
    print(f"cuecard: warning: command {name!r} failed to load: {exc}", file=sys.stderr)


def add_subcommands(
    parser: argparse.ArgumentParser,
    commands: Iterable[Command],
    *,
    dest: str,
    metavar: str = "COMMAND",
    **kwargs: Any,
) -> LazySubParsers:
    """Give ``parser`` the subcommands of a table, each module imported only when chosen."""
    sub = parser.add_subparsers(action=LazySubParsers, dest=dest, metavar=metavar, **kwargs)
    for command in commands:
        command(sub)
    return cast(LazySubParsers, sub)


def load_everything(parser: argparse.ArgumentParser) -> None:
    """Load every command of ``parser``'s groups, all the way down (docs and tests read the
    whole tree); a command whose module fails to import is left out, with a warning."""
    for action in parser._actions:
        if isinstance(action, LazySubParsers):
            for name in list(action.choices):
                try:
                    child = action.load(name)
                except ImportError as exc:
                    warn_failed(name, exc)
                    action.drop(name)
                    continue
                load_everything(child)
