"""Files under a folder cuecard does not own, reached only by descriptor. Standard library only.

A repository's ``.cuecard/``, a folder vault and a harness's configuration folder hold whatever a
teammate committed or a program put there: a link ``.cuecard/local/index -> ../../..`` must not
turn the compile's pruning loose on the folder above the clone, nor a FIFO hang the hook. So
every read, write and deletion there goes through a ``Tree``:

- the tree's ``base`` (the project root, the vault folder) is trusted as the person named it;
  below it, every folder is opened relative to its parent's descriptor, one component at a time,
  with ``O_NOFOLLOW | O_DIRECTORY``; a component that is a symbolic link, not a folder, or a
  folder another user owns is refused with ``UnsafePath`` (an ``OSError``), naming the path and
  why;
- a file is opened relative to its folder's descriptor with ``O_NOFOLLOW | O_NONBLOCK`` and used
  only when ``fstat`` says it is a regular file: never a link, FIFO, socket or device;
- a file is created with ``O_EXCL``, replaced atomically by a temporary file renamed within the
  same folder descriptor, appended to with one ``write`` on ``O_APPEND``; an existing entry
  that is not a regular file is never replaced;
- a folder is deleted only when the layer can prove cuecard made it (it holds cuecard's marker
  file: an index generation, a session's folder), or when it is empty (``remove_empty``), and the
  deletion walks by descriptor (``dir_fd``), never by a path string, so no link inside it is
  followed either.

Relative paths use ``/`` and hold no empty, ``.`` or ``..`` segment. Where the platform lacks
``dir_fd`` (Windows), each component is checked with ``lstat`` before the path is used.

Inside a ``held_folders()`` block (one hook event), each folder is opened and checked once and
its descriptor kept until the block ends: a later operation starts from the deepest folder
already held instead of walking again from the base (each walk cost three system calls per
folder). What that keeps and what it changes:

- every check still holds: a folder is held only after it was opened with ``O_NOFOLLOW |
  O_DIRECTORY`` from its held parent and ``fstat`` said this user owns it; a file is still
  opened and checked at each operation;
- a folder swapped for a link (or renamed away) after it was first opened is never followed:
  the block keeps working in the folder it checked, by its descriptor, wherever that folder
  now is (as one walk does when the swap happens during it); the link is seen by the next
  block or process;
- a folder deleted since it was held is never written into: a walk for a write that ends in
  such a folder, or that meets a missing entry in one, forgets what it held below the base and
  walks again from the base (making the folders again); ``remove_marked`` forgets the folders
  it deleted. A read through a held folder deleted since finds nothing, as the folder was when
  deleted: a folder made again under the same name is seen by the next block.
"""

from __future__ import annotations

import os
import stat

from cuecard.core.base._errors import StoreBusy, StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["MARKER", "Tree", "UnsafePath", "describe", "held_folders", "unsafe_entries"]

MARKER = ".cuecard-made"
"""The file cuecard puts in a folder it creates and may delete later (an index generation)."""

SELF_IGNORING = (".cuecard", "local")
"""The folder (its last two components) that gets a ``.gitignore`` holding ``*`` when the layer
creates it, as ``.pytest_cache`` does: a project opted in by a committed memory file alone has no
``.cuecard/.gitignore``, and this machine's derived state must never be one ``git add -A`` from a
commit. Created exclusively in the new folder's descriptor, once, never through a link."""
_IGNORE_ALL = b"# made by cuecard: this machine's derived state, never committed\n*\n"

MARKED_IN = ("local", "sessions")
"""The folder (its last two components) where each folder the layer makes (a session's folder)
gets cuecard's ``MARKER`` at once, so maintenance may delete it later, and nothing else there.
Each marker there is a hard link to ``MARK_SOURCE`` in that folder, made once: a new name costs
the file system a directory entry where a new file costs an inode, which a busy ext4 disk can
take a millisecond of CPU to find (the hook makes a session's folder at its first delivery)."""

MARK_SOURCE = ".cuecard-made.source"
"""The one regular file in a ``MARKED_IN`` folder whose hard links are its folders' markers (it
marks no folder itself: a marker is named ``MARKER``)."""
_SESSION_MARK = b"made by cuecard: a session's folder\n"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _NONBLOCK | _CLOEXEC
_APPEND_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | _NONBLOCK | _CLOEXEC
_BY_FD = bool(_DIRECTORY) and os.open in os.supports_dir_fd and os.scandir in os.supports_fd
_MAX_DEPTH = 32
"""A marked folder deeper than this is not deleted (cuecard makes no such folder)."""


