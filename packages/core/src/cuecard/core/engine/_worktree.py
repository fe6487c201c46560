"""What a turn changed in the work tree, whichever program changed it. Standard library only.

A turn's checks judge the files the turn changed. The paths its tool calls name are not all of
them: ``sed -i … app/*.py``, ``find … -exec``, a Python one-liner or a generator script change
files no command names. So at Stop the hook asks git which files of the work tree differ from
the last commit (``git status``: modified, added and untracked, ignored files left out) and
keeps those modified since the turn began (the user's prompt). A file the person changed before
the turn and the turn left alone is not the turn's; a tool that sets an old modification time
on what it writes (``cp -p``, ``tar x``) hides its files from this test.

git looks only in the folders that the globs of the turn checks on ``run`` can match
(:func:`folders_of`; no such check, no git), and runs read-only (``GIT_OPTIONAL_LOCKS=0``: no
index refresh, no lock the agent's own git commands could meet) with the repository's fsmonitor
hook off, for at most :data:`TIMEOUT` seconds; an answer listing more than :data:`MAX_FILES`
files is not used (the turn then keeps the paths its calls named). A folder that is not in a
git work tree has nothing to add.
"""

from __future__ import annotations

import os
import subprocess

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["MAX_FILES", "SLACK", "TIMEOUT", "changed_since", "folders_of"]

MAX_FILES = 20_000
TIMEOUT = 5.0
SLACK = 0.05
"""Seconds before the turn's start that still count: the kernel stamps files with a clock that
runs up to a tick behind the one the hook reads."""
_MAX_BYTES = 8 * 1024 * 1024


def _work_tree_top(root: str) -> str | None:
    """The top of the git work tree holding ``root`` (the first folder up with ``.git``)."""
    here = os.path.abspath(root)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def folders_of(globs: Iterable[str]) -> list[str] | None:
    """The folders that hold every path the (brace-free, gitignore) ``globs`` match: each glob's
    segments before the first wildcard; ``None`` for the whole tree (a glob without a folder, a
    name that matches at any depth, or no glob at all: a check on every path)."""
    folders: list[str] = []
    for glob in globs:
        body = glob[1:] if glob.startswith("/") else glob
        if "/" not in body.rstrip("/"):
            return None  # a bare name (or name/) matches in any folder
        fixed = []
        for segment in body.rstrip("/").split("/")[:-1]:
            if any(char in segment for char in "*?[\\"):
                break
            fixed.append(segment)
        if not fixed:
            return None
        folders.append("/".join(fixed))
    return sorted(set(folders)) or None


def changed_since(root: str, since: float, folders: Iterable[str] | None = None) -> list[str]:
    """The files of ``root``'s work tree (relative to it, ``/`` separators; within ``folders``
    when given) that git lists as differing from the last commit and that were modified at
    ``since`` (a Unix time) or later; nothing when git is absent, fails, is too slow or lists
    too many."""
    top = _work_tree_top(root)
    if top is None:
        return []
    prefix = os.path.relpath(os.path.abspath(root), top).replace(os.sep, "/")
    prefix = "" if prefix == "." else prefix + "/"
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    pathspecs = [f":(literal){folder}" for folder in folders] if folders else ["."]
    command = [
        *("git", "-c", "core.fsmonitor=false"),
        *("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"),
        *("--ignore-submodules=all", "--", *pathspecs),
    ]
    try:
        done = subprocess.run(
            command, cwd=root, env=env, capture_output=True, timeout=TIMEOUT, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0 or len(done.stdout) > _MAX_BYTES:
        return []
    entries = [entry for entry in done.stdout.split(b"\0") if len(entry) >= 4]
    if len(entries) > MAX_FILES:
        return []
    after = int((since - SLACK) * 1e9)
    out: list[str] = []
    for entry in entries:
        path = entry[3:].decode("utf-8", "surrogateescape")
        if not path.startswith(prefix) or path.endswith("/"):
            continue
        rel = path[len(prefix) :]
        if rel == ".cuecard" or rel.startswith(".cuecard/local/"):
            continue  # cuecard's own state changes at every event
        try:
            info = os.lstat(os.path.join(root, rel))
        except (OSError, ValueError):
            continue  # deleted: nothing to judge
        if info.st_mtime_ns >= after:
            out.append(rel)
    return out
