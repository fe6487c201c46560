"""`vault init --force` backs the vault up through the confined layer: a link or FIFO that
appears after the check (here: when the backup's name is taken from the clock) is refused and
the vault is not re-created; it was copied into the backup as a link."""

from __future__ import annotations

import os
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.fs import UnsafePath
from cuecard.core.vault import DEFAULT
from cuecard.core.vault.folder import init_vault
from tests._support.planting import entries, snapshot


def state(folder: Path) -> dict[str, Any]:
    """``snapshot``, with a FIFO named, never opened."""
    out: dict[str, Any] = {}
    for rel in entries(folder):
        path = folder / rel
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            out[rel] = ("file", path.read_bytes())
        else:
            out[rel] = ("dir",) if stat.S_ISDIR(mode) else ("other",)
    return out


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "v"
    init_vault(root, DEFAULT)
    (root / "notes" / "environment.md").write_text("# env\n\n- my precious fact\n")
    os.chmod(root / "notes" / "environment.md", 0o600)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text("# theirs\n\n- not the vault's\n")
    return folder


def test_force_backs_up_every_file_with_its_mode(vault: Path) -> None:
    _, backup = init_vault(vault, DEFAULT, force=True)
    assert backup is not None
    assert entries(backup) == entries(vault)
    kept = backup / "notes" / "environment.md"
    assert kept.read_text() == "# env\n\n- my precious fact\n"
    assert os.stat(kept).st_mode & 0o777 == 0o600
    assert "my precious fact" not in (vault / "notes" / "environment.md").read_text()


@pytest.mark.parametrize("planted", ["file-link", "folder-link", "fifo"])
def test_a_link_or_fifo_appearing_after_the_check_refuses_the_backup(
    vault: Path, outside: Path, planted: str
) -> None:
    note = vault / "notes" / "environment.md"

    def clock() -> datetime:  # called once the vault was checked, before it is copied
        if planted == "file-link":
            note.unlink()
            note.symlink_to(outside / "secret.md")
        elif planted == "folder-link":
            os.rename(vault / "inbox", vault.with_name("inbox-kept"))
            (vault / "inbox").symlink_to(outside)
        else:
            os.mkfifo(vault / "notes" / "pipe.md")
        swapped.update(state(vault))
        return datetime(2026, 1, 2, 3, 4, 5)

    swapped: dict[str, Any] = {}
    before = snapshot(outside)
    with pytest.raises(UnsafePath, match=r"is a (symbolic link|FIFO)"):
        init_vault(vault, DEFAULT, force=True, clock=clock)
    assert snapshot(outside) == before
    assert state(vault) == swapped  # not re-created
    [backup] = vault.parent.glob("v-backup-*")
    assert not [p for p in backup.rglob("*") if p.is_symlink() or not (p.is_dir() or p.is_file())]
