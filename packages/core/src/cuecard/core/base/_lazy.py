"""Lazy re-exports for package ``__init__`` files: a name is imported on first use.

Every cuecard package re-exports its public names this way, so importing a hot-path module never
pulls in what the package's other names need (pydantic, httpx, …). Standard library only.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``.

    ``exports`` maps each lazily exported name to the module that defines it; ``public`` is the
    package's ``__all__``. A name, once imported, is stored in the package so the next use is a
    plain attribute lookup.
    """

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(module)  # not importlib.import_module: importing importlib imports warnings
        value = getattr(sys.modules[module], name)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return list(public)

    return getattr_, dir_