class UnsafePath(StoreError, OSError):
    """A path under a folder cuecard does not own is a link, not the kind of entry expected, or
    belongs to another user; nothing was read or written through it."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path} {reason}: cuecard reads and writes nothing through it")


def describe(mode: int) -> str:
    """What an entry of ``mode`` is, in words (``a symbolic link``, ``a FIFO``…)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


_EUID = os.geteuid() if hasattr(os, "geteuid") else None
"""This process's effective user: asked once, not at every folder of every walk."""


def _owner_problem(st: os.stat_result) -> str | None:
    euid = _EUID
    if euid is None or st.st_uid == euid:
        return None
    return f"belongs to another user (uid {st.st_uid})"


_HELD: dict[tuple[str, tuple[str, ...]], int] | None = None
"""Inside ``held_folders``: (tree base, folder parts) -> the folder's checked descriptor."""
_HELD_FDS: set[int] = set()
"""Every descriptor the block holds or held: none is closed before the block ends (a caller may
still be using one that was forgotten; closing it could hand its number to another folder)."""


class held_folders:  # noqa: N801 - used as a function: ``with held_folders():``
    """Keep each folder a ``Tree`` opens (and checked) until the block ends, so that the
    operations of one short process (a hook event) walk each folder once (see the module's
    notes for what that guarantees). Nested blocks share the outermost one's folders. For one
    thread; a long-lived process should hold folders only around one unit of work."""

    __slots__ = ("_outer",)

    def __init__(self) -> None:
        self._outer = False

    def __enter__(self) -> None:
        global _HELD
        if _HELD is None and _BY_FD:
            _HELD, self._outer = {}, True

    def __exit__(self, *exc: object) -> None:
        global _HELD
        if self._outer:
            _HELD = None
            for fd in list(_HELD_FDS):
                _close_quietly(fd)
            _HELD_FDS.clear()


def _release(fd: int) -> None:
    """Close a folder descriptor the caller is done with, unless ``held_folders`` keeps it."""
    if fd not in _HELD_FDS:
        os.close(fd)


def _forget(base: str, parts: tuple[str, ...] = ()) -> None:
    """Drop the held folders of ``base`` at ``parts`` and below: the next walk opens them again
    (their descriptors stay open until the block ends)."""
    held = _HELD
    if held is None:
        return
    depth = len(parts)
    for key in [k for k in held if k[0] == base and k[1][:depth] == parts]:
        del held[key]


def _deleted(fd: int) -> bool:
    """Whether the open folder ``fd`` was deleted (no name links it any more)."""
    try:
        return os.fstat(fd).st_nlink == 0
    except OSError:
        return True


def _parts(rel: str) -> list[str]:
    parts = rel.split("/") if rel else []
    for part in parts:
        if part in ("", ".", "..") or "\x00" in part or "\\" in part:
            raise UnsafePath(rel, "is not a plain relative path")
    return parts


