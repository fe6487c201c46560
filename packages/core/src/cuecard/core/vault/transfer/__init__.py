"""Moving a vault between the two backends: ``vault export`` and ``vault import`` (``pg_to_folder``,
``folder_to_pg``), and the mirror of a folder vault's notes to a database. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.transfer._mirror import mirror_notes as mirror_notes
    from cuecard.core.vault.transfer._transfer import folder_to_pg as folder_to_pg
    from cuecard.core.vault.transfer._transfer import pg_to_folder as pg_to_folder

_EXPORTS: dict[str, str] = {
    "folder_to_pg": "cuecard.core.vault.transfer._transfer",
    "mirror_notes": "cuecard.core.vault.transfer._mirror",
    "pg_to_folder": "cuecard.core.vault.transfer._transfer",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
