"""A vault is recognised by its folders only where they are plain folders: a link in place of
``notes/``, ``inbox/`` or ``50-Agent-Context/`` is not a vault's folder (it was followed, and a
folder of two links outside passed for a vault: ``status`` reported it, ``search`` searched it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._support.cli import Run
from tests._support.planting import snapshot


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    for name in ("notes", "inbox", "50-Agent-Context"):
        (folder / name).mkdir(parents=True)
    (folder / "notes" / "environment.md").write_text("# env\n\n- billing runs nightly\n")
    (folder / "50-Agent-Context" / "工具可用性.md").write_text("# 工具\n\n- billing 可用\n")
    return folder


@pytest.mark.parametrize(
    "linked", [("notes", "inbox"), ("notes",), ("50-Agent-Context",)], ids=["both", "notes", "uam"]
)
def test_a_vault_whose_folders_are_links_is_not_a_vault(
    cc: Run, tmp_path: Path, outside: Path, linked: tuple[str, ...]
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    for name in ("notes", "inbox"):
        if name not in linked and "50-Agent-Context" not in linked:
            (vault / name).mkdir()
    for name in linked:
        (vault / name).symlink_to(outside / name)
    before = snapshot(outside)
    for command in ("status", "search"):
        args = ["vault", command, *(["billing"] if command == "search" else [])]
        code, out, err = cc(*args, "--vault", str(vault))
        assert code == 1, out
        assert "no vault here" in err
        assert "billing" not in out
    code, _, err = cc("vault", "init", "--vault", str(vault))
    if "notes" in linked:  # init makes the default layout's folders: never through the link
        assert code == 1
        assert "notes is a symbolic link, not a folder" in err
    assert snapshot(outside) == before
