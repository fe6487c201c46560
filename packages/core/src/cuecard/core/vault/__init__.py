"""The shared fact vault's interface: the backend protocol (``Backend``), opening one
(``open_backend``), its value types, layouts, locations and errors.

Two backends implement it: the Markdown folder (``vault.folder``, which also publishes what only
a folder has: ``Vault``, its lock, its recall cache) and PostgreSQL (``vault.postgres``);
``vault.transfer`` moves a vault between them. Nothing here is backend-specific. Re-exported
lazily, so the cold search path imports only what it uses.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._backend import Backend as Backend
    from cuecard.core.vault._errors import NotAVault as NotAVault
    from cuecard.core.vault._errors import VaultBusy as VaultBusy
    from cuecard.core.vault._errors import VaultError as VaultError
    from cuecard.core.vault._errors import VaultExists as VaultExists
    from cuecard.core.vault._errors import database_error as database_error
    from cuecard.core.vault._factory import open_backend as open_backend
    from cuecard.core.vault._layout import DEFAULT as DEFAULT
    from cuecard.core.vault._layout import LAYOUTS as LAYOUTS
    from cuecard.core.vault._layout import UAM as UAM
    from cuecard.core.vault._layout import Layout as Layout
    from cuecard.core.vault._layout import detect_layout as detect_layout
    from cuecard.core.vault._layout import vault_problem as vault_problem
    from cuecard.core.vault._location import resolve_vault_location as resolve_vault_location
    from cuecard.core.vault._location import resolve_vault_path as resolve_vault_path
    from cuecard.core.vault._model import Conflict as Conflict

_EXPORTS: dict[str, str] = {
    "Backend": "cuecard.core.vault._backend",
    "Conflict": "cuecard.core.vault._model",
    "DEFAULT": "cuecard.core.vault._layout",
    "LAYOUTS": "cuecard.core.vault._layout",
    "Layout": "cuecard.core.vault._layout",
    "NotAVault": "cuecard.core.vault._errors",
    "UAM": "cuecard.core.vault._layout",
    "VaultBusy": "cuecard.core.vault._errors",
    "VaultError": "cuecard.core.vault._errors",
    "VaultExists": "cuecard.core.vault._errors",
    "database_error": "cuecard.core.vault._errors",
    "detect_layout": "cuecard.core.vault._layout",
    "open_backend": "cuecard.core.vault._factory",
    "resolve_vault_location": "cuecard.core.vault._location",
    "resolve_vault_path": "cuecard.core.vault._location",
    "vault_problem": "cuecard.core.vault._layout",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