class Tree:
    """A folder cuecard does not own (``base``, trusted as given), and the paths below it."""

    __slots__ = ("base",)

    def __init__(self, base: str | os.PathLike[str]) -> None:
        self.base = os.fspath(base)

    def __repr__(self) -> str:
        return f"Tree({self.base!r})"

    def path(self, rel: str) -> str:
        """The full path of ``rel``, for messages."""
        return os.path.join(self.base, *rel.split("/")) if rel else self.base

    # -- walking ----------------------------------------------------------------------------

    def _refuse(self, fd: int, name: str, shown: str) -> UnsafePath:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return UnsafePath(self.path(shown), "cannot be opened as a folder")
        return UnsafePath(self.path(shown), f"is {describe(st.st_mode)}, not a folder")

    def _folder(self, parts: list[str], *, create: bool = False, mode: int = 0o755) -> int:
        """A descriptor of the folder ``parts`` below the base (the caller gives it to
        ``_release``); missing folders are made with ``mode`` when ``create``."""
        if not _BY_FD:
            return self._folder_by_path(parts, create=create)
        if _HELD is not None:
            return self._held_folder(parts, create=create, mode=mode)
        fd = os.open(self.base, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        try:
            for depth in range(len(parts)):
                child = self._child(fd, parts, depth, create, mode)
                os.close(fd)
                fd = child
            return fd
        except BaseException:
            os.close(fd)
            raise

    def _child(self, fd: int, parts: list[str], depth: int, create: bool, mode: int = 0o755) -> int:
        """The checked descriptor of folder ``parts[depth]`` in the open folder ``fd`` (made
        with ``mode`` when missing and ``create``)."""
        part = parts[depth]
        shown = "/".join(parts[: depth + 1])
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            made = True
            try:
                os.mkdir(part, mode, dir_fd=fd)
            except FileExistsError:
                made = False
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                raise self._refuse(fd, part, shown) from None
            if made and depth and tuple(parts[depth - 1 : depth + 1]) == SELF_IGNORING:
                _ignore_all(child)
            elif made and depth > 1 and tuple(parts[depth - 2 : depth]) == MARKED_IN:
                _mark(fd, child)
        except OSError:
            raise self._refuse(fd, part, shown) from None
        try:
            problem = _owner_problem(os.fstat(child))
        except BaseException:
            os.close(child)
            raise
        if problem is not None:
            os.close(child)
            raise UnsafePath(self.path(shown), problem)
        return child

    def _held_folder(
        self, parts: list[str], *, create: bool, mode: int = 0o755, again: bool = True
    ) -> int:
        """``_folder`` inside ``held_folders``: from the deepest folder already held, each
        folder further down opened, checked and held."""
        held = _HELD
        assert held is not None
        base = self.base
        depth = len(parts)
        while depth >= 0 and (base, tuple(parts[:depth])) not in held:
            depth -= 1
        if depth < 0:
            fd = os.open(base, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            held[(base, ())] = fd
            _HELD_FDS.add(fd)
            depth = 0
        else:
            fd = held[(base, tuple(parts[:depth]))]
            if create and depth == len(parts) and again and _deleted(fd):
                _forget(base)  # (deleted since: never written into)
                return self._held_folder(parts, create=create, mode=mode, again=False)
        for at in range(depth, len(parts)):
            try:
                child = self._child(fd, parts, at, create, mode)
            except FileNotFoundError:
                if again and _deleted(fd):  # (a folder deleted since it was held)
                    _forget(base)
                    return self._held_folder(parts, create=create, mode=mode, again=False)
                raise
            held[(base, tuple(parts[: at + 1]))] = child
            _HELD_FDS.add(child)
            fd = child
        return fd

    def _folder_by_path(self, parts: list[str], *, create: bool) -> int:  # pragma: no cover
        here = self.base
        for part in parts:
            here = os.path.join(here, part)
            try:
                st = os.lstat(here)
            except FileNotFoundError:
                if not create:
                    raise
                os.makedirs(here, exist_ok=True)
                st = os.lstat(here)
                if (os.path.basename(os.path.dirname(here)), part) == SELF_IGNORING:
                    _ignore_all_at(here)
            if not stat.S_ISDIR(st.st_mode):
                raise UnsafePath(here, f"is {describe(st.st_mode)}, not a folder")
        return os.open(here, os.O_RDONLY)

    def folder(self, rel: str = "", *, create: bool = False, mode: int = 0o755) -> _Folder:
        """The descriptor of folder ``rel`` for a ``with`` block (made, with ``mode``, when
        ``create``)."""
        return _Folder(self._folder(_parts(rel), create=create, mode=mode))

    def _parent(self, rel: str, *, create: bool = False) -> _Parent:
        parts = _parts(rel)
        if not parts:
            raise UnsafePath(self.base, "is the tree itself, not a file in it")
        return _Parent(self._folder(parts[:-1], create=create), parts[-1])

    def _lstat_in(self, fd: int, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    # -- looking ----------------------------------------------------------------------------

    def lstat(self, rel: str) -> os.stat_result | None:
        """The entry ``rel`` itself (a link is not followed), or ``None`` when there is none;
        ``UnsafePath`` when a folder on the way is not a plain folder of this user."""
        try:
            with self._parent(rel) as (fd, name):
                return self._lstat_in(fd, name)
        except FileNotFoundError:
            return None

    def is_file(self, rel: str) -> bool:
        """Whether ``rel`` is a regular file reached through plain folders."""
        try:
            st = self.lstat(rel)
        except OSError:
            return False
        return st is not None and stat.S_ISREG(st.st_mode)

    def is_dir(self, rel: str) -> bool:
        """Whether ``rel`` is a plain folder reached through plain folders."""
        try:
            st = self.lstat(rel) if rel else os.stat(self.base)
        except OSError:
            return False
        return st is not None and stat.S_ISDIR(st.st_mode)

    def entries(self, rel: str = "") -> list[tuple[str, str]]:
        """``(name, kind)`` of each entry of folder ``rel``, sorted by name; kind is ``dir``,
        ``file``, ``link`` or ``other`` (links are not followed). A missing folder has none."""
        try:
            with self.folder(rel) as fd:
                out = []
                for entry in os.scandir(fd):
                    if entry.is_symlink():
                        kind = "link"
                    elif entry.is_dir(follow_symlinks=False):
                        kind = "dir"
                    elif entry.is_file(follow_symlinks=False):
                        kind = "file"
                    else:
                        kind = "other"
                    out.append((entry.name, kind))
        except FileNotFoundError:
            return []
        return sorted(out)

    # -- reading ----------------------------------------------------------------------------

    def _open_regular(self, fd: int, name: str, rel: str, flags: int) -> int:
        try:
            handle = os.open(name, flags, 0o644, dir_fd=fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            st = self._lstat_in(fd, name)
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise UnsafePath(self.path(rel), f"is {describe(st.st_mode)}") from None
            raise exc from None
        st = os.fstat(handle)
        if not stat.S_ISREG(st.st_mode):
            os.close(handle)
            raise UnsafePath(self.path(rel), f"is {describe(st.st_mode)}, not a regular file")
        return handle

    def read_bytes(self, rel: str, limit: int = 64 * 1024 * 1024, *, whole: bool = True) -> bytes:
        """The bytes of the regular file ``rel`` (``FileNotFoundError`` when there is none;
        ``UnsafePath`` for a link, FIFO, device or socket, or one larger than ``limit`` unless
        ``whole`` is false: then its first ``limit`` bytes)."""
        with self._parent(rel) as (fd, name):
            handle = self._open_regular(fd, name, rel, _READ_FLAGS)
        return self._read_open(handle, rel, limit, whole)

    def read_in(self, fd: int, folder: str, name: str, limit: int = 64 * 1024 * 1024) -> bytes:
        """``read_bytes`` of ``folder/name``, where ``fd`` is ``folder``'s descriptor (from
        ``folder``): one walk to the folder for all the files read in it."""
        rel = f"{folder}/{name}"
        return self._read_open(self._open_regular(fd, name, rel, _READ_FLAGS), rel, limit, True)

    def _read_open(self, handle: int, rel: str, limit: int, whole: bool) -> bytes:
        try:
            if not whole:
                return os.read(handle, limit)
            if os.fstat(handle).st_size > limit:
                raise UnsafePath(self.path(rel), f"holds more than {limit} bytes")
            chunks = []
            left = limit + 1
            while left > 0:
                chunk = os.read(handle, min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(handle)
        data = b"".join(chunks)
        if len(data) > limit:
            raise UnsafePath(self.path(rel), f"holds more than {limit} bytes")
        return data

    def read_text(self, rel: str, limit: int = 64 * 1024 * 1024) -> str:
        """``read_bytes`` decoded as UTF-8 (``ValueError`` when it is not)."""
        return self.read_bytes(rel, limit).decode("utf-8")

    def open_read(self, rel: str) -> int:
        """A descriptor of the regular file ``rel`` open for reading (the caller closes it)."""
        with self._parent(rel) as (fd, name):
            return self._open_regular(fd, name, rel, _READ_FLAGS)

    # -- writing ----------------------------------------------------------------------------

    def mkdirs(self, rel: str, *, mode: int = 0o755) -> None:
        """Make folder ``rel`` and every missing folder above it with ``mode`` (never through a
        link)."""
        with self.folder(rel, create=True, mode=mode):
            pass

    def write(
        self,
        rel: str,
        data: str | bytes,
        *,
        durable: bool = True,
        mode: int | None = None,
        sync_folder: bool = True,
    ) -> None:
        """Replace ``rel`` with ``data`` atomically (a temporary file renamed over it in the same
        folder descriptor); missing folders are made. The file gets ``mode``, or else keeps the
        permission bits of the file it replaces; an entry that is not a regular file is refused,
        never replaced. ``durable``: the file is fsync'd, and its folder too unless
        ``sync_folder`` is false (a caller writing many files fsyncs each folder once)."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        with self._parent(rel, create=True) as (fd, name):
            st = self._lstat_in(fd, name)
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise UnsafePath(self.path(rel), f"is {describe(st.st_mode)}, not a regular file")
            temp = f".{name[:200]}.{os.urandom(6).hex()}.tmp"
            handle = os.open(temp, _CREATE_FLAGS, 0o644 if st is None else 0o600, dir_fd=fd)
            try:
                try:
                    keep = mode
                    if keep is None and st is not None:
                        keep = stat.S_IMODE(st.st_mode)
                    if keep is not None and hasattr(os, "fchmod"):
                        os.fchmod(handle, keep)
                    _write_all(handle, payload)
                    if durable:
                        os.fsync(handle)
                finally:
                    os.close(handle)
                os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                _unlink_quietly(temp, fd)
                raise
            if durable and sync_folder:
                _fsync_quietly(fd)

    def create(
        self,
        rel: str,
        data: str | bytes = b"",
        *,
        atomic: bool = False,
        mode: int = 0o644,
        like: str | None = None,
    ) -> bool:
        """Create ``rel`` holding ``data`` (permission ``mode``) only if no entry of that name
        exists (a link included); ``False`` when one did. ``atomic``: readers never see it
        partly written (written to a temporary file, then linked into place, durably).
        ``like``: a regular file of this user in the tree (a relative path), of which ``rel``
        is made a new name instead (a hard link: the disk allocates no inode for it, and what
        ``rel`` holds is that file's content); when ``like`` is not such a file or cannot be
        linked, ``rel`` is created with ``data``."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        with self._parent(rel, create=True) as (fd, name):
            if like is not None and not atomic:
                linked = self._link_like(like, fd, name)
                if linked is not None:
                    return linked
            if not atomic:
                try:
                    handle = os.open(name, _CREATE_FLAGS, mode, dir_fd=fd)
                except FileExistsError:
                    return False
                try:
                    _write_all(handle, payload)
                finally:
                    os.close(handle)
                return True
            temp = f".{name[:200]}.{os.urandom(6).hex()}.tmp"
            handle = os.open(temp, _CREATE_FLAGS, mode, dir_fd=fd)
            try:
                try:
                    _write_all(handle, payload)
                    os.fsync(handle)
                finally:
                    os.close(handle)
                try:
                    os.link(temp, name, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
                except FileExistsError:
                    return False
            finally:
                _unlink_quietly(temp, fd)
            _fsync_quietly(fd)
            return True

    def _link_like(self, like: str, fd: int, name: str) -> bool | None:
        """``create``'s ``like``: whether ``name`` in folder ``fd`` was made a new name of the
        regular file ``like`` (``False``: an entry of that name exists), or ``None`` when it
        could not be (``like`` missing, not a regular file of this user, or not linkable)."""
        if not _BY_FD:  # (no dir_fd to link with: a file of its own)
            return None
        try:
            with self._parent(like) as (source_fd, source):
                st = os.stat(source, dir_fd=source_fd, follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode) or _owner_problem(st) is not None:
                    return None
                # (an entry swapped in since the stat is linked as itself, never followed)
                os.link(source, name, src_dir_fd=source_fd, dst_dir_fd=fd, follow_symlinks=False)
        except FileExistsError:
            return False
        except OSError:
            return None
        return True

    def move(self, rel: str, to: str) -> bool:
        """Move the regular file ``rel`` to ``to`` (missing folders made) without replacing an
        entry there: ``False`` when ``to`` exists. Linked into place, then unlinked, each in
        its folder's descriptor: a crash leaves the file under both names, never neither."""
        with self._parent(rel) as (fd, name):
            st = self._lstat_in(fd, name)
            if st is None:
                raise FileNotFoundError(self.path(rel))
            if not stat.S_ISREG(st.st_mode):
                raise UnsafePath(self.path(rel), f"is {describe(st.st_mode)}, not a regular file")
            with self._parent(to, create=True) as (target, new):
                try:
                    os.link(name, new, src_dir_fd=fd, dst_dir_fd=target, follow_symlinks=False)
                except FileExistsError:
                    return False
                _fsync_quietly(target)
            os.unlink(name, dir_fd=fd)
            _fsync_quietly(fd)
            return True

    def append(self, rel: str, data: bytes, *, mode: int = 0o644) -> None:
        """Append ``data`` to the regular file ``rel`` (created with ``mode``) in one ``write``
        on ``O_APPEND``, so lines of parallel processes never interleave.

        A log that a reader renames aside to drain it (maintenance) loses no line: the write
        happens under a shared ``flock`` and only while the file is still the one named ``rel``
        (else it goes to the new one); the reader takes the exclusive lock of the renamed file
        (:func:`settled`) before it reads, so every write that began before the rename is in."""
        import fcntl  # a builtin module: no cost worth counting

        with self._parent(rel, create=True) as (fd, name):
            for _attempt in range(3):
                handle = self._open_regular(fd, name, rel, _APPEND_FLAGS)
                try:
                    shared = _flock_briefly(handle, fcntl.LOCK_SH)
                    here = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if shared and not os.path.samestat(here, os.fstat(handle)):
                        continue  # renamed aside since it was opened: write to the new file
                    os.write(handle, data)
                    return
                except FileNotFoundError:
                    continue  # renamed aside and no new file yet: open (create) it again
                finally:
                    os.close(handle)

    def locked(self, rel: str, *, timeout: float = 10.0, poll: float = 0.02) -> _Lock:
        """An exclusive advisory lock on the regular file ``rel`` (created if missing), held for
        a ``with`` block; ``StoreBusy`` when another holder kept it ``timeout`` seconds."""
        return _Lock(self, rel, timeout, poll)

    # -- deleting ---------------------------------------------------------------------------

    def remove(self, rel: str) -> bool:
        """Delete the entry ``rel`` that is not a folder (a link is removed, never followed);
        ``False`` when there was none."""
        try:
            with self._parent(rel) as (fd, name):
                st = self._lstat_in(fd, name)
                if st is None:
                    return False
                if stat.S_ISDIR(st.st_mode):
                    raise UnsafePath(self.path(rel), "is a folder, not a file")
                try:
                    os.unlink(name, dir_fd=fd)
                except FileNotFoundError:
                    return False
                return True
        except FileNotFoundError:
            return False

    def remove_marked(self, rel: str, marker: str = MARKER) -> bool:
        """Delete folder ``rel`` and what it holds, only when it is a plain folder holding the
        regular file ``marker`` (cuecard made it); ``False`` when it was left alone (no marker,
        or not a folder); ``UnsafePath`` when it belongs to another user, as for a folder on the
        way (nothing deleted). Walks by descriptor: a link inside is removed as a link, never
        followed; the marker goes last, so an interrupted deletion is finished by the next
        one."""
        try:
            with self._parent(rel) as (parent, name):
                try:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
                except OSError:
                    return False
                try:
                    problem = _owner_problem(os.fstat(fd))
                    if problem is not None:
                        raise UnsafePath(self.path(rel), problem)
                    st = self._lstat_in(fd, marker)
                    if st is None or not stat.S_ISREG(st.st_mode):
                        return False
                    _clear(fd, 0, keep=marker)
                    os.unlink(marker, dir_fd=fd)
                finally:
                    os.close(fd)
                os.rmdir(name, dir_fd=parent)
                _forget(self.base, tuple(_parts(rel)))
                return True
        except FileNotFoundError:
            return False

    def remove_empty(self, rel: str) -> bool:
        """Delete folder ``rel`` and the folders in it, each only where it is empty once its
        empty subfolders are gone (files are never deleted); by descriptor, a link is never
        followed nor removed. Whether ``rel`` is gone (or was never there)."""
        parts = _parts(rel)
        if not parts:
            raise UnsafePath(self.base, "is the tree itself, not a folder in it")
        try:
            with self._parent(rel) as (parent, name):
                return _remove_empty(parent, name, 0)
        except FileNotFoundError:
            return True


class _Folder:
    """An open folder descriptor for a ``with`` block (closed at its end)."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        _release(self.fd)


class _Parent(_Folder):
    """A file's folder descriptor and its name in it, for a ``with`` block."""

    __slots__ = ("name",)

    def __init__(self, fd: int, name: str) -> None:
        super().__init__(fd)
        self.name = name

    def __enter__(self) -> tuple[int, str]:  # type: ignore[override]
        return self.fd, self.name


class _Lock:
    """``Tree.locked``: the lock is taken on entering the block, dropped on leaving it."""

    __slots__ = ("handle", "poll", "rel", "timeout", "tree")

    def __init__(self, tree: Tree, rel: str, timeout: float, poll: float) -> None:
        self.tree, self.rel, self.timeout, self.poll = tree, rel, timeout, poll
        self.handle = -1

    def __enter__(self) -> None:
        from cuecard.core.base._fsio import flock_within

        tree, rel = self.tree, self.rel
        with tree._parent(rel, create=True) as (fd, name):
            flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC
            self.handle = tree._open_regular(fd, name, rel, flags)
        if not flock_within(self.handle, self.timeout, self.poll):
            os.close(self.handle)
            raise StoreBusy(
                f"{tree.path(rel)}: another cuecard process held the lock for "
                f"{self.timeout:.0f} s; try again"
            )
        try:
            os.ftruncate(self.handle, 0)
            os.write(self.handle, f'{{"pid": {os.getpid()}}}'.encode())
        except OSError:
            pass

    def __exit__(self, *exc: object) -> None:
        os.close(self.handle)


def _close_quietly(fd: int) -> None:
    try:  # noqa: SIM105 - contextlib costs the hook process an import
        os.close(fd)
    except OSError:
        pass


def _unlink_quietly(name: str, fd: int) -> None:
    """Delete ``name`` in folder ``fd``, an ``OSError`` ignored (clean-up of a temporary file)."""
    try:  # noqa: SIM105 - contextlib costs the hook process an import
        os.unlink(name, dir_fd=fd)
    except OSError:
        pass


def _fsync_quietly(fd: int) -> None:
    """Make a folder's new entries durable, an ``OSError`` ignored (not every system can)."""
    try:  # noqa: SIM105 - contextlib costs the hook process an import
        os.fsync(fd)
    except OSError:
        pass


def _ignore_all(folder_fd: int, name: str = ".gitignore", data: bytes = _IGNORE_ALL) -> None:
    """Put the ``.gitignore`` holding ``*`` in a folder just made (``SELF_IGNORING``), or
    another file ``name`` (the marker of ``MARKED_IN``): one exclusive create that follows no
    link; an entry already there, or a failure, is left be (the folder's contents are what
    matter to the caller)."""
    try:
        handle = os.open(name, _CREATE_FLAGS, 0o644, dir_fd=folder_fd)
    except OSError:
        return
    try:
        _write_all(handle, data)
    except OSError:
        pass
    finally:
        os.close(handle)


def _mark(parent: int, folder: int) -> None:
    """Put ``MARKER`` in ``folder``, just made in ``parent`` (a ``MARKED_IN`` folder): a hard link
    to ``parent``'s ``MARK_SOURCE`` (made first when missing), no link followed. When that is not
    a regular file of this user, or cannot be linked (a file system without hard links, or at
    its link limit), the marker is created in ``folder`` as a file of its own."""
    try:
        st = os.stat(MARK_SOURCE, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        _ignore_all(parent, MARK_SOURCE, _SESSION_MARK)
        try:
            st = os.stat(MARK_SOURCE, dir_fd=parent, follow_symlinks=False)
        except OSError:
            st = None
    except OSError:
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and _owner_problem(st) is None:
        try:
            # (an entry swapped in since the stat is linked as itself, never followed: a marker
            # that is not a regular file proves nothing, and its folder is left in place)
            os.link(
                MARK_SOURCE, MARKER, src_dir_fd=parent, dst_dir_fd=folder, follow_symlinks=False
            )
            return
        except OSError:
            pass
    _ignore_all(folder, MARKER, _SESSION_MARK)


def _ignore_all_at(folder: str) -> None:  # pragma: no cover - where dir_fd is missing
    try:
        handle = os.open(os.path.join(folder, ".gitignore"), _CREATE_FLAGS, 0o644)
    except OSError:
        return
    try:
        _write_all(handle, _IGNORE_ALL)
    except OSError:
        pass
    finally:
        os.close(handle)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _clear(fd: int, depth: int, *, keep: str = "") -> None:
    """Delete everything in the open folder ``fd`` but ``keep``, by descriptor."""
    if depth > _MAX_DEPTH:
        raise OSError("a marked folder nested deeper than cuecard makes one")
    for entry in list(os.scandir(fd)):
        name = entry.name
        if name == keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            try:
                _clear(child, depth + 1)
            finally:
                os.close(child)
            os.rmdir(name, dir_fd=fd)
        else:
            os.unlink(name, dir_fd=fd)


def _remove_empty(parent: int, name: str, depth: int) -> bool:
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        return True
    except OSError:
        return False  # a link or not a folder: not removed
    try:
        if _owner_problem(os.fstat(fd)) is not None or depth > _MAX_DEPTH:
            return False
        subfolders = [e.name for e in os.scandir(fd) if e.is_dir(follow_symlinks=False)]
        for sub in subfolders:
            _remove_empty(fd, sub, depth + 1)
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=parent)
    except FileNotFoundError:
        return True
    except OSError:
        return False  # not empty: something else is in it
    _fsync_quietly(parent)
    return True


def unsafe_entries(
    tree: Tree, rel: str, *, skip: frozenset[str] = frozenset(), limit: int = 20
) -> list[tuple[str, str]]:
    """``(path, why)`` for each entry under folder ``rel`` that is not a plain folder or a
    regular file, and each folder another user owns (at most ``limit``, at most 200,000 entries
    looked at), sorted by path; ``skip`` names relative folders not to descend into. Walks by
    descriptor."""
    found: list[tuple[str, str]] = []
    budget = [200_000]
    try:
        with tree.folder(rel) as fd:
            _scan(tree, fd, rel, skip, found, limit, budget, 0)
    except UnsafePath as exc:
        found.append((exc.path, exc.reason))
    except OSError:
        pass
    return sorted(found[:limit])


def _scan(
    tree: Tree,
    fd: int,
    rel: str,
    skip: frozenset[str],
    found: list[tuple[str, str]],
    limit: int,
    budget: list[int],
    depth: int,
) -> None:
    if depth > _MAX_DEPTH or len(found) >= limit:
        return
    with os.scandir(fd) as listing:  # closed when the scan stops early, too
        _scan_entries(tree, fd, rel, skip, found, limit, budget, depth, listing)


def _scan_entries(
    tree: Tree,
    fd: int,
    rel: str,
    skip: frozenset[str],
    found: list[tuple[str, str]],
    limit: int,
    budget: list[int],
    depth: int,
    listing: Iterator[os.DirEntry[str]],
) -> None:
    for entry in listing:
        budget[0] -= 1
        if budget[0] < 0 or len(found) >= limit:
            return
        here = f"{rel}/{entry.name}" if rel else entry.name
        if entry.is_dir(follow_symlinks=False):
            if here in skip:
                continue
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                found.append((tree.path(here), "cannot be opened as a folder"))
                continue
            try:
                problem = _owner_problem(os.fstat(child))
                if problem is not None:
                    found.append((tree.path(here), problem))
                    continue
                _scan(tree, child, here, skip, found, limit, budget, depth + 1)
            finally:
                os.close(child)
        elif not entry.is_file(follow_symlinks=False):
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            found.append((tree.path(here), f"is {describe(mode)}"))


def _flock_briefly(handle: int, kind: int, tries: int = 50) -> bool:
    """Take ``flock`` ``kind`` on ``handle``, trying for about 50 ms (never longer: a hook must
    not wait on a lock another process keeps); whether it was taken."""
    import fcntl
    import time

    for _ in range(tries):
        try:
            fcntl.flock(handle, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(0.001)
        except OSError:
            return False
    return False


def settled(tree: Tree, rel: str, timeout: float = 2.0) -> None:
    """Wait until no append that began before ``rel`` (a log just renamed aside) is still
    writing into it: take its exclusive ``flock`` once, for at most ``timeout`` seconds (the
    file opened through ``tree``)."""
    import fcntl

    try:
        handle = tree.open_read(rel)
    except OSError:
        return
    try:
        _flock_briefly(handle, fcntl.LOCK_EX, tries=max(1, int(timeout * 1000)))
    finally:
        os.close(handle)
