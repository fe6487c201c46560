"""The PostgreSQL vault: one database that many machines search and submit to at once (psycopg
is imported only when one is opened). Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.postgres._backend import PgBackend as PgBackend
    from cuecard.core.vault.postgres._vault import PgVault as PgVault
    from cuecard.core.vault.postgres._vault import open_pg as open_pg

_EXPORTS: dict[str, str] = {
    "PgBackend": "cuecard.core.vault.postgres._backend",
    "PgVault": "cuecard.core.vault.postgres._vault",
    "open_pg": "cuecard.core.vault.postgres._vault",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
