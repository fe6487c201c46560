"""SQLite databases under a folder cuecard does not own are opened through the confined layer
(``cuecard.core.fs.connect_database``): a database, a side file or a folder on the way that is
a link is refused or not followed, also when it is swapped in after the layer's check; the file
SQLite opened is the one the layer proved."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.fs import Tree, UnsafePath, connect_database, held_folders
from tests._support.cli import BIN
from tests._support.planting import snapshot
from tests._support.project import make_project

LINUX = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A canary folder holding a database of its own."""
    folder = tmp_path / "outside"
    folder.mkdir()
    with sqlite3.connect(folder / "db.sqlite") as conn:
        conn.execute("CREATE TABLE canary (x)")
    conn.close()
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "base" / "a").mkdir(parents=True)
    return Tree(tmp_path / "base")


def tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master")]
    conn.close()
    return sorted(names)


def test_a_database_is_made_through_the_layer_and_used(tree: Tree) -> None:
    conn = connect_database(tree, "a/b/db.sqlite", isolation_level=None, mode=0o600)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    path = Path(tree.base, "a", "b", "db.sqlite")
    assert os.stat(path).st_mode & 0o777 == 0o600
    reader = connect_database(tree, "a/b/db.sqlite", readonly=True)
    assert reader.execute("SELECT x FROM t").fetchall() == [(1,)]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader.execute("INSERT INTO t VALUES (2)")
    reader.close()
    with pytest.raises(FileNotFoundError):
        connect_database(tree, "a/missing.sqlite", readonly=True)
    assert not Path(tree.base, "a", "missing.sqlite").exists()


@pytest.mark.parametrize("name", ["db.sqlite", "db.sqlite-wal", "db.sqlite-journal"])
@pytest.mark.parametrize("readonly", [False, True], ids=["write", "read"])
def test_a_planted_link_as_the_database_or_a_side_file_is_refused(
    tree: Tree, outside: Path, name: str, readonly: bool
) -> None:
    Path(tree.base, "a", "db.sqlite").write_bytes(b"")
    planted = Path(tree.base, "a", name)
    planted.unlink(missing_ok=True)
    planted.symlink_to(outside / "db.sqlite")
    before = snapshot(outside)
    with pytest.raises(UnsafePath, match="is a symbolic link, not a regular file"):
        connect_database(tree, "a/db.sqlite", readonly=readonly)
    assert snapshot(outside) == before


def test_a_linked_folder_on_the_way_is_refused(tree: Tree, outside: Path) -> None:
    os.rmdir(Path(tree.base, "a"))
    Path(tree.base, "a").symlink_to(outside)
    before = snapshot(outside)
    for readonly in (False, True):
        with pytest.raises(UnsafePath, match="is a symbolic link, not a folder"):
            connect_database(tree, "a/db.sqlite", readonly=readonly)
    assert snapshot(outside) == before


def _swapping(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Run ``swap`` at the last moment: after the layer's checks, as SQLite opens the file."""
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        swap()
        conn: sqlite3.Connection = real(*args, **kwargs)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


@LINUX
def test_a_database_swapped_for_a_link_as_sqlite_opens_it_is_refused(
    tree: Tree, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = Path(tree.base, "a", "db.sqlite")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE own (x)")
    conn.close()

    def swap() -> None:
        os.rename(path, path.with_name("moved.sqlite"))
        path.symlink_to(outside / "db.sqlite")

    _swapping(monkeypatch, swap)
    before = snapshot(outside)
    with pytest.raises(UnsafePath, match="replaced by another file while SQLite opened it"):
        connect_database(tree, "a/db.sqlite")
    monkeypatch.undo()
    assert snapshot(outside) == before
    assert tables(outside / "db.sqlite") == ["canary"]


@LINUX
def test_a_folder_swapped_for_a_link_as_sqlite_opens_the_database_is_not_followed(
    tree: Tree, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite is given the path through the folder the layer checked (``/proc/self/fd``): the
    database it opens is the one in that folder, wherever the folder now is."""
    folder = Path(tree.base, "a")

    def swap() -> None:
        os.rename(folder, folder.with_name("moved"))
        folder.symlink_to(outside)

    _swapping(monkeypatch, swap)
    before = snapshot(outside)
    conn = connect_database(tree, "a/db.sqlite", isolation_level=None)
    monkeypatch.undo()
    conn.execute("CREATE TABLE own (x)")
    conn.close()
    assert snapshot(outside) == before
    assert tables(folder.with_name("moved") / "db.sqlite") == ["own"]


def test_inside_a_block_a_held_folder_swapped_for_a_link_is_not_followed(
    tree: Tree, outside: Path
) -> None:
    folder = Path(tree.base, "a")
    with held_folders():
        assert not tree.is_file("a/db.sqlite")  # the folder checked and held
        os.rename(folder, folder.with_name("moved"))
        folder.symlink_to(outside)
        before = snapshot(outside)
        conn = connect_database(tree, "a/db.sqlite", isolation_level=None)
        conn.execute("CREATE TABLE own (x)")
        conn.close()
    assert snapshot(outside) == before
    assert tables(folder.with_name("moved") / "db.sqlite") == ["own"]


# -- through the command line: maintenance's telemetry database ---------------------------------


def _holding(pid: int, name: str) -> bool:
    """Whether process ``pid`` has a file called ``name`` open."""
    folder = f"/proc/{pid}/fd"
    for fd in os.listdir(folder):
        try:
            if os.readlink(f"{folder}/{fd}").endswith(f"/{name}"):
                return True
        except OSError:
            continue
    return False


@LINUX
@pytest.mark.parametrize("planted", ["database", "folder"])
def test_telemetry_swapped_for_a_link_while_maintain_waits_for_its_lock_is_not_followed(
    tmp_path: Path, outside: Path, planted: str
) -> None:
    """`cuecard maintain` checked ``telemetry.sqlite`` and then waited for another run's lock
    (up to a minute) before SQLite opened the file by path: a link swapped in meanwhile, as the
    database or as ``.cuecard/local``, was followed and the schema written into its target.
    Now the database is opened through the layer once the lock is held: the link is refused."""
    store = make_project(tmp_path / "repo")
    cuecard = str(BIN / "cuecard")
    done = subprocess.run([cuecard, "maintain"], cwd=store.root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    local = store.local_dir
    (outside / "telemetry.sqlite").write_bytes((outside / "db.sqlite").read_bytes())
    before = snapshot(outside)
    lock = os.open(local / "maintain.lock", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        run = subprocess.Popen(
            [cuecard, "maintain", "--json"],
            cwd=store.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60  # a liveness bound, not a timing
        while not _holding(run.pid, "maintain.lock"):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        if planted == "database":
            os.rename(local / "telemetry.sqlite", local / "kept.sqlite")
            (local / "telemetry.sqlite").symlink_to(outside / "telemetry.sqlite")
        else:
            os.rename(local, local.with_name("local-kept"))
            local.symlink_to(outside)
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
    out, err = run.communicate(timeout=120)
    assert snapshot(outside) == before
    assert tables(outside / "telemetry.sqlite") == ["canary"]
    assert run.returncode != 0, out
    assert "symbolic link" in err
