"""What the note and search functions need of a PostgreSQL vault: its connection.

Typed structurally, so those modules do not import ``_vault`` (which imports them).
"""

from __future__ import annotations

from typing import Any, Protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg

__all__ = ["Connected"]


class Connected(Protocol):
    """Anything holding an open psycopg connection (a ``PgVault``)."""

    @property
    def conn(self) -> psycopg.Connection[tuple[Any, ...]]: ...

    def alone(self, sql: Any, params: Any = None) -> list[tuple[Any, ...]]:
        """The rows of one statement run as its own transaction (see ``PgVault.alone``)."""
        ...
