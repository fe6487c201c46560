"""One row of a command table. Standard library only, and not even that: every ``cuecard`` run
imports the tables."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["Command"]


class Command:
    """A subcommand as its group's table lists it: its ``name``, the one line ``help`` its group's
    ``--help`` shows, and the ``module`` whose ``register(subparsers)`` adds its parser (and sets
    ``run``). The module is imported only when the command is chosen.

    Calling a ``Command`` registers it, so it serves as a ``cuecard.commands`` entry point.
    """

    __slots__ = ("help", "module", "name")

    def __init__(self, name: str, help: str, module: str) -> None:
        self.name = name
        self.help = help
        self.module = module

    def __call__(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add this command to a group: lazily to a group made by ``add_subcommands`` (or the
        ``cuecard`` command itself: its ``add_lazy``), else at once, with the table's help line."""
        add_lazy = getattr(subparsers, "add_lazy", None)
        if add_lazy is not None:
            add_lazy(self)
            return
        import importlib

        importlib.import_module(self.module).register(subparsers)
        choice = subparsers._ChoicesPseudoAction(self.name, (), self.help)
        subparsers._choices_actions.append(choice)

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.help!r}, {self.module!r})"
