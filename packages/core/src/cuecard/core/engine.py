"""The trigger engine, as satellites use it: events, matching, delivery, the ledger, footprints.

These are the hot path's standard-library-only names: ``cuecard-hook`` imports them once per tool
call. Re-exported lazily, so importing this module costs nothing until a name is used, and a name
imports only the module that defines it.
"""

from __future__ import annotations

from cuecard.core._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core._engine import deliver_held as deliver_held
    from cuecard.core._engine import handle as handle
    from cuecard.core._engine import load_index as load_index
    from cuecard.core._engine import matches as matches
    from cuecard.core._engine import stop as stop
    from cuecard.core._event import Event as Event
    from cuecard.core._evidence import open_regular as open_regular
    from cuecard.core._footprint import Footprint as Footprint
    from cuecard.core._footprint import has_correction as has_correction
    from cuecard.core._footprint import touched_paths as touched_paths
    from cuecard.core._hookfail import clear_failure as clear_failure
    from cuecard.core._hookfail import clear_failures as clear_failures
    from cuecard.core._hookfail import read_failures as read_failures
    from cuecard.core._hookfail import record_failure as record_failure
    from cuecard.core._ledger import Ledger as Ledger
    from cuecard.core._ledger import safe_name as safe_name
    from cuecard.core._limits import INLINE_LIMITS as INLINE_LIMITS
    from cuecard.core._limits import hook_limit as hook_limit
    from cuecard.core._limits import limit_report as limit_report
    from cuecard.core._maintain import maintain_if_due as maintain_if_due
    from cuecard.core._paths import locate_root as locate_root
    from cuecard.core._paths import repo_relative as repo_relative
    from cuecard.core._shell import classify as classify

_EXPORTS: dict[str, str] = {
    "Event": "cuecard.core._event",
    "Footprint": "cuecard.core._footprint",
    "INLINE_LIMITS": "cuecard.core._limits",
    "Ledger": "cuecard.core._ledger",
    "classify": "cuecard.core._shell",
    "clear_failure": "cuecard.core._hookfail",
    "clear_failures": "cuecard.core._hookfail",
    "deliver_held": "cuecard.core._engine",
    "handle": "cuecard.core._engine",
    "has_correction": "cuecard.core._footprint",
    "hook_limit": "cuecard.core._limits",
    "limit_report": "cuecard.core._limits",
    "load_index": "cuecard.core._engine",
    "locate_root": "cuecard.core._paths",
    "maintain_if_due": "cuecard.core._maintain",
    "matches": "cuecard.core._engine",
    "open_regular": "cuecard.core._evidence",
    "read_failures": "cuecard.core._hookfail",
    "record_failure": "cuecard.core._hookfail",
    "repo_relative": "cuecard.core._paths",
    "safe_name": "cuecard.core._ledger",
    "stop": "cuecard.core._engine",
    "touched_paths": "cuecard.core._footprint",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
