"""cuecard core: the memory model, the project store, validation and the text rules.

Names are re-exported lazily, so importing a hot-path module never pulls in pydantic.
"""

from __future__ import annotations

from cuecard.core._lazy import lazy_exports as lazy_exports

# Not `from typing import ...`: typing costs the cold search path milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.__about__ import __version__ as __version__
    from cuecard.core._compiler import compile_index as compile_index
    from cuecard.core._config import ProjectConfig as ProjectConfig
    from cuecard.core._errors import ConfigError as ConfigError
    from cuecard.core._errors import CuecardError as CuecardError
    from cuecard.core._errors import NotFound as NotFound
    from cuecard.core._errors import NotOptedIn as NotOptedIn
    from cuecard.core._errors import StoreBusy as StoreBusy
    from cuecard.core._errors import StoreError as StoreError
    from cuecard.core._errors import TopicConflict as TopicConflict
    from cuecard.core._errors import UsageError as UsageError
    from cuecard.core._errors import ValidationError as ValidationError
    from cuecard.core._ingest import ingest_file as ingest_file
    from cuecard.core._memory import Check as Check
    from cuecard.core._memory import Evidence as Evidence
    from cuecard.core._memory import Kind as Kind
    from cuecard.core._memory import Memory as Memory
    from cuecard.core._memory import Origin as Origin
    from cuecard.core._memory import Review as Review
    from cuecard.core._memory import Status as Status
    from cuecard.core._memory import Trigger as Trigger
    from cuecard.core._pip import pip_command as pip_command
    from cuecard.core._store import Store as Store
    from cuecard.core._store import find_root as find_root
    from cuecard.core._validate import validate_memory as validate_memory
    from cuecard.core.engine._text import find_secret as find_secret
    from cuecard.core.engine._text import neutralise as neutralise
    from cuecard.core.engine._text import redact as redact
    from cuecard.core.engine._text import unsafe_reason as unsafe_reason
    from cuecard.core.engine._text import wrap_memory_data as wrap_memory_data

# __version__ too: the hook never reads it, and a module costs a hook process ≈ 0.1 ms.
_EXPORTS: dict[str, str] = {
    "Check": "cuecard.core._memory",
    "ConfigError": "cuecard.core._errors",
    "CuecardError": "cuecard.core._errors",
    "Evidence": "cuecard.core._memory",
    "Kind": "cuecard.core._memory",
    "Memory": "cuecard.core._memory",
    "NotFound": "cuecard.core._errors",
    "NotOptedIn": "cuecard.core._errors",
    "Origin": "cuecard.core._memory",
    "ProjectConfig": "cuecard.core._config",
    "Review": "cuecard.core._memory",
    "Status": "cuecard.core._memory",
    "Store": "cuecard.core._store",
    "StoreBusy": "cuecard.core._errors",
    "StoreError": "cuecard.core._errors",
    "TopicConflict": "cuecard.core._errors",
    "Trigger": "cuecard.core._memory",
    "UsageError": "cuecard.core._errors",
    "ValidationError": "cuecard.core._errors",
    "__version__": "cuecard.core.__about__",
    "compile_index": "cuecard.core._compiler",
    "find_root": "cuecard.core._store",
    "find_secret": "cuecard.core.engine._text",
    "ingest_file": "cuecard.core._ingest",
    "neutralise": "cuecard.core.engine._text",
    "pip_command": "cuecard.core._pip",
    "redact": "cuecard.core.engine._text",
    "unsafe_reason": "cuecard.core.engine._text",
    "validate_memory": "cuecard.core._validate",
    "wrap_memory_data": "cuecard.core.engine._text",
}

__all__ = sorted([*_EXPORTS, "lazy_exports"])


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
