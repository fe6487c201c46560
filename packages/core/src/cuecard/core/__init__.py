"""cuecard core: the memory model, the project store, validation and the text rules.

Names are re-exported lazily, so importing a hot-path module never pulls in pydantic.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as lazy_exports

# Not `from typing import ...`: typing costs the cold search path milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.__about__ import __version__ as __version__
    from cuecard.core.base._decoding import MAX_NESTING as MAX_NESTING
    from cuecard.core.base._decoding import check_text as check_text
    from cuecard.core.base._decoding import load_json as load_json
    from cuecard.core.base._errors import BadInput as BadInput
    from cuecard.core.base._errors import CacheError as CacheError
    from cuecard.core.base._errors import ConfigError as ConfigError
    from cuecard.core.base._errors import CuecardError as CuecardError
    from cuecard.core.base._errors import NotFound as NotFound
    from cuecard.core.base._errors import NotOptedIn as NotOptedIn
    from cuecard.core.base._errors import StoreBusy as StoreBusy
    from cuecard.core.base._errors import StoreError as StoreError
    from cuecard.core.base._errors import TopicConflict as TopicConflict
    from cuecard.core.base._errors import UsageError as UsageError
    from cuecard.core.base._errors import ValidationError as ValidationError
    from cuecard.core.base._pip import pip_command as pip_command
    from cuecard.core.engine._text import find_secret as find_secret
    from cuecard.core.engine._text import neutralise as neutralise
    from cuecard.core.engine._text import redact as redact
    from cuecard.core.engine._text import unsafe_reason as unsafe_reason
    from cuecard.core.engine._text import wrap_memory_data as wrap_memory_data
    from cuecard.core.lifecycle._ingest import ingest_file as ingest_file
    from cuecard.core.store._compiler import compile_index as compile_index
    from cuecard.core.store._config import ProjectConfig as ProjectConfig
    from cuecard.core.store._memory import Check as Check
    from cuecard.core.store._memory import Evidence as Evidence
    from cuecard.core.store._memory import Kind as Kind
    from cuecard.core.store._memory import Memory as Memory
    from cuecard.core.store._memory import Origin as Origin
    from cuecard.core.store._memory import Review as Review
    from cuecard.core.store._memory import Status as Status
    from cuecard.core.store._memory import Trigger as Trigger
    from cuecard.core.store._store import Store as Store
    from cuecard.core.store._store import find_root as find_root
    from cuecard.core.store._validate import validate_memory as validate_memory

# __version__ too: the hook never reads it, and a module costs a hook process ≈ 0.1 ms.
_EXPORTS: dict[str, str] = {
    "BadInput": "cuecard.core.base._errors",
    "Check": "cuecard.core.store._memory",
    "CacheError": "cuecard.core.base._errors",
    "ConfigError": "cuecard.core.base._errors",
    "CuecardError": "cuecard.core.base._errors",
    "Evidence": "cuecard.core.store._memory",
    "Kind": "cuecard.core.store._memory",
    "Memory": "cuecard.core.store._memory",
    "NotFound": "cuecard.core.base._errors",
    "NotOptedIn": "cuecard.core.base._errors",
    "Origin": "cuecard.core.store._memory",
    "ProjectConfig": "cuecard.core.store._config",
    "Review": "cuecard.core.store._memory",
    "Status": "cuecard.core.store._memory",
    "Store": "cuecard.core.store._store",
    "StoreBusy": "cuecard.core.base._errors",
    "StoreError": "cuecard.core.base._errors",
    "MAX_NESTING": "cuecard.core.base._decoding",
    "TopicConflict": "cuecard.core.base._errors",
    "Trigger": "cuecard.core.store._memory",
    "UsageError": "cuecard.core.base._errors",
    "ValidationError": "cuecard.core.base._errors",
    "__version__": "cuecard.core.__about__",
    "check_text": "cuecard.core.base._decoding",
    "compile_index": "cuecard.core.store._compiler",
    "find_root": "cuecard.core.store._store",
    "find_secret": "cuecard.core.engine._text",
    "ingest_file": "cuecard.core.lifecycle._ingest",
    "load_json": "cuecard.core.base._decoding",
    "neutralise": "cuecard.core.engine._text",
    "pip_command": "cuecard.core.base._pip",
    "redact": "cuecard.core.engine._text",
    "unsafe_reason": "cuecard.core.engine._text",
    "validate_memory": "cuecard.core.store._validate",
    "wrap_memory_data": "cuecard.core.engine._text",
}

__all__ = sorted([*_EXPORTS, "lazy_exports"])


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
