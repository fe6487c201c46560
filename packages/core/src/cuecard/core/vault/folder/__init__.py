"""The Markdown-folder vault: notes of fact lines, an inbox folder, a pending list and a conflict
file, written under a lock file with atomic replaces. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.folder._backend import FolderBackend as FolderBackend
    from cuecard.core.vault.folder._init import init_vault as init_vault
    from cuecard.core.vault.folder._lock import vault_lock as vault_lock
    from cuecard.core.vault.folder._vault import Vault as Vault

_EXPORTS: dict[str, str] = {
    "FolderBackend": "cuecard.core.vault.folder._backend",
    "Vault": "cuecard.core.vault.folder._vault",
    "init_vault": "cuecard.core.vault.folder._init",
    "vault_lock": "cuecard.core.vault.folder._lock",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
