"""Creating a vault from a layout's templates; ``--force`` first backs the old one up."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cuecard.core.base._confined import Tree, UnsafePath, describe, unsafe_entries
from cuecard.core.vault._errors import VaultError, VaultExists
from cuecard.core.vault._layout import Layout, detect_layout
from cuecard.core.vault.folder._vault import Clock, Vault, _local_now

__all__ = ["init_vault"]


def _backup(root: Path, clock: Clock) -> Path:
    """Copy the vault beside itself through the confined layer: each folder walked and each
    file opened by descriptor, no link followed. A link, FIFO, device or socket anywhere in it
    refuses the backup (and so ``--force``), naming the path, also one that appears while the
    copy runs: nothing is copied through it or from it, and the vault is not re-created."""
    source = Tree(root)
    unsafe = unsafe_entries(source, "", limit=1)
    if unsafe:
        raise UnsafePath(*unsafe[0])
    base = root.with_name(f"{root.name}-backup-{clock().strftime('%Y%m%d-%H%M%S')}")
    target, n = base, 2
    while True:
        try:  # made here, exclusively: never an existing folder, nor through a link
            os.mkdir(target, stat.S_IMODE(os.stat(root).st_mode))
            break
        except FileExistsError:
            target = base.with_name(f"{base.name}-{n}")
            n += 1
    try:
        _copy(source, Tree(target), "", 0)
    except UnsafePath:
        raise
    except OSError as exc:
        raise VaultError(
            f"{root}: the backup to {target} failed ({exc}); nothing was re-created"
        ) from None
    return target


_DEPTH = 64
"""Folders nested deeper than this in a vault are not copied (the backup fails)."""
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _copy(source: Tree, target: Tree, rel: str, depth: int) -> None:
    """Copy folder ``rel`` of ``source`` to the same place in ``target``, by descriptor."""
    if depth > _DEPTH:
        raise UnsafePath(source.path(rel), f"is nested deeper than {_DEPTH} folders")
    for name, kind in source.entries(rel):
        here = f"{rel}/{name}" if rel else name
        if kind == "dir":
            target.mkdirs(here)
            _copy(source, target, here, depth + 1)
        elif kind == "file":
            _copy_file(source, target, here)
        else:
            st = source.lstat(here)
            what = describe(st.st_mode) if st is not None else "gone"
            raise UnsafePath(source.path(here), f"is {what}, not a regular file")


def _copy_file(source: Tree, target: Tree, rel: str) -> None:
    handle = source.open_read(rel)  # a regular file, never a link, never waited on
    try:
        mode = stat.S_IMODE(os.fstat(handle).st_mode)
        folder, _, name = rel.rpartition("/")
        with target.folder(folder) as fd:
            out = os.open(name, _WRITE, mode, dir_fd=fd)
        try:
            while chunk := os.read(handle, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view) :]
            os.fsync(out)
        finally:
            os.close(out)
    finally:
        os.close(handle)


def init_vault(
    root: Path, layout: Layout, *, force: bool = False, clock: Clock | None = None
) -> tuple[Vault, Path | None]:
    """Create the vault at ``root``; return it and the backup made (``--force`` only)."""
    clock = clock or _local_now
    existing = detect_layout(root) if root.is_dir() else None
    backup = None
    if existing is not None:
        if not force:
            raise VaultExists(
                f"{root}: a vault ({existing.name} layout) is already here; "
                "--force re-creates its notes from the templates after backing it up"
            )
        backup = _backup(root, clock)
    vault = Vault(root, layout, clock=clock)
    for folder in (
        layout.notes_dir,
        layout.inbox,
        layout.processed,
        layout.forgotten,
        layout.sessions,
        Path(layout.pending).parent.as_posix(),
    ):
        root.mkdir(parents=True, exist_ok=True)  # the folder the person names
        vault.tree.mkdirs(folder)
    for note_id, text in layout.notes_templates.items():
        vault.write(vault.note_file(note_id), text)
    for rel, text in layout.extra_files.items():
        if force or vault.tree.lstat(rel) is None:
            vault.write(root / rel, text)
    return vault, backup
