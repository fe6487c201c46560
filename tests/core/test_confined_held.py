"""``held_folders``: inside one block (a hook event) the confined layer walks each folder once,
and what it proves still holds: a folder swapped for a link is never followed, a deleted one is
never written into, and every descriptor is closed when the block ends."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cuecard.core.fs import MARKER, Tree, UnsafePath, held_folders


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "own.txt").write_text("mine\n", encoding="utf-8")
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "base").mkdir()
    return Tree(tmp_path / "base")


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("depth", [1, 2, 3], ids=["top", "middle", "last-folder"])
def test_a_link_at_any_depth_is_refused_inside_a_block(
    tree: Tree, outside: Path, depth: int
) -> None:
    parts = ["a", "b", "c"]
    base = Path(tree.base)
    (base / "/".join(parts[: depth - 1])).mkdir(parents=True, exist_ok=True)
    (base / "/".join(parts[:depth])).symlink_to(outside)
    before = listing(outside)
    rel = "/".join([*parts, "f.txt"])
    with held_folders():
        assert not tree.is_file("a/b/x")  # (the folders above the link held first)
        for operation in (
            lambda: tree.write(rel, "x"),
            lambda: tree.create(rel, "x"),
            lambda: tree.append(rel, b"x"),
            lambda: tree.read_bytes(rel),
            lambda: tree.mkdirs("a/b/c/d"),
            lambda: tree.remove(rel),
        ):
            with pytest.raises(UnsafePath, match="is a symbolic link, not a folder"):
                operation()
    assert listing(outside) == before


def test_a_folder_swapped_for_a_link_during_a_block_is_never_followed(
    tree: Tree, outside: Path
) -> None:
    base = Path(tree.base)
    before = listing(outside)
    with held_folders():
        tree.write("a/b/one.txt", "1")
        # Another process moves the folder away and plants a link in its place.
        (base / "a" / "b").rename(base / "moved")
        (base / "a" / "b").symlink_to(outside)
        tree.write("a/b/two.txt", "2")
        tree.append("a/b/log", b"x\n")
        assert tree.read_text("a/b/one.txt") == "1"
        assert tree.lstat("a/b/own.txt") is None  # (the link's target is never looked in)
    assert listing(outside) == before
    assert sorted(p.name for p in (base / "moved").iterdir()) == ["log", "one.txt", "two.txt"]
    # The next block walks again and meets the link.
    with held_folders(), pytest.raises(UnsafePath, match="is a symbolic link, not a folder"):
        tree.write("a/b/three.txt", "3")


def test_a_folder_deleted_during_a_block_is_made_again_for_a_write(tree: Tree) -> None:
    base = Path(tree.base)
    with held_folders():
        tree.write("a/b/one.txt", "1")
        shutil.rmtree(base / "a")  # another process deletes the folders
        tree.write("a/b/two.txt", "2")
        assert (base / "a" / "b" / "two.txt").read_text(encoding="utf-8") == "2"
        shutil.rmtree(base / "a" / "b")
        tree.mkdirs("a/b/c")  # (a missing folder met in a held one that was deleted)
        assert (base / "a" / "b" / "c").is_dir()
        shutil.rmtree(base / "a")
        assert tree.lstat("a/b/one.txt") is None
        assert tree.create("a/b/three.txt", "3")
    assert (base / "a" / "b" / "three.txt").read_text(encoding="utf-8") == "3"


def test_a_marked_folder_removed_in_a_block_is_forgotten(tree: Tree) -> None:
    base = Path(tree.base)
    with held_folders():
        tree.write(f"index/g1/{MARKER}", "")
        tree.write("index/g1/data", "old")
        assert tree.remove_marked("index/g1")
        assert not (base / "index" / "g1").exists()
        tree.write("index/g1/data", "new")
        assert tree.read_text("index/g1/data") == "new"
    assert (base / "index" / "g1" / "data").read_text(encoding="utf-8") == "new"


def test_every_descriptor_is_closed_when_the_block_ends(tree: Tree) -> None:
    before = open_descriptors()
    with held_folders():
        with held_folders():  # (nested: the outer block keeps the folders)
            tree.write("a/b/c/one.txt", "1")
        tree.read_bytes("a/b/c/one.txt")
        assert tree.entries("a/b/c") == [("one.txt", "file")]
        assert tree.entries("a/b/c") == [("one.txt", "file")]  # (a held folder read twice)
        assert open_descriptors() > before
    assert open_descriptors() == before
    tree.write("a/b/c/two.txt", "2")  # outside a block: walked and closed as before
    assert open_descriptors() == before


def test_a_forgotten_folder_stays_the_one_a_caller_holds(tree: Tree) -> None:
    base = Path(tree.base)
    with held_folders():
        tree.mkdirs("a/b")
        with tree.folder("a/b") as fd:
            shutil.rmtree(base / "a")  # another process deletes the folders
            tree.write("a/b/x.txt", "1")  # made again: the held ones are forgotten
            # The caller's descriptor still names the deleted folder: its number was not
            # closed and handed to the new one.
            assert os.fstat(fd).st_nlink == 0
            assert not os.path.samestat(os.fstat(fd), os.stat(base / "a" / "b"))
    assert (base / "a" / "b" / "x.txt").read_text(encoding="utf-8") == "1"
