"""cuecard.ui: the review UI served on loopback (``cuecard ui``).

Names are re-exported lazily, so ``cuecard --help`` does not import Starlette or Jinja2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cuecard.core import lazy_exports as _lazy_exports
from cuecard.ui.__about__ import __version__

if TYPE_CHECKING:
    from cuecard.ui._app import build_app as build_app
    from cuecard.ui._guard import GuardSettings as GuardSettings
    from cuecard.ui._project import Project as Project
    from cuecard.ui._server import bind as bind
    from cuecard.ui._server import serve as serve

_EXPORTS: dict[str, str] = {
    "GuardSettings": "cuecard.ui._guard",
    "Project": "cuecard.ui._project",
    "bind": "cuecard.ui._server",
    "build_app": "cuecard.ui._app",
    "serve": "cuecard.ui._server",
}

__all__ = sorted([*_EXPORTS, "__version__"])


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
