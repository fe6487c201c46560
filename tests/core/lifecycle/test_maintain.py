"""Maintenance: roll-up into telemetry.sqlite, pruning, each retirement rule, the daily spawn."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Store
from cuecard.core.engine import maintain_if_due
from cuecard.core.fs import MARKER
from cuecard.core.lifecycle._maintain import maintain
from cuecard.core.review import health_report
from tests._support.cli import BIN
from tests._support.lifecycle import DAY, cli, record_session
from tests._support.project import add, make_project

NOW = time.time()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return make_project(tmp_path / "repo")


def _old(days: float) -> str:
    return datetime.fromtimestamp(NOW - days * DAY, UTC).isoformat()


def _set_retire(store: Store, after: int) -> None:
    path = store.dir / "config.json"
    config = json.loads(path.read_text())
    config["retire"] = {"after_sessions": after}
    path.write_text(json.dumps(config))


def _db(store: Store, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store.local_dir / "telemetry.sqlite") as conn:
        return list(conn.execute(query))


def _status(store: Store, memory_id: str) -> str:
    status = json.loads((store.memories_dir / f"{memory_id}.json").read_text())["status"]
    assert isinstance(status, str)
    return status


# -- roll-up and pruning -------------------------------------------------------------------------


def test_sessions_roll_up_and_only_idle_ones_are_pruned(store: Store) -> None:
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/**"]}], created_at=_old(30))
    record_session(store, "old", at=NOW - 10 * DAY, calls=[("edit", "src/a.py")], asks=1)
    record_session(store, "fresh", at=NOW - DAY, calls=[("read", "src/b.py")], corrections=2)
    report = maintain(store, clock=lambda: NOW)
    assert report.sessions_rolled == 2
    assert report.sessions_pruned == 1
    assert not (store.local_dir / "sessions" / "old").exists()
    assert (store.local_dir / "sessions" / "fresh" / "footprint.jsonl").is_file()
    names = {row[0] for row in _db(store, "SELECT name FROM sessions")}
    assert names == {"old", "fresh"}
    assert not (store.local_dir / "ledger.jsonl").exists()
    assert report.deliveries_rolled == 1
    # The pruned session still counts: its summary and deliveries live in the database.
    health = health_report(store)
    assert health["sessions"] == 2
    entry = next(e for e in health["memories"] if e["id"] == m)
    assert entry["fires"] == {"paths": 1}
    assert health["funnel"]["asks"] == 1
    assert health["funnel"]["corrections"] == 2


def test_a_roll_up_killed_after_its_insert_counts_nothing_twice(store: Store) -> None:
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    record_session(store, "s1", at=NOW - DAY, calls=[("edit", "src/a.py")])
    killed = subprocess.run(
        [str(BIN / "cuecard"), "maintain", "--quiet"],
        cwd=store.root,
        env={**os.environ, "CUECARD_CRASH_AT": "telemetry-drained"},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -9
    left = list(store.local_dir.glob("ledger.jsonl.*.rolling"))
    assert len(left) == 1
    assert _db(store, "SELECT COUNT(*) FROM deliveries") == [(1,)]
    entry = next(e for e in health_report(store)["memories"] if e["id"] == m)
    assert entry["fires"] == {"paths": 1}  # the batch on disk and its rows are one delivery
    maintain(store, clock=lambda: NOW)
    assert not list(store.local_dir.glob("ledger.jsonl.*.rolling"))
    assert _db(store, "SELECT COUNT(*) FROM deliveries") == [(1,)]


def test_torn_and_foreign_lines_are_skipped(store: Store) -> None:
    store.local_dir.mkdir(parents=True, exist_ok=True)
    (store.local_dir / "ledger.jsonl").write_text('{"t": 1, "ids": [["x", "paths"]]}\n{torn\n[1]\n')
    folder = store.local_dir / "sessions" / "s"
    folder.mkdir(parents=True)
    (folder / "footprint.jsonl").write_bytes(
        b'\xff\xfe{"e": "tool", "paths": [1, "a"]}\nnot json\n'
    )
    report = maintain(store, clock=lambda: NOW)
    assert report.deliveries_rolled == 1
    assert report.sessions_rolled == 1


# -- retirement ----------------------------------------------------------------------------------


def _unfired_sessions(
    store: Store, count: int, *, start: float, path: str = "src/pay/x.py"
) -> None:
    for n in range(count):
        record_session(store, f"s{n}", at=start + n * 100, calls=[("read", path)])


def test_retires_after_the_configured_number_of_unfired_sessions(store: Store) -> None:
    _set_retire(store, 3)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    _unfired_sessions(store, 2, start=NOW - 5 * DAY)
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == "active"
    record_session(store, "s9", at=NOW - 3 * DAY, calls=[("read", "src/pay/y.py")])
    report = maintain(store, clock=lambda: NOW)
    assert [r["id"] for r in report.retired] == [m]
    assert report.compiled
    saved = json.loads((store.memories_dir / f"{m}.json").read_text())
    assert saved["status"] == "archived"
    assert "touched in 3 sessions without it firing" in saved["archived_reason"]


def test_default_threshold_is_twenty_sessions(store: Store) -> None:
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    _unfired_sessions(store, 19, start=NOW - 6 * DAY)
    assert maintain(store, clock=lambda: NOW).retired == []
    record_session(store, "s19", at=NOW - DAY, calls=[("read", "src/pay/z.py")])
    assert [r["id"] for r in maintain(store, clock=lambda: NOW).retired] == [m]


def test_a_fire_restarts_the_count(store: Store) -> None:
    _set_retire(store, 2)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    _unfired_sessions(store, 3, start=NOW - 5 * DAY)
    record_session(store, "fired", at=NOW - 4 * DAY, calls=[("edit", "src/pay/x.py")])
    record_session(store, "after", at=NOW - 3 * DAY, calls=[("read", "src/pay/x.py")])
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == "active"


def test_sessions_before_the_memory_existed_do_not_count(store: Store) -> None:
    _set_retire(store, 2)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(1))
    _unfired_sessions(store, 3, start=NOW - 5 * DAY)
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == "active"


def test_sessions_that_touch_other_paths_do_not_count(store: Store) -> None:
    _set_retire(store, 2)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    _unfired_sessions(store, 3, start=NOW - 5 * DAY, path="src/other/x.py")
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == "active"


@pytest.mark.parametrize(
    "fields",
    [
        {"review": {"reviewed_by": "ana", "reviewed_at": _old(2)}},
        {"origin": "user_explicit"},
        {"status": "contested"},
    ],
    ids=["reviewed-by-a-person", "written-by-a-person", "contested"],
)
def test_exempt_memories_are_never_retired(store: Store, fields: dict[str, Any]) -> None:
    _set_retire(store, 2)
    m = add(
        store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30), **fields
    )
    _unfired_sessions(store, 4, start=NOW - 5 * DAY)
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == fields.get("status", "active")


def test_a_memory_a_pending_candidate_revises_is_not_retired(store: Store) -> None:
    _set_retire(store, 2)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    add(store, topic="other/topic", status="candidate", revises=m, created_at=_old(3))
    _unfired_sessions(store, 4, start=NOW - 5 * DAY)
    assert maintain(store, clock=lambda: NOW).retired == []
    assert _status(store, m) == "active"


def test_retired_memories_stop_firing_and_keep_their_file(store: Store) -> None:
    _set_retire(store, 1)
    m = add(store, triggers=[{"on": ["edit"], "paths": ["src/pay/**"]}], created_at=_old(30))
    _unfired_sessions(store, 1, start=NOW - 2 * DAY)
    maintain(store, clock=lambda: NOW)
    assert (store.memories_dir / f"{m}.json").is_file()
    from cuecard.core.engine import Event, handle

    delivery = handle(str(store.root), Event("edit", paths=("src/pay/x.py",), session="new"))
    assert delivery.delivered == []


# -- similarity, the command, the daily spawn ---------------------------------------------------


def test_similarity_index_is_refreshed_with_live_memories(store: Store) -> None:
    live = add(store, title="charge retries need the idempotency key")
    gone = add(store, status="archived", archived_reason="old")
    report = maintain(store, clock=lambda: NOW)
    cached = json.loads((store.local_dir / "similarity.json").read_text())
    assert live in cached
    assert gone not in cached
    assert report.similarity == 1


def test_cli_json_keys_are_documented(store: Store, monkeypatch, capsys) -> None:
    assert cli(monkeypatch, store.root, "maintain", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    with pytest.raises(SystemExit):
        cli(monkeypatch, store.root, "maintain", "--help")
    helptext = " ".join(capsys.readouterr().out.split())
    for key in out:
        assert key in helptext, key
    stamp = json.loads((store.local_dir / "maintain.json").read_text())
    assert stamp["ran_at"] == out["ran_at"]


def test_if_due_skips_a_recent_run(store: Store, monkeypatch, capsys) -> None:
    cli(monkeypatch, store.root, "maintain", "--quiet")
    assert capsys.readouterr().out == ""
    assert cli(monkeypatch, store.root, "maintain", "--if-due", "--json") == 0
    assert json.loads(capsys.readouterr().out) == {"ran": False}


def test_progress_bar_on_a_terminal(store: Store) -> None:
    record_session(store, "s1", at=NOW - DAY, calls=[("read", "src/a.py")])
    master, slave = pty.openpty()
    result = subprocess.run(
        [str(BIN / "cuecard"), "maintain"],
        cwd=store.root,
        stderr=slave,
        stdout=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    os.close(slave)
    shown = ""
    # never block the suite on a silent bar; read until the closed terminal says EIO
    while select.select([master], [], [], 1 if shown else 30)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk.decode()
    os.close(master)
    assert result.returncode == 0
    assert "sessions" in shown
    assert "[" in shown
    assert "1/1" in shown
    assert "rolled up 1 sessions" in shown, "the report follows the bar on stderr"
    assert result.stdout == ""


def test_maintain_if_due_spawns_once_a_day(store: Store) -> None:
    spawned: list[list[str]] = []

    def spawn(command: Sequence[str], root: str) -> None:
        spawned.append(list(command))
        subprocess.run(command, cwd=root, check=True, timeout=120)

    root = str(store.root)
    assert maintain_if_due(root, clock=lambda: NOW, spawn=spawn) is True
    assert (store.local_dir / "maintain.json").is_file()  # the spawned command really ran
    assert maintain_if_due(root, clock=lambda: NOW + 3600, spawn=spawn) is False
    assert maintain_if_due(root, clock=lambda: time.time() + 2 * DAY, spawn=spawn) is True
    assert len(spawned) == 2


def test_a_claimed_spawn_is_not_repeated_even_if_the_run_never_finished(store: Store) -> None:
    calls: list[str] = []
    root = str(store.root)
    assert maintain_if_due(root, clock=lambda: NOW, spawn=lambda c, r: calls.append(r))
    assert not maintain_if_due(root, clock=lambda: NOW + 60, spawn=lambda c, r: calls.append(r))
    assert calls == [root]


def test_maintain_if_due_creates_nothing_in_a_project_that_did_not_opt_in(tmp_path: Path) -> None:
    assert maintain_if_due(str(tmp_path), spawn=lambda c, r: None) is False
    assert list(tmp_path.iterdir()) == []


def test_lines_appended_while_maintenance_runs_are_never_lost(store: Store) -> None:
    import threading

    from cuecard.core.engine import Ledger
    from cuecard.core.lifecycle._telemetry import read_history

    per_writer = 400

    def writer(n: int) -> None:
        ledger = Ledger(str(store.local_dir), f"w{n}", clock=lambda: 1000.0)  # identical lines
        for _ in range(per_writer):
            ledger.append({"event": "edit", "epoch": 0, "delivered": 1, "ids": [["m", "p"]]})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()

    while True:
        finished = not any(t.is_alive() for t in threads)
        maintain(store, clock=lambda: NOW)  # the last run starts after every line was written

        if finished:
            break
    for thread in threads:
        thread.join()
    total = 3 * per_writer
    assert len(read_history(store.local_dir).deliveries) == total
    assert _db(store, "SELECT COUNT(*) FROM deliveries") == [(total,)]


def test_a_damaged_database_is_set_aside_and_a_new_one_begun(store: Store) -> None:
    record_session(store, "s1", at=NOW - DAY, calls=[("read", "src/a.py")])
    store.local_dir.mkdir(parents=True, exist_ok=True)
    (store.local_dir / "telemetry.sqlite").write_bytes(b"not a database" * 100)
    assert health_report(store)["sessions"] == 1  # health reads around it
    report = maintain(store, clock=lambda: NOW)
    assert report.sessions_rolled == 1
    kept = list(store.local_dir.glob("telemetry.sqlite.damaged-*"))
    assert len(kept) == 1
    assert kept[0].read_bytes().startswith(b"not a database")
    assert _db(store, "SELECT COUNT(*) FROM sessions") == [(1,)]


def test_a_linked_telemetry_folder_is_neither_drained_nor_read(
    store: Store, tmp_path: Path
) -> None:
    """``.cuecard/local/telemetry`` committed as a link to a folder outside: maintenance renames
    nothing aside and deletes nothing there, and the history does not count its lines."""
    canary = tmp_path / "canary"
    canary.mkdir()
    line = json.dumps({"t": NOW, "proposal": "p", "outcome": "ingested"}) + "\n"
    (canary / "inbox.jsonl").write_text(line)
    (canary / "inbox.jsonl.b1.rolling").write_text(line)
    store.local_dir.mkdir(parents=True, exist_ok=True)
    (store.local_dir / "telemetry").symlink_to(canary)
    before = {p.name: p.read_bytes() for p in canary.iterdir()}
    assert health_report(store)["sessions"] == 0
    report = maintain(store, clock=lambda: NOW)
    assert report.ingestions_rolled == 0
    assert {p.name: p.read_bytes() for p in canary.iterdir()} == before
    assert _db(store, "SELECT COUNT(*) FROM ingestions") == [(0,)]
    from cuecard.core.lifecycle._telemetry import read_history

    assert read_history(store.local_dir).ingestions == []


def test_only_marked_session_folders_are_pruned_and_the_others_reported(
    store: Store, tmp_path: Path
) -> None:
    """A session folder cuecard made holds its marker and is pruned by descriptor (a link
    inside is removed, never followed); one without the marker (an older cuecard's, or a
    person's) is left in place and named in the report."""
    canary = tmp_path / "canary"
    canary.mkdir()
    (canary / "keep.txt").write_text("keep\n")
    record_session(store, "marked", at=NOW - 10 * DAY, calls=[("edit", "src/a.py")])
    sessions = store.local_dir / "sessions"
    assert (sessions / "marked" / MARKER).is_file()
    (sessions / "marked" / "out").symlink_to(canary)
    os.utime(sessions / "marked" / "out", (NOW - 9 * DAY,) * 2, follow_symlinks=False)
    legacy = sessions / "legacy"
    legacy.mkdir()
    (legacy / "footprint.jsonl").write_text("")
    os.utime(legacy / "footprint.jsonl", (NOW - 10 * DAY, NOW - 10 * DAY))
    report = maintain(store, clock=lambda: NOW)
    assert report.sessions_pruned == 1
    assert report.sessions_left == ["legacy"]
    assert not (sessions / "marked").exists()
    assert (legacy / "footprint.jsonl").is_file()
    assert sorted(p.name for p in canary.iterdir()) == ["keep.txt"]
    assert (canary / "keep.txt").read_text() == "keep\n"
    done = subprocess.run(
        [str(BIN / "cuecard"), "maintain"], cwd=store.root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "left 1 idle session folders" in done.stderr
    assert "legacy" in done.stderr


def test_a_generation_compiled_before_the_marker_is_pruned_only_when_it_is_all_cuecards(
    store: Store,
) -> None:
    from cuecard.core import compile_index

    index = store.local_dir / "index"
    compile_index(store)
    [current] = [p for p in index.iterdir() if p.name.startswith("g")]
    old, mixed, foreign = index / "g0old", index / "g0mixed", index / "g0foreign"
    for folder in (old, mixed):  # what a generation held before the marker existed
        folder.mkdir()
        for name in ("buckets.dat", "memories.dat", "pkeys.json"):
            (folder / name).write_bytes((current / name).read_bytes())
    (mixed / "notes.txt").write_text("a person's\n")
    foreign.mkdir()
    (foreign / "buckets.dat").symlink_to(current / "buckets.dat")
    for folder in (old, mixed, foreign):
        os.utime(folder, (NOW - 10 * DAY, NOW - 10 * DAY))
    add(store, triggers=[{"on": ["edit"], "paths": ["lib/**"]}])
    compile_index(store)
    assert not old.exists()
    assert (mixed / "notes.txt").read_text() == "a person's\n"
    assert (foreign / "buckets.dat").is_symlink()
    assert (current / "buckets.dat").is_file()  # the previous generation is kept


def test_a_marked_session_folder_whose_deletion_fails_is_reported_as_such(store: Store) -> None:
    """A folder cuecard marked whose deletion fails partway (here: nested deeper than cuecard
    ever makes one) is not reported as unmarked; it keeps its marker, so the next run tries
    again, and `cuecard maintain` says what failed."""
    record_session(store, "deep", at=NOW - 10 * DAY, calls=[("edit", "src/a.py")])
    folder = store.local_dir / "sessions" / "deep"
    nested = folder.joinpath(*["d"] * 40)
    nested.mkdir(parents=True)
    (nested / "x.txt").write_text("x\n")
    for current, dirs, files in os.walk(folder, topdown=False):
        for name in dirs + files:
            os.utime(os.path.join(current, name), (NOW - 10 * DAY,) * 2)
    report = maintain(store, clock=lambda: NOW)
    assert report.sessions_pruned == 0
    assert report.sessions_left == []
    assert [f["folder"] for f in report.sessions_failed] == ["deep"]
    assert "deeper than cuecard makes one" in report.sessions_failed[0]["error"]
    assert (folder / MARKER).is_file()
    done = subprocess.run(
        [str(BIN / "cuecard"), "maintain"], cwd=store.root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "could not finish deleting 1 idle session folders" in done.stderr
    assert "deep (a marked folder nested deeper" in done.stderr
    assert "cannot prove it made" not in done.stderr
    out = subprocess.run(
        [str(BIN / "cuecard"), "maintain", "--json"],
        cwd=store.root,
        capture_output=True,
        text=True,
    )
    data = json.loads(out.stdout)
    assert (data["sessions_left"], [f["folder"] for f in data["sessions_failed"]]) == ([], ["deep"])


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root"
)
def test_an_idle_session_folder_of_another_user_is_kept_and_named_as_such(store: Store) -> None:
    """A session folder another user owns is never deleted, even with cuecard's marker in it,
    and `cuecard maintain` says why (it said "no .cuecard-made in them")."""
    record_session(store, "theirs", at=NOW - 10 * DAY, calls=[("edit", "src/a.py")])
    folder = store.local_dir / "sessions" / "theirs"
    assert (folder / MARKER).is_file()
    os.chown(folder, 65534, 65534)
    os.utime(folder, (NOW - 10 * DAY,) * 2)
    out = subprocess.run(
        [str(BIN / "cuecard"), "maintain", "--json"],
        cwd=store.root,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["sessions_pruned"], data["sessions_left"], data["sessions_failed"]) == (0, [], [])
    assert data["sessions_foreign"] == [
        {"folder": "theirs", "reason": "belongs to another user (uid 65534)"}
    ]
    assert (folder / MARKER).is_file()
    done = subprocess.run(
        [str(BIN / "cuecard"), "maintain"], cwd=store.root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "in place: theirs (belongs to another user (uid 65534))" in done.stderr
    assert "cannot prove it made" not in done.stderr
