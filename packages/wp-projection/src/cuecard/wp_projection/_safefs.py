"""The filesystem half of the path rules (README, "On disk"): confined, symlink-free writes.

Every call walks from the runtime root one component at a time through directory descriptors
opened with ``O_NOFOLLOW | O_DIRECTORY``, so a symlink planted at any level is refused, never
followed, even if it appears between two calls.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

from cuecard.core.fs import flock_within
from cuecard.wp_projection._errors import PathRefused, RootBusy, RootNotWritable
from cuecard.wp_projection._paths import is_config_name, is_git_metadata, normalise_relative

__all__ = ["SafeRoot"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


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
        self._cache: dict[tuple[str, ...], int] | None = None
        self._cache_lock = threading.Lock()

    @property
    def managed_path(self) -> Path:
        return self.root / self.managed

    # -- directory walking -------------------------------------------------------------------

    def _open_root(self) -> int:
        return os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Within the block, directories verified once are reused through their descriptors.

        A descriptor keeps naming the directory that was checked (opened without following
        symlinks), so reuse adds no way out of the root; all of them close at the end.
        """
        with self._cache_lock:
            self._cache = {}
        try:
            yield
        finally:
            with self._cache_lock:
                cache, self._cache = self._cache or {}, None
            for fd in cache.values():
                os.close(fd)

    def _cached_prefix(self, parts: list[str]) -> tuple[int, int] | None:
        if self._cache is None:
            return None
        with self._cache_lock:
            if self._cache is None:
                return None
            for i in range(len(parts), 0, -1):
                hit = self._cache.get(tuple(parts[:i]))
                if hit is not None:
                    return os.dup(hit), i
        return None

    def _remember(self, parts: list[str], fd: int) -> None:
        if self._cache is None:
            return
        with self._cache_lock:
            if self._cache is not None and tuple(parts) not in self._cache:
                self._cache[tuple(parts)] = os.dup(fd)

    def _open_child(self, fd: int, part: str, shown: str, *, create: bool, private: bool) -> int:
        created = False
        while True:
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                break
            except OSError as exc:
                if exc.errno == errno.ENOENT and create and not created:
                    try:
                        os.mkdir(part, 0o700 if private else 0o755, dir_fd=fd)
                        created = True
                    except FileExistsError:
                        created = True  # another writer made it; open it (and check it)
                    continue
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise PathRefused(
                        f"{shown!r} is a symlink or not a directory; nothing is written "
                        "through it (rule 14)"
                    ) from None
                raise
        if created:
            with contextlib.suppress(OSError):
                os.fchmod(child, 0o700 if private else 0o755)
            os.fsync(fd)
        return child

    def _walk(self, parts: list[str], *, create: bool, private: bool = False) -> int | None:
        """Open the directory ``root/parts...``; ``None`` if a part is missing and not created."""
        cached = self._cached_prefix(parts)
        fd, start = cached if cached is not None else (self._open_root(), 0)
        try:
            for i in range(start, len(parts)):
                shown = "/".join(parts[: i + 1])
                try:
                    child = self._open_child(fd, parts[i], shown, create=create, private=private)
                except FileNotFoundError:
                    os.close(fd)
                    return None
                os.close(fd)
                fd = child
                self._remember(parts[: i + 1], fd)
            return fd
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise

    def _split(
        self, rel: str, *, top: bool = False, removing: bool = False
    ) -> tuple[list[str], str]:
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
        base = [] if top else [self.managed]
        return [*base, *parts[:-1]], parts[-1]

    # -- reads ---------------------------------------------------------------------------------

    def read(self, rel: str, *, top: bool = False) -> bytes | None:
        """The bytes of a regular file, ``None`` if absent; refuses symlinks at any level."""
        dirs, name = self._split(rel, top=top)
        dfd = self._walk(dirs, create=False)
        if dfd is None:
            return None
        try:
            try:
                # O_NONBLOCK: a FIFO planted at the target opens at once (and is refused below)
                # instead of waiting for a writer forever.
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
                fd = os.open(name, flags, dir_fd=dfd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathRefused(f"{rel!r} is a symlink; it is never read (rule 17)") from None
                raise
            with os.fdopen(fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    raise PathRefused(f"{rel!r} is not a regular file (rule 15)")
                return handle.read()
        finally:
            os.close(dfd)

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
        """Atomically replace ``rel`` with ``data``: temp file, fsync, rename, directory fsync.

        With ``sync_dir=False`` the caller fsyncs the directory (``sync_dir``) before relying on
        the rename; a batch fsyncs each directory once."""
        dirs, name = self._split(rel, top=top)
        dfd = self._walk(dirs, create=True, private=private and not top)
        assert dfd is not None
        try:
            try:
                current = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            if current is not None and not stat.S_ISREG(current.st_mode):
                kind = "a symlink" if stat.S_ISLNK(current.st_mode) else "not a regular file"
                raise PathRefused(f"{rel!r} is {kind}; it is never replaced (rule 15)")
            temp = f".{name[:200]}.{uuid.uuid4().hex[:12]}.tmp"
            fd = os.open(
                temp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
                dir_fd=dfd,
            )
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fchmod(handle.fileno(), 0o600 if private else 0o644)
                    os.fsync(handle.fileno())
                os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dfd)
                raise
            if sync_dir:
                os.fsync(dfd)
            self._check_contained(rel, dfd, top=top)
        finally:
            os.close(dfd)

    def _check_contained(self, rel: str, dfd: int, *, top: bool) -> None:
        """Rule 16: after creation the real path must still lie under the root (read from the
        directory descriptor on Linux, else by ``realpath``)."""
        try:
            real = os.readlink(f"/proc/self/fd/{dfd}") + "/" + rel.rsplit("/", 1)[-1]
        except OSError:
            base = self.root if top else self.root / self.managed
            real = os.path.realpath(base / rel)
        if not real.startswith(str(self.root) + "/"):
            raise PathRefused(f"{rel!r} resolved outside the runtime root (rule 16)")

    def sync_dir(self, rel_dir: str) -> None:
        """fsync a directory under the managed folder (``""``: the managed folder itself)."""
        parts = [self.managed, *(rel_dir.split("/") if rel_dir else [])]
        dfd = self._walk(parts, create=False)
        if dfd is not None:
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def unlink(self, rel: str, *, sync_dir: bool = True) -> bool:
        """Remove a regular file (never a symlink or through one); ``False`` if absent."""
        dirs, name = self._split(rel, removing=True)
        dfd = self._walk(dirs, create=False)
        if dfd is None:
            return False
        try:
            try:
                current = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if not stat.S_ISREG(current.st_mode):
                raise PathRefused(f"{rel!r} is not a regular file; it is never deleted (rule 17)")
            os.unlink(name, dir_fd=dfd)
            if sync_dir:
                os.fsync(dfd)
            return True
        finally:
            os.close(dfd)

    def prune(self, rel_dir: str) -> bool:
        """Remove the folder ``rel_dir`` under the managed folder and the folders in it, where
        they are empty once their empty subfolders are gone; never through a link (walked by
        descriptor). Whether ``rel_dir`` itself is gone."""
        parts = rel_dir.split("/")
        parent = self._walk([self.managed, *parts[:-1]], create=False)
        if parent is None:
            return True
        try:
            return self._prune_in(parent, parts[-1])
        finally:
            os.close(parent)

    def _prune_in(self, parent: int, name: str) -> bool:
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                return False  # a link or a file: not ours to remove
            raise
        try:
            with os.scandir(fd) as entries:
                subdirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
            for sub in subdirs:
                self._prune_in(fd, sub)
        finally:
            os.close(fd)
        try:
            os.rmdir(name, dir_fd=parent)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                return False
            raise
        os.fsync(parent)
        return True

    # -- availability --------------------------------------------------------------------------

    def check_writable(self, names: tuple[str, ...] = ()) -> None:
        """Raise ``RootNotWritable`` unless this process can create the managed folder, take its
        lock, create a file in it and write each existing file of ``names`` (state files).

        The receiver calls it before it says it listens: a root it cannot write would otherwise
        fail only when the first event arrives.
        """
        where = self.managed_path
        try:
            with self.lock(timeout=0.5):
                dfd = self._walk([self.managed], create=True)
                assert dfd is not None
                try:
                    probe = f".write-probe-{uuid.uuid4().hex[:12]}"
                    os.close(
                        os.open(
                            probe,
                            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                            0o600,
                            dir_fd=dfd,
                        )
                    )
                    os.unlink(probe, dir_fd=dfd)
                finally:
                    os.close(dfd)
            for name in names:
                where = self.managed_path / name
                if where.exists() and not os.access(where, os.W_OK):
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
        """One writer per root (rule D3.11): an flock on ``<managed>/.lock``, opened without
        following symlinks. The kernel releases it when the holder dies."""
        dfd = self._walk([self.managed], create=True)
        assert dfd is not None
        try:
            try:
                fd = os.open(
                    ".lock",
                    os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o600,
                    dir_fd=dfd,
                )
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathRefused(f"{self.managed}/.lock is a symlink (rule 17)") from None
                raise
        finally:
            os.close(dfd)
        try:
            if not flock_within(fd, timeout, poll):
                raise RootBusy(
                    f"{self.managed_path}: another writer held the lock for {timeout:.0f} s; "
                    "try again"
                )
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
                os.write(fd, json.dumps({"pid": os.getpid()}).encode())
            yield
        finally:
            os.close(fd)
