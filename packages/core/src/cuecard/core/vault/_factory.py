"""Opening a vault: the one place that chooses a backend by its location.

Two implementations of ``_backend.Backend``: ``folder.FolderBackend`` is the Markdown folder (the
embedded default: notes, an inbox folder, a pending-list file, a conflict file, under a lock
file); ``postgres.PgBackend`` is a PostgreSQL database that many machines share, selected by a
``postgresql://`` URL in the vault setting. This module imports a backend's package only when
one is opened, and only that one: the cold search path opens a folder vault with the standard
library alone, and psycopg is imported only for a database.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cuecard.core.vault._backend import Backend
    from cuecard.core.vault.folder._vault import Vault

__all__ = ["open_backend"]


def _mirror(vault: Vault) -> None:
    """After a folder vault's change: copy its notes to the mirror database, when one is set."""
    from cuecard.core.vault.transfer._mirror import after_change

    after_change(vault)


def open_backend(location: str, *, notify: Callable[[str], None] | None = None) -> Backend:
    """The vault at a folder path or a ``postgresql://`` URL (schema checked). ``notify`` gets
    the lines a folder vault has for the user (waiting for its lock, a mirror not updated)."""
    from cuecard.core.vault._location import is_database_url

    if is_database_url(location):
        from cuecard.core.vault.postgres._backend import PgBackend

        return PgBackend.open(location)
    from cuecard.core.vault.folder._backend import FolderBackend

    return FolderBackend.open(location, on_change=_mirror, notify=notify)
