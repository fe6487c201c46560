"""Where a project is, and how outside paths become repository-relative. Standard library only."""

from __future__ import annotations

import os
import posixpath

TYPE_CHECKING = False

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "STORE_DIR",
    "find_root",
    "linked_local",
    "linked_local_problem",
    "locate_root",
    "opted_in",
    "repo_relative",
]

STORE_DIR = ".cuecard"


def opted_in(folder: str) -> bool:
    """Whether ``folder`` opted in: it has ``.cuecard/config.json``, or a first memory file in
    ``.cuecard/memories/`` (a team may commit memories before anyone runs ``cuecard init``)."""
    store = os.path.join(folder, STORE_DIR)
    if os.path.isfile(os.path.join(store, "config.json")):
        return True
    try:
        with os.scandir(os.path.join(store, "memories")) as entries:
            return any(e.name.endswith(".json") and e.is_file() for e in entries)
    except OSError:
        return False


def linked_local(folder: str) -> bool:
    """Whether ``folder``'s ``.cuecard/local`` is a symbolic link. That folder is git-ignored
    state of this machine (ledger, index, sessions); a commit that holds it as a link would send
    every write of the hook and the CLI elsewhere, so such a project is not used at all."""
    return os.path.islink(os.path.join(folder, STORE_DIR, "local"))


def linked_local_problem(start: str) -> str | None:
    """Why ``locate_root`` gave ``None`` for ``start`` when the nearest opted-in folder at or
    above it has a linked ``.cuecard/local``; ``None`` otherwise."""
    here = os.path.abspath(start)
    while not opted_in(here):
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    if not linked_local(here):
        return None
    local = os.path.join(here, STORE_DIR, "local")
    return (
        f"{local} is a symbolic link: cuecard never writes this machine's state through a link "
        f"a commit could hold, so the hook and the commands leave this project alone; remove it "
        f"(`rm {local}`) and run the command again"
    )


def find_root(start: Path | str | None = None) -> Path | None:
    """The nearest folder at or above ``start`` that opted in (see ``opted_in``).

    Without ``start``, ``CUECARD_PROJECT_DIR`` or else the working directory is the start.
    """
    from pathlib import Path

    found = locate_root(None if start is None else str(start))
    return None if found is None else Path(found)


def locate_root(start: str | None = None) -> str | None:
    """``find_root`` for the hot path: strings only, no pathlib. The nearest opted-in folder
    whose ``.cuecard/local`` is a link gives ``None`` (see ``linked_local``)."""
    if start is None:
        start = os.environ.get("CUECARD_PROJECT_DIR") or os.getcwd()
    here = os.path.abspath(start)
    while True:
        if opted_in(here):
            return None if linked_local(here) else here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def repo_relative(path: str, root: str, cwd: str | None = None) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, or ``None`` when it lies outside.

    Backslashes and Windows drive letters are accepted; ``..`` is resolved lexically, so
    ``../x`` from the root leaves the repository and is dropped. Symlinks are not followed.
    """
    if not path or "\x00" in path:
        return None
    text = path.replace("\\", "/")
    root_text = root.replace("\\", "/").rstrip("/") or "/"
    if len(text) > 1 and text[1] == ":" and text[0].isalpha():  # a Windows drive path
        if not (len(root_text) > 1 and root_text[1] == ":"):
            return None
        if text[0].lower() != root_text[0].lower():
            return None
        text, root_text = text[2:], root_text[2:] or "/"
    if not text.startswith("/"):
        base = (cwd or root).replace("\\", "/")
        if len(base) > 1 and base[1] == ":":
            base = base[2:]
        text = posixpath.join(base, text)
    norm = posixpath.normpath(text)
    root_norm = posixpath.normpath(root_text)
    if norm == root_norm:
        return ""
    prefix = root_norm.rstrip("/") + "/"
    if not norm.startswith(prefix):
        return None
    return norm[len(prefix) :]
