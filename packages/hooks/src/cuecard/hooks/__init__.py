"""cuecard.hooks: harness adapters, the ``cuecard-hook`` command and the installers.

Names are re-exported lazily: ``cuecard-hook`` runs once per tool call and must not pay for
imports it does not use.
"""

from __future__ import annotations

import importlib

from cuecard.hooks.__about__ import __version__

TYPE_CHECKING = False  # cuecard-hook imports this package: typing is not worth its import time
if TYPE_CHECKING:
    from typing import Any

    from cuecard.hooks._harness import HARNESSES as HARNESSES
    from cuecard.hooks._harness import Harness as Harness
    from cuecard.hooks._hook import main as main
    from cuecard.hooks._hook import respond as respond
    from cuecard.hooks._install import install as install
    from cuecard.hooks._install import uninstall as uninstall

_EXPORTS: dict[str, str] = {
    "HARNESSES": "cuecard.hooks._harness",
    "Harness": "cuecard.hooks._harness",
    "install": "cuecard.hooks._install",
    "main": "cuecard.hooks._hook",
    "respond": "cuecard.hooks._hook",
    "uninstall": "cuecard.hooks._install",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cuecard.hooks' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
