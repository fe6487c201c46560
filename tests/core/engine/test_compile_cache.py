"""The per-file compile cache through the CLI and the engine the hook runs: an unchanged file is
not validated again, a changed one is, and a hostile, torn or foreign cache is never trusted or
fatal."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Store
from tests._support.cli import Run
from tests._support.project import add, make_project

MAGIC = b"CUECARD-COMPILE-CACHE-1\n"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = make_project(tmp_path / "repo")
    for area in ("billing", "api", "db"):
        add(store, title=f"{area} trap", triggers=[{"on": ["edit"], "paths": [f"{area}/**"]}])
    return store


@pytest.fixture
def compiled(cc: Run, monkeypatch: pytest.MonkeyPatch) -> Callable[[Store], dict[str, Any]]:
    """``cuecard compile --json`` in the store's folder (in process)."""

    def run(store: Store) -> dict[str, Any]:
        monkeypatch.chdir(store.root)
        code, out, err = cc("compile", "--json")
        assert code == 0, err
        report: dict[str, Any] = json.loads(out)
        return report

    return run


def cache_file(store: Store) -> Path:
    return store.local_dir / "index" / "cache.dat"


def memory_file(store: Store, area: str) -> Path:
    for path in store.memories_dir.glob("*.json"):
        if json.loads(path.read_text())["title"] == f"{area} trap":
            return path
    raise AssertionError(area)


# What cuecard-hook runs for an edit, in a process of its own as the hook is: core's engine.
ENGINE = """
import sys
from cuecard.core.engine import Event, handle
root, target, session = sys.argv[1:]
sys.stdout.write(handle(root, Event("edit", paths=(target,), session=session)).text)
"""


