"""Where a project is, and how outside paths become repository-relative. Standard library only."""

from __future__ import annotations

import os
import posixpath

TYPE_CHECKING = False

if TYPE_CHECKING:
    from pathlib import Path

    from cuecard.core.base._confined import Tree

__all__ = [
    "STORE_DIR",
    "find_root",
    "linked_local",
    "linked_local_problem",
    "local_tree",
    "locate_root",
    "opted_in",
    "repo_relative",
    "store_problem",
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


_SPINE: dict[str, dict[str, bool]] = {
    STORE_DIR: {"config.json": False, "memories": True, "requests": True, "local": True},
    STORE_DIR + "/local": {"index": True, "sessions": True},
}
"""The store's own folders and files (``True``: a folder), each checked when present."""


def store_problem(folder: str) -> str | None:
    """Why the store of the project at ``folder`` is not what cuecard expects, or ``None``: one
    of its own folders (``.cuecard``, ``memories``, ``requests``, ``local``, ``local/index``,
    ``local/sessions``) or ``config.json`` is a symbolic link, not of its kind, or (a folder)
    another user's. Such a project is left alone: the hook stays silent and writes nothing, and
    the commands name the path. Deeper entries are refused one by one by the confined layer
    (``cuecard.core.fs.Tree``) when they are used; an inbox that is a link is refused by
    ingestion, proposal by proposal, with the reason. One walk by descriptor: a few ``fstatat``
    calls on the hook's path."""
    from cuecard.core.base._confined import Tree, describe

    tree = Tree(folder)
    for parent, children in _SPINE.items():
        try:
            with tree.folder(parent) as fd:
                for name, is_dir in children.items():
                    try:
                        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    kind = describe(st.st_mode)
                    want = "a folder" if is_dir else "a regular file"
                    where = tree.path(f"{parent}/{name}")
                    if kind != want:
                        return f"{where} is {kind}, not {want}"
                    if is_dir and hasattr(os, "geteuid") and st.st_uid != os.geteuid():
                        return f"{where} belongs to another user (uid {st.st_uid})"
        except FileNotFoundError:
            continue
        except OSError as exc:
            path = getattr(exc, "path", None) or tree.path(parent)
            return f"{path} {getattr(exc, 'reason', 'cannot be read')}"
    return None


def linked_local(folder: str) -> bool:
    """Whether ``folder``'s store is not what cuecard expects (see ``store_problem``); the name
    stays from when only a linked ``.cuecard/local`` was looked for."""
    return store_problem(folder) is not None


def linked_local_problem(start: str) -> str | None:
    """Why ``locate_root`` gave ``None`` for ``start`` when the nearest opted-in folder at or
    above it has a store that is not what cuecard expects; ``None`` otherwise."""
    here = os.path.abspath(start)
    while not opted_in(here):
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    problem = store_problem(here)
    if problem is None:
        return None
    return (
        f"{problem}: cuecard never reads or writes this project's store through a link, a "
        f"special file or another user's folder, so the hook and the commands leave this "
        f"project alone; remove or fix it and run the command again"
    )


def local_tree(local_dir: str) -> tuple[Tree, str]:
    """The confined tree a store's local folder (given by its path) is reached through: the
    project root, trusted as found, and ``.cuecard/local`` below it, opened folder by folder
    without following a link. A folder of another shape is its own tree."""
    from cuecard.core.base._confined import Tree

    head, local = os.path.split(os.path.normpath(local_dir))
    root, store = os.path.split(head)
    if local == "local" and store == STORE_DIR:
        return Tree(root), f"{STORE_DIR}/local"
    return Tree(local_dir), ""


def find_root(start: Path | str | None = None) -> Path | None:
    """The nearest folder at or above ``start`` that opted in (see ``opted_in``).

    Without ``start``, ``CUECARD_PROJECT_DIR`` or else the working directory is the start.
    """
    from pathlib import Path

    found = locate_root(None if start is None else str(start))
    return None if found is None else Path(found)


def locate_root(start: str | None = None) -> str | None:
    """``find_root`` for the hot path: strings only, no pathlib. The nearest opted-in folder
    whose store is not what cuecard expects gives ``None`` (see ``store_problem``)."""
    if start is None:
        start = os.environ.get("CUECARD_PROJECT_DIR") or os.getcwd()
    here = os.path.abspath(start)
    while True:
        if opted_in(here):
            return None if store_problem(here) is not None else here
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
