"""The ``cuecard install``, ``cuecard uninstall`` and ``cuecard demo`` commands.

Each is a ``cuecard.commands`` entry point (a ``Command``: name, help line, module); its module is
imported only when it runs, and heavy imports stay inside ``run``. ``cuecard install`` finds the
harnesses other distributions install through the entry-point group ``cuecard.installers``.
"""

from __future__ import annotations

from cuecard.core.cli import Command

__all__ = ["COMMANDS", "register_demo", "register_install", "register_uninstall"]

register_install = Command(
    "install",
    "make a harness (claude, codex, opencode, grok, dsh) run cuecard's hooks",
    "cuecard.hooks.cli._install",
)
register_uninstall = Command(
    "uninstall",
    "remove cuecard's hooks and skills from a harness",
    "cuecard.hooks.cli._uninstall",
)
register_demo = Command(
    "demo",
    "watch cuecard deliver memories in a replayed Claude Code session",
    "cuecard.hooks.cli._demo",
)

COMMANDS: dict[str, Command] = {
    c.name: c for c in (register_install, register_uninstall, register_demo)
}
