"""The vault as the DSH tools reach it: core's ``VaultClient`` (``cuecard vault …`` and
``cuecard recall`` run in this process), shared with the MCP server."""

from __future__ import annotations

from cuecard.core.tools import (
    PROJECT_NOTE,
    CliRunner,
    VaultClient,
    find_project,
    run_core_cli,
    session_project,
    vault_location,
)

__all__ = [
    "PROJECT_NOTE",
    "CliRunner",
    "VaultClient",
    "find_project",
    "run_core_cli",
    "session_project",
    "vault_location",
]
