"""cuecard core: the memory model, the project store, validation and the text rules.

Names are re-exported lazily, so importing a hot-path module never pulls in pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from cuecard.core.__about__ import __version__

if TYPE_CHECKING:
    from cuecard.core._config import ProjectConfig
    from cuecard.core._errors import (
        ConfigError,
        CuecardError,
        NotFound,
        NotOptedIn,
        StoreBusy,
        StoreError,
        TopicConflict,
        UsageError,
        ValidationError,
    )
    from cuecard.core._memory import Check, Evidence, Kind, Memory, Origin, Review, Status, Trigger
    from cuecard.core._store import Store, find_root
    from cuecard.core._text import find_secret, neutralise, redact, unsafe_reason, wrap_memory_data
    from cuecard.core._validate import validate_memory

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
    "find_root": "cuecard.core._store",
    "find_secret": "cuecard.core._text",
    "neutralise": "cuecard.core._text",
    "redact": "cuecard.core._text",
    "unsafe_reason": "cuecard.core._text",
    "validate_memory": "cuecard.core._validate",
    "wrap_memory_data": "cuecard.core._text",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cuecard.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
