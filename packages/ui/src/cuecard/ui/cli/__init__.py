"""``cuecard ui`` (entry point ``cuecard.commands``); its module is imported when it runs."""

from __future__ import annotations

from cuecard.core.cli import Command

__all__ = ["register"]

register = Command(
    "ui",
    "serve the review UI for this project on a loopback port",
    "cuecard.ui.cli._ui",
)
