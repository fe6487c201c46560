"""The pip command a hint names: the one of the interpreter running cuecard.

``pip install X`` alone may reach another Python (a system Python that refuses, being externally
managed, or one without cuecard); ``<this interpreter> -m pip install X`` installs where cuecard
runs, in scripts/quickstart's environment as in any other.
"""

from __future__ import annotations

import shlex
import sys

__all__ = ["pip_command"]


def pip_command(*requirements: str) -> str:
    """``python -m pip install REQUIREMENT...`` for the running interpreter, quoted for a shell."""
    words = [sys.executable or "python3", "-m", "pip", "install", *requirements]
    return " ".join(shlex.quote(word) for word in words)