def delivered(store: Store, target: str, session: str) -> str:
    """What the engine gives the agent for an edit of ``target`` (``cuecard-hook``'s answer)."""
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    result = subprocess.run(
        [sys.executable, "-c", ENGINE, str(store.root), target, session],
        capture_output=True,
        text=True,
        cwd=store.root,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def retitle(path: Path, title: str) -> None:
    record = json.loads(path.read_text())
    record["title"] = title
    path.write_text(json.dumps(record), encoding="utf-8")


def test_only_what_changed_is_validated_again(
    store: Store, compiled: Callable[[Store], dict[str, Any]]
) -> None:
    assert compiled(store)["validated"] == 3
    assert compiled(store)["validated"] == 0
    retitle(memory_file(store, "api"), "api trap, revised")
    report = compiled(store)
    assert (report["validated"], report["memories"]) == (1, 3)
    assert "api trap, revised" in delivered(store, "api/x.py", "s1")
    assert "billing trap" in delivered(store, "billing/x.py", "s1")


def test_a_touched_file_is_taken_from_the_cache_by_its_hash(
    store: Store, compiled: Callable[[Store], dict[str, Any]]
) -> None:
    compiled(store)
    path = memory_file(store, "db")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # a checkout that rewrote the same bytes
    assert compiled(store)["validated"] == 0
    assert "db trap" in delivered(store, "db/x.py", "s1")
    assert compiled(store)["validated"] == 0  # the new stamp is cached


def test_a_same_size_rewrite_that_keeps_the_stamp_is_seen(
    store: Store, compiled: Callable[[Store], dict[str, Any]]
) -> None:
    path = memory_file(store, "api")
    compiled(store)
    stamp = path.stat()
    text = path.read_text().replace('"api trap"', '"API TRAP"')  # the same length
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert path.stat().st_size == stamp.st_size
    assert compiled(store)["validated"] == 1
    assert "API TRAP" in delivered(store, "api/x.py", "s1")


def test_a_removed_file_leaves_the_index(
    store: Store, compiled: Callable[[Store], dict[str, Any]]
) -> None:
    compiled(store)
    memory_file(store, "db").unlink()
    report = compiled(store)
    assert (report["validated"], report["memories"]) == (0, 2)
    assert delivered(store, "db/x.py", "s1") == ""


def _signed(body: bytes) -> bytes:
    return MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _torn(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flipped(data: bytes) -> bytes:
    return data.replace(b"billing trap", b"billing TRAP")


def _resigned(data: bytes, edit: Callable[[list[bytes]], list[bytes]]) -> bytes:
    body = data.split(b"\n", 2)[2]
    return _signed(b"\n".join(edit(body.split(b"\n"))))


def _malformed_lines(lines: list[bytes]) -> list[bytes]:
    """A correctly signed cache whose every entry line is broken in another way."""
    head, entries = lines[:2], lines[2:]
    broken = []
    for i, line in enumerate(entries):
        fields = line.split(b"\t")
        if i % 3 == 0:
            fields[1] = b"9" * 5000  # not an int Python will read
        elif i % 3 == 1:
            fields[6] = b'{"id": 1'  # a record that is not a JSON object
        else:
            fields = fields[:7]  # too few fields
        broken.append(b"\t".join(fields))
    return [*head, *broken, b"\xff\xfe not utf-8 \t\t\t"]


HOSTILE: dict[str, Callable[[bytes], bytes]] = {
    "garbage": lambda _data: os.urandom(4096),
    "empty": lambda _data: b"",
    "torn": _torn,
    "edited without its checksum": _flipped,
    "another version": lambda data: _resigned(data, lambda ls: [b"0-0.0-c0", *ls[1:]]),
    "a bad racy time": lambda data: _resigned(data, lambda ls: [ls[0], b"soon", *ls[2:]]),
    "signed but malformed": lambda data: _resigned(data, _malformed_lines),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_cache_is_never_trusted_nor_fatal(
    store: Store, compiled: Callable[[Store], dict[str, Any]], name: str
) -> None:
    compiled(store)
    cache = cache_file(store)
    good = cache.read_bytes()
    cache.write_bytes(HOSTILE[name](good))
    add(store, title="queue trap", triggers=[{"on": ["edit"], "paths": ["queue/**"]}])
    # The hook finds its index stale (a memory was added) and compiles over the bad cache.
    assert "queue trap" in delivered(store, "queue/x.py", "s1")
    given = delivered(store, "billing/x.py", "s1")
    assert "billing trap" in given
    assert "billing TRAP" not in given
    cache.write_bytes(HOSTILE[name](good))
    report = compiled(store)
    assert (report["memories"], report["problems"]) == (4, [])
    assert report["validated"] == 4  # nothing of the bad cache was used
    assert compiled(store)["validated"] == 0  # and a good one replaced it


def test_a_cache_that_is_not_a_regular_file_is_passed_over(
    store: Store, compiled: Callable[[Store], dict[str, Any]]
) -> None:
    compiled(store)
    cache = cache_file(store)
    cache.unlink()
    os.mkfifo(cache)  # a read would block forever
    report = compiled(store)
    assert (report["validated"], report["memories"]) == (3, 3)
    cache.unlink()
    cache.symlink_to("/dev/zero")
    assert compiled(store)["validated"] == 3
    victim = store.root.parent / "victim.txt"
    victim.write_text("mine", encoding="utf-8")
    cache.unlink()
    cache.symlink_to(victim)  # the cache is written in its place, never through it
    assert compiled(store)["validated"] == 3
    assert victim.read_text(encoding="utf-8") == "mine"
    assert not cache.is_symlink()
    assert cache.read_bytes().startswith(MAGIC)
    cache.unlink()
    with cache.open("wb") as handle:  # larger than any cache is read (a sparse file)
        handle.truncate(300 * 1024 * 1024)
    assert compiled(store)["validated"] == 3


def generation_files(store: Store) -> dict[str, bytes]:
    """The files of the current index generation, ``meta.json`` without its compile time."""
    index = store.local_dir / "index"
    folder = index / (index / "CURRENT").read_text().strip()
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    meta = json.loads(files["meta.json"])
    del meta["compiled_at"]
    files["meta.json"] = json.dumps(meta, sort_keys=True).encode()
    return files


def test_the_index_is_the_same_bytes_however_it_was_compiled(
    store: Store, compiled: Callable[[Store], dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From scratch in one process, in worker processes, and from the per-file cache (by stamp,
    and by hash after a checkout): the same tables, byte for byte. The store holds prose that
    only looks like a credential ("api key", "token"), a check, a dormant memory, a broken file
    and a file that holds a credential."""
    from tests._support.internals import compiler as _compiler

    add(
        store,
        title="the api key rotation",
        body="Rotate the api key before the token budget runs out; key rotation is monthly.",
        triggers=[{"on": ["prompt"], "keywords": ["token refresh", "key rotation"]}],
    )
    add(
        store,
        title="no print in billing",
        triggers=[{"on": ["edit"], "paths": ["billing/*.py"]}],
        check={"if_content": r"print\(", "violates": ["print(x)"], "passes": ["log(x)"]},
    )
    add(store, status="archived", triggers=[{"on": ["edit"], "paths": ["old/**"]}])
    leaked = json.loads(memory_file(store, "db").read_text())
    (store.memories_dir / "broken.json").write_text("{")
    leaked["id"] = "0b7e3c2a-5d4f-4e6a-8b9c-1d2e3f4a5b6c"
    leaked["body"] = "token: 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
    (store.memories_dir / f"{leaked['id']}.json").write_text(json.dumps(leaked, indent=2))
    cache_file(store).unlink(missing_ok=True)
    first = compiled(store)
    assert (first["memories"], first["checks"], len(first["problems"])) == (5, 1, 2)
    assert any("credential-shaped" in p for p in first["problems"])
    serial = generation_files(store)
    assert compiled(store)["validated"] == 0
    assert generation_files(store) == serial
    stamps = {path: path.stat().st_mtime_ns for path in store.memories_dir.glob("*.json")}
    for path in stamps:  # a checkout: new stamps, then the old ones back (records name them)
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    assert compiled(store)["validated"] == 0
    for path, stamp in stamps.items():
        os.utime(path, ns=(stamp, stamp))
    assert compiled(store)["validated"] == 0
    assert generation_files(store) == serial
    monkeypatch.setattr(_compiler, "PARALLEL_FROM", 1)
    cache_file(store).unlink()
    assert compiled(store)["validated"] == 8
    assert generation_files(store) == serial
