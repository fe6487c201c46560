"""The confined filesystem layer (``cuecard.core.fs.Tree``): no link followed at any depth,
no FIFO or device opened, nothing deleted that cuecard cannot prove it made."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cuecard.core.fs import MARKER, Tree, UnsafePath, unsafe_entries


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "deep").mkdir(parents=True)
    (folder / "own.txt").write_text("mine\n", encoding="utf-8")
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "base").mkdir()
    return Tree(tmp_path / "base")


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("depth", [1, 2, 3], ids=["top", "middle", "last-folder"])
def test_a_link_at_any_depth_is_refused_for_every_operation(
    tree: Tree, outside: Path, depth: int
) -> None:
    parts = ["a", "b", "c"]
    base = Path(tree.base)
    (base / "/".join(parts[: depth - 1])).mkdir(parents=True, exist_ok=True)
    (base / "/".join(parts[:depth])).symlink_to(outside)
    before = listing(outside)
    rel = "/".join([*parts, "f.txt"])
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
    assert (outside / "own.txt").read_text(encoding="utf-8") == "mine\n"


def test_a_fifo_is_refused_without_blocking_and_a_link_file_never_written(
    tree: Tree, outside: Path
) -> None:
    base = Path(tree.base)
    os.mkfifo(base / "pipe")
    (base / "link").symlink_to(outside / "own.txt")
    for name in ("pipe", "link"):
        with pytest.raises(UnsafePath):
            tree.read_bytes(name)
        with pytest.raises(UnsafePath):
            tree.append(name, b"x")
        with pytest.raises(UnsafePath):
            tree.write(name, "x")  # an entry that is not a regular file is never replaced
        assert tree.create(name, "x") is False
    assert (outside / "own.txt").read_text(encoding="utf-8") == "mine\n"
    assert tree.remove("link") is True  # the link itself goes, never its target
    assert (outside / "own.txt").exists()


def test_write_create_append_and_read(tree: Tree) -> None:
    tree.write("a/b/file.json", "one")
    assert tree.read_text("a/b/file.json") == "one"
    os.chmod(Path(tree.base) / "a/b/file.json", 0o600)
    tree.write("a/b/file.json", b"two")
    assert tree.read_bytes("a/b/file.json") == b"two"
    assert os.stat(Path(tree.base) / "a/b/file.json").st_mode & 0o777 == 0o600
    assert tree.create("a/new", "x", atomic=True) is True
    assert tree.create("a/new", "y", atomic=True) is False
    tree.append("a/log", b"1\n")
    tree.append("a/log", b"2\n")
    assert tree.read_bytes("a/log") == b"1\n2\n"
    with pytest.raises(UnsafePath, match="more than 2 bytes"):
        tree.read_bytes("a/log", 2)
    assert tree.read_bytes("a/log", 2, whole=False) == b"1\n"
    assert tree.entries("a") == [("b", "dir"), ("log", "file"), ("new", "file")]
    assert sorted(os.listdir(Path(tree.base) / "a")) == ["b", "log", "new"]  # no temp left
    with pytest.raises(UnsafePath, match="not a plain relative path"):
        tree.write("a/../b", "x")


def test_only_a_marked_folder_is_deleted_and_links_inside_are_not_followed(
    tree: Tree, outside: Path
) -> None:
    base = Path(tree.base)
    (base / "mine" / "sub").mkdir(parents=True)
    assert tree.remove_marked("mine") is False  # no marker: not cuecard's
    assert (base / "mine" / "sub").is_dir()
    tree.create(f"gen/{MARKER}")
    tree.write("gen/sub/data", "x")
    (base / "gen" / "out").symlink_to(outside)
    (base / "gen" / "sub" / "out").symlink_to(outside / "own.txt")
    (base / "glink").symlink_to(base / "gen")
    assert tree.remove_marked("glink") is False  # a link to a marked folder is left alone
    assert tree.remove_marked("gen") is True
    assert not (base / "gen").exists()
    assert listing(outside) == ["deep", "own.txt"]


def test_modes_of_new_files_and_folders(tree: Tree) -> None:
    base = Path(tree.base)
    tree.mkdirs("private/inner", mode=0o700)
    assert os.stat(base / "private").st_mode & 0o777 == 0o700
    tree.write("private/inner/f", "x", mode=0o600, sync_folder=False)
    assert os.stat(base / "private/inner/f").st_mode & 0o777 == 0o600
    tree.write("private/inner/f", "y", mode=0o640)  # a given mode wins over the file's own
    assert os.stat(base / "private/inner/f").st_mode & 0o777 == 0o640
    assert tree.create("private/db", mode=0o600) is True
    assert os.stat(base / "private/db").st_mode & 0o777 == 0o600


def test_remove_empty_deletes_only_empty_folders_and_follows_no_link(
    tree: Tree, outside: Path
) -> None:
    base = Path(tree.base)
    (base / "top/empty/deeper").mkdir(parents=True)
    (base / "top/kept").mkdir()
    (base / "top/kept/file").write_text("x", encoding="utf-8")
    (base / "top/link").symlink_to(outside / "deep")
    assert tree.remove_empty("top") is False  # a file and a link are still in it
    assert sorted(os.listdir(base / "top")) == ["kept", "link"]
    assert (base / "top/kept/file").read_text(encoding="utf-8") == "x"
    (base / "alias").symlink_to(base / "top")
    assert tree.remove_empty("alias") is False  # a link is neither followed nor removed
    assert (base / "alias").is_symlink()
    (base / "top/link").unlink()
    (base / "top/kept/file").unlink()
    assert tree.remove_empty("top") is True
    assert not (base / "top").exists()
    assert tree.remove_empty("never-there") is True
    assert listing(outside) == ["deep", "own.txt"]


def test_another_users_folder_is_refused_and_listed(tree: Tree) -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    base = Path(tree.base)
    (base / "theirs").mkdir()
    os.chown(base / "theirs", 4242, 4242)
    with pytest.raises(UnsafePath, match=r"belongs to another user \(uid 4242\)"):
        tree.write("theirs/f", "x")
    assert unsafe_entries(tree, "") == [
        (str(base / "theirs"), "belongs to another user (uid 4242)")
    ]


def test_unsafe_entries_names_each_link_and_special_file(tree: Tree, outside: Path) -> None:
    base = Path(tree.base)
    tree.write("a/b/ok.txt", "x")
    (base / "a" / "link").symlink_to(outside)
    os.mkfifo(base / "a" / "b" / "pipe")
    assert unsafe_entries(tree, "") == [
        (str(base / "a" / "b" / "pipe"), "is a FIFO"),
        (str(base / "a" / "link"), "is a symbolic link"),
    ]
    assert unsafe_entries(tree, "", skip=frozenset({"a/b"})) == [
        (str(base / "a" / "link"), "is a symbolic link")
    ]


SESSIONS = ".cuecard/local/sessions"


def test_session_folders_share_one_marker_file_and_a_planted_one_is_never_linked(
    tree: Tree, outside: Path
) -> None:
    """Each session folder the layer makes holds cuecard's marker, a hard link to the one
    ``.cuecard-made.source`` beside them (a new name, where a new file costs the disk an inode);
    a link or a FIFO planted in the source's place is never linked through: the marker is then a
    file of its own, and the outside stays as it was."""
    base = Path(tree.base)
    tree.create(f"{SESSIONS}/s1/e0/_/m1")
    tree.create(f"{SESSIONS}/s2/e0/_/m1")
    source = base / SESSIONS / ".cuecard-made.source"
    first, second = base / SESSIONS / "s1" / MARKER, base / SESSIONS / "s2" / MARKER
    assert source.is_file()
    assert not source.is_symlink()
    assert first.is_file()
    assert not first.is_symlink()
    assert os.path.samefile(first, second)
    assert os.path.samefile(first, source)
    assert os.stat(source).st_nlink == 3
    assert tree.remove_marked(f"{SESSIONS}/s1")
    assert not (base / SESSIONS / "s1").exists()
    assert second.is_file()
    assert os.stat(source).st_nlink == 2
    before = listing(outside)
    source.unlink()
    source.symlink_to(outside / "own.txt")
    tree.create(f"{SESSIONS}/s3/e0/_/m1")
    third = base / SESSIONS / "s3" / MARKER
    assert third.is_file()
    assert not third.is_symlink()
    assert os.stat(third).st_nlink == 1
    source.unlink()
    os.mkfifo(source)
    tree.create(f"{SESSIONS}/s4/e0/_/m1")
    fourth = base / SESSIONS / "s4" / MARKER
    assert fourth.is_file()
    assert os.stat(fourth).st_nlink == 1
    assert listing(outside) == before
    assert (outside / "own.txt").read_text(encoding="utf-8") == "mine\n"
    assert tree.remove_marked(f"{SESSIONS}/s3")
    assert tree.remove_marked(f"{SESSIONS}/s4")


def test_create_like_makes_a_new_name_of_a_regular_file_and_never_links_a_planted_one(
    tree: Tree, outside: Path
) -> None:
    """``create(rel, data, like=...)`` gives ``rel`` as a new name of the regular file ``like``
    (no inode of its own), exclusively; when ``like`` is missing, a link or a FIFO, ``rel`` is a
    file of its own holding ``data``, and nothing outside changes."""
    base = Path(tree.base)
    tree.create("src/one", b"shared\n")
    assert tree.create("a/b/c", b"own\n", like="src/one")
    assert os.path.samefile(base / "a/b/c", base / "src/one")
    assert not tree.create("a/b/c", b"own\n", like="src/one")  # taken: exclusive, as a file
    assert not tree.create("a/b/c", b"own\n")
    assert os.stat(base / "src/one").st_nlink == 2
    assert tree.create("a/b/d", b"own\n", like="src/missing")
    assert (base / "a/b/d").read_bytes() == b"own\n"
    before = listing(outside)
    (base / "src/link").symlink_to(outside / "own.txt")
    os.mkfifo(base / "src/fifo")
    for planted in ("link", "fifo"):
        assert tree.create(f"a/b/{planted}", b"own\n", like=f"src/{planted}")
        made = base / "a/b" / planted
        assert not made.is_symlink()
        assert made.read_bytes() == b"own\n"
        assert os.stat(made).st_nlink == 1
    assert listing(outside) == before
    assert (outside / "own.txt").read_text(encoding="utf-8") == "mine\n"
