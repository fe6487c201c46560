"""The trigger engine, as satellites use it: events, matching, delivery, the ledger, footprints.

This package is the hot path: every module ``cuecard-hook`` imports on a tool call lives here
(the shell classifier in ``shell/``), and imports only the standard library and, from the rest of
core, the foundation modules ``_lazy``, ``_errors`` and ``_fsio``; re2 only where a check runs
or a secret is looked for. The one way out: a stale index is recompiled by the compiler,
imported lazily. The rest of core imports the engine, never the other way round; import-linter
holds both rules (the root ``pyproject.toml``).

Re-exported lazily, so importing this module costs nothing until a name is used, and a name
imports only the module that defines it.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.engine._engine import deliver_held as deliver_held
    from cuecard.core.engine._engine import handle as handle
    from cuecard.core.engine._engine import load_index as load_index
    from cuecard.core.engine._engine import matches as matches
    from cuecard.core.engine._engine import stop as stop
    from cuecard.core.engine._event import Event as Event
    from cuecard.core.engine._evidence import open_regular as open_regular
    from cuecard.core.engine._footprint import Footprint as Footprint
    from cuecard.core.engine._footprint import has_correction as has_correction
    from cuecard.core.engine._footprint import touched_paths as touched_paths
    from cuecard.core.engine._hookfail import clear_failure as clear_failure
    from cuecard.core.engine._hookfail import clear_failures as clear_failures
    from cuecard.core.engine._hookfail import read_failures as read_failures
    from cuecard.core.engine._hookfail import record_failure as record_failure
    from cuecard.core.engine._ledger import Ledger as Ledger
    from cuecard.core.engine._ledger import safe_name as safe_name
    from cuecard.core.engine._limits import INLINE_LIMITS as INLINE_LIMITS
    from cuecard.core.engine._limits import PASSED_ON as PASSED_ON
    from cuecard.core.engine._limits import hook_limit as hook_limit
    from cuecard.core.engine._limits import limit_report as limit_report
    from cuecard.core.engine._paths import local_tree as local_tree
    from cuecard.core.engine._paths import locate_root as locate_root
    from cuecard.core.engine._paths import repo_relative as repo_relative
    from cuecard.core.engine._paths import store_problem as store_problem
    from cuecard.core.engine._schedule import maintain_if_due as maintain_if_due
    from cuecard.core.engine._text import ADVISORY as ADVISORY
    from cuecard.core.engine.shell._classifier import classify as classify

_EXPORTS: dict[str, str] = {
    "ADVISORY": "cuecard.core.engine._text",
    "Event": "cuecard.core.engine._event",
    "Footprint": "cuecard.core.engine._footprint",
    "INLINE_LIMITS": "cuecard.core.engine._limits",
    "PASSED_ON": "cuecard.core.engine._limits",
    "Ledger": "cuecard.core.engine._ledger",
    "classify": "cuecard.core.engine.shell._classifier",
    "clear_failure": "cuecard.core.engine._hookfail",
    "clear_failures": "cuecard.core.engine._hookfail",
    "deliver_held": "cuecard.core.engine._engine",
    "handle": "cuecard.core.engine._engine",
    "has_correction": "cuecard.core.engine._footprint",
    "hook_limit": "cuecard.core.engine._limits",
    "limit_report": "cuecard.core.engine._limits",
    "load_index": "cuecard.core.engine._engine",
    "local_tree": "cuecard.core.engine._paths",
    "locate_root": "cuecard.core.engine._paths",
    "maintain_if_due": "cuecard.core.engine._schedule",
    "matches": "cuecard.core.engine._engine",
    "open_regular": "cuecard.core.engine._evidence",
    "read_failures": "cuecard.core.engine._hookfail",
    "record_failure": "cuecard.core.engine._hookfail",
    "repo_relative": "cuecard.core.engine._paths",
    "store_problem": "cuecard.core.engine._paths",
    "safe_name": "cuecard.core.engine._ledger",
    "stop": "cuecard.core.engine._engine",
    "touched_paths": "cuecard.core.engine._footprint",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
