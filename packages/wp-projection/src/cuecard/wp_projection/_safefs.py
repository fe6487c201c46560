"""The filesystem half of the path rules (README, "On disk"), on core's confined layer.

Every call goes through ``cuecard.core.fs.Tree`` rooted at the runtime root: each folder is
opened relative to its parent's descriptor with ``O_NOFOLLOW | O_DIRECTORY``, a file with
``O_NOFOLLOW`` and used only when it is a regular file, so a link, FIFO, device or another
user's folder planted at any level is refused (``PathRefused``), never followed, even if it
appears between two calls. This module adds the projection's own rules on top: records land
under one managed folder, and no segment may be git metadata or a name git or a shell reads as
configuration.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cuecard.core import StoreBusy
from cuecard.core.fs import Tree, UnsafePath, connect_database
from cuecard.wp_projection._errors import PathRefused, RootBusy, RootNotWritable
from cuecard.wp_projection._paths import is_config_name, is_git_metadata, normalise_relative

__all__ = ["Database", "SafeRoot"]

DATABASE_SIDES = ("", "-wal", "-shm", "-journal")
"""The files SQLite keeps for a database ``NAME``: ``NAME``, ``NAME-wal``…"""


class Database:
    """A SQLite database in a ``SafeRoot``'s managed folder (``SafeRoot.database``)."""

    __slots__ = ("name", "root")

    def __init__(self, root: SafeRoot, name: str) -> None:
        self.root = root
        self.name = name

    @property
    def path(self) -> Path:
        """Where it is, for messages."""
        return self.root.managed_path / self.name

    def connect(self, *, readonly: bool = False, **options: Any) -> sqlite3.Connection:
        """``SafeRoot.connect`` of this database."""
        return self.root.connect(self.name, readonly=readonly, **options)


