"""Creating a vault from a layout's templates; ``--force`` first backs the old one up."""

from __future__ import annotations

import shutil
from pathlib import Path

from cuecard.core.base._confined import Tree, UnsafePath, unsafe_entries
from cuecard.core.vault._errors import VaultError, VaultExists
from cuecard.core.vault._layout import Layout, detect_layout
from cuecard.core.vault.folder._vault import Clock, Vault, _local_now

__all__ = ["init_vault"]


def _backup(root: Path, clock: Clock) -> Path:
    """Copy the vault beside itself. A link, FIFO, device or socket anywhere in it refuses the
    backup (and so ``--force``), naming the path: nothing is copied through it or from it."""
    unsafe = unsafe_entries(Tree(root), "", limit=1)
    if unsafe:
        raise UnsafePath(*unsafe[0])
    base = root.with_name(f"{root.name}-backup-{clock().strftime('%Y%m%d-%H%M%S')}")
    target, n = base, 2
    while target.exists():
        target = base.with_name(f"{base.name}-{n}")
        n += 1
    try:
        shutil.copytree(root, target, symlinks=True)
    except shutil.Error as exc:  # an entry replaced by a special file while it was copied
        raise VaultError(
            f"{root}: the backup to {target} failed ({exc}); nothing was re-created"
        ) from None
    return target


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
