"""A folder vault mirrored to PostgreSQL, for people who keep the folder open in Obsidian.

The folder stays the vault: agents on this machine submit to its inbox and a person edits its
notes by hand. The database is a read copy that agents on other machines search: after each
``apply``, ``adjudicate`` and ``forget --apply`` on the folder (and whenever ``vault mirror``
runs, which picks up hand edits), every canonical note's text is written to the database and
its facts re-derived, in one transaction; a note the folder no longer has is removed there.
One way only: nothing flows back from the database.

Turned on by ``CUECARD_VAULT_MIRROR`` or ``vault_mirror`` in the user config file, a
``postgresql://`` URL without a password (``PGPASSWORD`` or a pgpass file supplies it) naming
a database that ``vault migrate-db`` has prepared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from cuecard.core.base._errors import ConfigError
from cuecard.core.vault.folder._vault import Vault

__all__ = ["MIRROR_ENV", "Mirrored", "after_change", "mirror_location", "mirror_notes"]

MIRROR_ENV = "CUECARD_VAULT_MIRROR"


@dataclass
class Mirrored:
    """What one mirror run wrote."""

    url: str
    notes: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    facts: int = 0


def mirror_location() -> str | None:
    """The database a folder vault mirrors to, or None when no mirror is set."""
    from cuecard.core.vault._location import (
        check_database_url,
        is_database_url,
        user_config_path,
    )

    value = os.environ.get(MIRROR_ENV)
    origin = MIRROR_ENV
    if not value:
        path = user_config_path()
        if not os.path.isfile(path):
            return None
        import tomllib

        try:
            with open(path, "rb") as handle:
                value = tomllib.load(handle).get("vault_mirror")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        origin = f"{path}: key `vault_mirror`"
        if value is None:
            return None
    if not isinstance(value, str) or not is_database_url(value):
        raise ConfigError(f"{origin}: must be a postgresql:// URL")
    return check_database_url(origin, value)


def mirror_notes(vault: Vault, url: str) -> Mirrored:
    """Write every canonical note of the folder to the database at ``url``, in one transaction."""
    from cuecard.core.vault.postgres._notes import lock_note, store_note
    from cuecard.core.vault.postgres._vault import NOTE_IDS, open_pg

    done = Mirrored(url)
    texts: dict[str, str | None] = {}
    for note in NOTE_IDS:
        path = vault.note_file(note)
        texts[note] = vault.read(path) if vault.tree.is_file(vault.rel(path)) else None
    with open_pg(url) as pg, pg.conn.transaction():
        for note, text in texts.items():
            if text is None:
                gone = pg.conn.execute("DELETE FROM cuecard_notes WHERE note = %s", (note,))
                pg.conn.execute("DELETE FROM cuecard_facts WHERE note = %s", (note,))
                if gone.rowcount:
                    done.removed.append(note)
                continue
            lock_note(pg, note)
            done.facts += store_note(pg, note, text)
            done.notes.append(note)
    return done


def after_change(vault: Vault) -> None:
    """Copy the notes to the mirror database when one is set: the folder backend's change hook
    (``open_backend`` installs it). A failure only warns, through ``vault.notify``: the folder
    is the vault, and the next write or ``vault mirror`` catches up."""
    try:
        url = mirror_location()
        if url is not None:
            mirror_notes(vault, url)
    except Exception as exc:  # the folder's change is done; the copy must not undo it
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if vault.notify is not None:
            vault.notify(
                f"warning: the vault mirror was not updated ({reason}); "
                "`cuecard vault mirror` retries"
            )