class SafeRoot:
    """A runtime root and the one managed folder under it where records land."""

    def __init__(self, root: Path, managed: str = ".dm-memory") -> None:
        if not root.is_absolute():
            raise PathRefused(f"runtime root {str(root)!r} must be absolute (rule 13)")
        real = Path(os.path.realpath(root))
        if real == Path("/"):
            raise PathRefused("runtime root must not be '/' (rule 13)")
        if not real.is_dir():
            raise PathRefused(f"runtime root {str(root)!r} must be an existing directory (rule 13)")
        if "/" in managed:
            raise PathRefused(f"managed folder {managed!r} must be one path segment")
        normalise_relative(managed)
        self.root = real
        self.managed = managed
        self.tree = Tree(real)
        """The runtime root as core's confined layer: every operation below walks through it."""

    @property
    def managed_path(self) -> Path:
        return self.root / self.managed

    # -- paths -----------------------------------------------------------------------------------

    def _rel(self, rel: str, *, top: bool = False, removing: bool = False) -> str:
        """``rel`` (under the managed folder, or the root when ``top``) as a path of the tree,
        after the projection's name rules."""
        parts = rel.split("/")
        for part in parts:  # the last line of defence: every filesystem call passes here
            if is_git_metadata(part):
                raise PathRefused(f"{rel!r}: segment {part!r} is git repository metadata")
        # Below the managed folder's own state files (.manifest.json, .lock), no folder and no
        # file may bear a name git, a shell or an editor reads as configuration.
        # (Removing such a file is allowed: a projection made before the rule may hold one.)
        for part in parts if len(parts) > 1 and not top and not removing else ():
            if is_config_name(part):
                raise PathRefused(
                    f"{rel!r}: segment {part!r} is a name git or a shell reads as configuration"
                )
        return rel if top else f"{self.managed}/{rel}"

    def _refused(self, exc: UnsafePath) -> PathRefused:
        """The layer's refusal as the projection's: the path below the root, and why."""
        shown = exc.path
        with contextlib.suppress(ValueError):
            shown = str(Path(exc.path).relative_to(self.root))
        rule = "rule 14" if "folder" in exc.reason else "rule 15"
        return PathRefused(
            f"{shown!r} {exc.reason}; nothing is read or written through it ({rule})"
        )

    @contextlib.contextmanager
    def _confined(self) -> Iterator[None]:
        try:
            yield
        except UnsafePath as exc:
            raise self._refused(exc) from None

    # -- reads ---------------------------------------------------------------------------------

    def read(self, rel: str, *, top: bool = False) -> bytes | None:
        """The bytes of a regular file, ``None`` if absent; refuses links at any level and
        anything that is not a regular file (a FIFO is never waited on)."""
        path = self._rel(rel, top=top)
        with self._confined():
            try:
                return self.tree.read_bytes(path)
            except FileNotFoundError:
                return None

    # -- writes --------------------------------------------------------------------------------

    def write(
        self,
        rel: str,
        data: bytes,
        *,
        private: bool = False,
        top: bool = False,
        sync_dir: bool = True,
    ) -> None:
        """Atomically replace ``rel`` with ``data``: temp file, fsync, rename, directory fsync
        (0600 in owner-only folders when ``private``).

        With ``sync_dir=False`` the caller fsyncs the directory (``sync_dir``) before relying on
        the rename; a batch fsyncs each directory once."""
        path = self._rel(rel, top=top)
        with self._confined():
            if private and not top and "/" in path:
                self.tree.mkdirs(path.rsplit("/", 1)[0], mode=0o700)
            mode = 0o600 if private else 0o644
            self.tree.write(path, data, mode=mode, sync_folder=sync_dir)

    def sync_dir(self, rel_dir: str) -> None:
        """fsync a directory under the managed folder (``""``: the managed folder itself)."""
        path = f"{self.managed}/{rel_dir}" if rel_dir else self.managed
        with self._confined():
            try:
                with self.tree.folder(path) as fd:
                    os.fsync(fd)
            except FileNotFoundError:
                return

    def unlink(self, rel: str, *, sync_dir: bool = True) -> bool:
        """Remove a regular file (never a link or through one); ``False`` if absent."""
        path = self._rel(rel, removing=True)
        with self._confined():
            current = self.tree.lstat(path)
            if current is None:
                return False
            if not stat.S_ISREG(current.st_mode):
                raise PathRefused(f"{rel!r} is not a regular file; it is never deleted (rule 17)")
            removed = self.tree.remove(path)
        if removed and sync_dir:
            self.sync_dir(rel.rsplit("/", 1)[0] if "/" in rel else "")
        return removed

    def prune(self, rel_dir: str) -> bool:
        """Remove the folder ``rel_dir`` under the managed folder and the folders in it, where
        they are empty once their empty subfolders are gone; never through a link (walked by
        descriptor). Whether ``rel_dir`` itself is gone."""
        with self._confined():
            return self.tree.remove_empty(f"{self.managed}/{rel_dir}")

    def database(self, name: str) -> Database:
        """The SQLite database ``name`` in the managed folder: made empty and owner-only when
        missing, after the layer proved that the folders on the way are plain folders of this
        user and that the database and its ``-wal``, ``-shm`` and ``-journal`` files are
        regular files or absent. Connections to it are made through the layer too
        (``Database.connect``)."""
        path = self._rel(name)
        with self._confined():
            self.tree.create(path, mode=0o600)
            for side in DATABASE_SIDES:
                found = self.tree.lstat(path + side)
                if found is not None and not stat.S_ISREG(found.st_mode):
                    raise UnsafePath(self.tree.path(path + side), "is not a regular file")
        return Database(self, name)

    def existing_database(self, name: str) -> Database | None:
        """``database`` for a reader: ``None`` when there is none (nothing is made)."""
        with self._confined():
            found = self.tree.lstat(self._rel(name))
        return None if found is None else self.database(name)

    def connect(self, name: str, *, readonly: bool = False, **options: Any) -> sqlite3.Connection:
        """A connection to the SQLite database ``name`` in the managed folder, opened through
        core's confined layer (``connect_database``: no link at any depth, and the file SQLite
        opened is the one the layer proved); ``PathRefused`` otherwise."""
        with self._confined():
            return connect_database(
                self.tree, self._rel(name), readonly=readonly, mode=0o600, **options
            )

    # -- availability --------------------------------------------------------------------------

    def check_writable(self, names: tuple[str, ...] = ()) -> None:
        """Raise ``RootNotWritable`` unless this process can create the managed folder, take its
        lock, create a file in it and write each existing file of ``names`` (state files).

        The receiver calls it before it says it listens: a root it cannot write would otherwise
        fail only when the first event arrives.
        """
        where = self.managed_path
        try:
            with self.lock(timeout=0.5), self._confined():
                probe = f"{self.managed}/.write-probe-{os.urandom(6).hex()}"
                self.tree.create(probe, mode=0o600)
                self.tree.remove(probe)
                with self.tree.folder(self.managed) as fd:
                    for name in names:
                        where = self.managed_path / name
                        found = self.tree.lstat(f"{self.managed}/{name}")
                        writable = found is None or os.access(
                            name, os.W_OK, dir_fd=fd, follow_symlinks=False
                        )
                        if not writable:
                            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        except RootBusy:
            return  # another receiver holds it: writable, and the lock says who
        except OSError as exc:
            raise RootNotWritable(
                f"--root {self.root}: cannot write {where} ({exc.strerror or exc}); run the "
                "receiver as a user who can write the runtime root, or choose another --root"
            ) from None

    # -- the writer lock -----------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, *, timeout: float = 30.0, poll: float = 0.02) -> Iterator[None]:
        """One writer per root (rule D3.11): an flock on ``<managed>/.lock``, reached through the
        layer (no link followed). The kernel releases it when the holder dies."""
        held = self.tree.locked(f"{self.managed}/.lock", timeout=timeout, poll=poll)
        try:
            with self._confined():
                held.__enter__()
        except StoreBusy:
            raise RootBusy(
                f"{self.managed_path}: another writer held the lock for {timeout:.0f} s; try again"
            ) from None
        try:
            yield
        finally:
            held.__exit__(None, None, None)
