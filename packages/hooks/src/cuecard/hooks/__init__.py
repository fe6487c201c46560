"""cuecard.hooks: harness adapters, the ``cuecard-hook`` command and the installers.

Names are re-exported lazily: ``cuecard-hook`` runs once per tool call and must not pay for
imports it does not use.
"""

from __future__ import annotations

from cuecard.core import lazy_exports as _lazy_exports

TYPE_CHECKING = False  # cuecard-hook imports this package: typing is not worth its import time
if TYPE_CHECKING:
    from cuecard.hooks.__about__ import __version__ as __version__
    from cuecard.hooks._harness import HARNESSES as HARNESSES
    from cuecard.hooks._harness import Harness as Harness
    from cuecard.hooks._hook import main as main
    from cuecard.hooks._hook import respond as respond
    from cuecard.hooks._install import install as install
    from cuecard.hooks._install import uninstall as uninstall

# __version__ too: cuecard-hook never reads it, and a module costs a hook process ≈ 0.1 ms.
_EXPORTS: dict[str, str] = {
    "HARNESSES": "cuecard.hooks._harness",
    "Harness": "cuecard.hooks._harness",
    "__version__": "cuecard.hooks.__about__",
    "install": "cuecard.hooks._install",
    "main": "cuecard.hooks._hook",
    "respond": "cuecard.hooks._hook",
    "uninstall": "cuecard.hooks._install",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
