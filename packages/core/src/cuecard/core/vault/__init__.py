"""The shared fact vault: layouts, submission, promotion, conflicts, forgetting, archives.

Two backends behind one interface (``Backend``, opened by ``open_backend``): the Markdown folder
(``vault.folder``) and PostgreSQL (``vault.postgres``); ``vault.transfer`` moves a vault between
them. Re-exported lazily, so the cold search path imports only what it uses.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._backend import Backend as Backend
    from cuecard.core.vault._backend import open_backend as open_backend
    from cuecard.core.vault._errors import NotAVault as NotAVault
    from cuecard.core.vault._errors import VaultBusy as VaultBusy
    from cuecard.core.vault._errors import VaultError as VaultError
    from cuecard.core.vault._errors import VaultExists as VaultExists
    from cuecard.core.vault._errors import database_error as database_error
    from cuecard.core.vault._layout import DEFAULT as DEFAULT
    from cuecard.core.vault._layout import LAYOUTS as LAYOUTS
    from cuecard.core.vault._layout import UAM as UAM
    from cuecard.core.vault._layout import Layout as Layout
    from cuecard.core.vault._layout import detect_layout as detect_layout
    from cuecard.core.vault._layout import vault_problem as vault_problem
    from cuecard.core.vault._location import resolve_vault_location as resolve_vault_location
    from cuecard.core.vault._location import resolve_vault_path as resolve_vault_path
    from cuecard.core.vault._model import Conflict as Conflict
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
    "Backend": "cuecard.core.vault._backend",
    "Conflict": "cuecard.core.vault._model",
    "DEFAULT": "cuecard.core.vault._layout",
    "FolderBackend": "cuecard.core.vault.folder._backend",
    "LAYOUTS": "cuecard.core.vault._layout",
    "Layout": "cuecard.core.vault._layout",
    "NotAVault": "cuecard.core.vault._errors",
    "UAM": "cuecard.core.vault._layout",
    "Vault": "cuecard.core.vault.folder._vault",
    "VaultBusy": "cuecard.core.vault._errors",
    "VaultError": "cuecard.core.vault._errors",
    "VaultExists": "cuecard.core.vault._errors",
    "database_error": "cuecard.core.vault._errors",
    "adjudicate": "cuecard.core.vault.folder._conflicts",
    "apply_forget": "cuecard.core.vault.folder._forget",
    "apply_pending": "cuecard.core.vault.folder._promote",
    "archive_session": "cuecard.core.vault.folder._archive",
    "cache_dir": "cuecard.core.vault.folder._recall",
    "candidates": "cuecard.core.vault.folder._forget",
    "detect_layout": "cuecard.core.vault._layout",
    "init_vault": "cuecard.core.vault.folder._init",
    "notes_index": "cuecard.core.vault.folder._recall",
    "open_backend": "cuecard.core.vault._backend",
    "queue": "cuecard.core.vault.folder._conflicts",
    "resolve_vault_location": "cuecard.core.vault._location",
    "resolve_vault_path": "cuecard.core.vault._location",
    "review": "cuecard.core.vault.folder._promote",
    "submit": "cuecard.core.vault.folder._submit",
    "vault_lock": "cuecard.core.vault.folder._lock",
    "vault_problem": "cuecard.core.vault._layout",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
