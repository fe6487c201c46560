"""A home of the suite's own: no test writes into the developer's home.

The root ``tests/conftest.py`` calls :func:`isolate` when pytest starts, before any test or
subprocess runs: ``HOME`` and the XDG base folders then point into one throwaway folder for the
session, which every child process inherits (the hatch environments' runs load that conftest
too). Tests that need a home of their own still set their own variables on top. The developer's
own cuecard folders, as they were resolved before, stay in :data:`REAL` so a test can check that
nothing reached them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path

# relative to the session home, as a user's login has them (and as the e2e harness runs set them)
XDG = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
}
# the developer's own settings that would send a test to their real state
DROPPED = ("CUECARD_VAULT", "CUECARD_VAULT_MIRROR", "DSH_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR")
# git's environment is the developer's too: every GIT_* variable (an exported GIT_AUTHOR_NAME
# names every test commit's author; GIT_DIR or GIT_INDEX_FILE would send git elsewhere) is
# dropped, and git reads no system-wide configuration (the global one is in the session home).
GIT_PREFIX = "GIT_"
GIT_SET = {"GIT_CONFIG_NOSYSTEM": "1"}


@dataclass(frozen=True)
class RealHome:
    """The developer's folders, resolved from the environment pytest started with."""

    home: Path
    cuecard_config: Path
    cuecard_cache: Path


@dataclass(frozen=True)
class Session:
    """The session's home and the environment it replaced (restored by :func:`restore`)."""

    home: Path
    saved: dict[str, str | None]


REAL: RealHome | None = None
SESSION: Session | None = None


def real_home(environ: MutableMapping[str, str]) -> RealHome:
    """Where cuecard keeps its user config and cache for ``environ`` (the product's own rule:
    ``$XDG_CONFIG_HOME/cuecard``, ``$XDG_CACHE_HOME/cuecard``, else under ``$HOME``)."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    config = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    cache = environ.get("XDG_CACHE_HOME") or str(home / ".cache")
    return RealHome(home, Path(config) / "cuecard", Path(cache) / "cuecard")


def isolate(environ: MutableMapping[str, str] = os.environ) -> Session:
    """Point ``HOME`` and the XDG base folders of ``environ`` at a new empty folder."""
    global REAL, SESSION
    REAL = real_home(environ)
    home = Path(tempfile.mkdtemp(prefix="cuecard-tests-home-")).resolve()
    git = sorted({name for name in environ if name.startswith(GIT_PREFIX)} | set(GIT_SET))
    names = ("HOME", *XDG, *DROPPED, *git)
    saved = {name: environ.get(name) for name in names}
    environ["HOME"] = str(home)
    for name, relative in XDG.items():
        environ[name] = str(home / relative)
    for name in (*DROPPED, *git):
        environ.pop(name, None)
    environ.update(GIT_SET)
    SESSION = Session(home, saved)
    return SESSION


def restore(session: Session, environ: MutableMapping[str, str] = os.environ) -> None:
    """Put the replaced variables back and remove the session's home."""
    for name, value in session.saved.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    shutil.rmtree(session.home, ignore_errors=True)
