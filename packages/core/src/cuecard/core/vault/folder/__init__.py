"""The Markdown-folder vault: notes of fact lines, an inbox folder, a pending list and a conflict
file, written under a lock file with atomic replaces. Re-exported lazily: the folder backend,
``Vault`` and the operations on it, its lock, and its recall cache (``cache_dir``,
``notes_index``), which only a folder vault has.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.folder._archive import archive_session as archive_session
    from cuecard.core.vault.folder._backend import FolderBackend as FolderBackend
    from cuecard.core.vault.folder._conflicts import adjudicate as adjudicate
    from cuecard.core.vault.folder._conflicts import queue as queue
    from cuecard.core.vault.folder._forget import apply_forget as apply_forget
    from cuecard.core.vault.folder._forget import candidates as candidates
    from cuecard.core.vault.folder._init import init_vault as init_vault
    from cuecard.core.vault.folder._lock import vault_lock as vault_lock
    from cuecard.core.vault.folder._promote import apply_pending as apply_pending
    from cuecard.core.vault.folder._promote import review as review
    from cuecard.core.vault.folder._recall import cache_dir as cache_dir
    from cuecard.core.vault.folder._recall import notes_index as notes_index
    from cuecard.core.vault.folder._submit import submit as submit
    from cuecard.core.vault.folder._vault import Vault as Vault

_EXPORTS: dict[str, str] = {
    "FolderBackend": "cuecard.core.vault.folder._backend",
    "Vault": "cuecard.core.vault.folder._vault",
    "adjudicate": "cuecard.core.vault.folder._conflicts",
    "apply_forget": "cuecard.core.vault.folder._forget",
    "apply_pending": "cuecard.core.vault.folder._promote",
    "archive_session": "cuecard.core.vault.folder._archive",
    "cache_dir": "cuecard.core.vault.folder._recall",
    "candidates": "cuecard.core.vault.folder._forget",
    "init_vault": "cuecard.core.vault.folder._init",
    "notes_index": "cuecard.core.vault.folder._recall",
    "queue": "cuecard.core.vault.folder._conflicts",
    "review": "cuecard.core.vault.folder._promote",
    "submit": "cuecard.core.vault.folder._submit",
    "vault_lock": "cuecard.core.vault.folder._lock",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
