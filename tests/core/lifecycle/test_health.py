"""Health on a constructed history: each figure, the funnel, the last deliveries, the CLI."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Store
from cuecard.core.engine import Ledger
from cuecard.core.lifecycle._health import HUB_AT, KEYS, MEMORY_KEYS, health_report
from cuecard.core.lifecycle._maintain import maintain
from tests._support.lifecycle import DAY, cli, record_session
from tests._support.project import add, make_project

NOW = time.time()
OLD = datetime.fromtimestamp(NOW - 30 * DAY, UTC).isoformat()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = make_project(tmp_path / "repo")
    for rel in ("src/a/x.py", "src/c/y.py", "src/hub/h.py", "package.json", "README.md"):
        path = store.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{rel}\n")
    return store


def _entry(report: dict[str, Any], memory_id: str) -> dict[str, Any]:
    entry: dict[str, Any] = next(e for e in report["memories"] if e["id"] == memory_id)
    return entry


def _inbox(store: Store, *lines: dict[str, Any]) -> None:
    folder = store.local_dir / "telemetry"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "inbox.jsonl").open("a") as handle:
        for line in lines:
            handle.write(json.dumps({"t": NOW, "session": "s", "source": "agent", **line}) + "\n")


def test_fires_by_dimension_and_last_delivered(store: Store) -> None:
    a = add(
        store,
        created_at=OLD,
        triggers=[{"on": ["edit"], "paths": ["src/a/**"]}, {"on": ["run"], "commands": ["make"]}],
    )
    record_session(store, "s1", at=NOW - 3 * DAY, calls=[("edit", "src/a/x.py")])
    last = record_session(store, "s2", at=NOW - 2 * DAY, calls=[("edit", "src/a/x.py")])
    Ledger(str(store.local_dir), "s3", clock=lambda: last + 10).append(
        {
            "event": "run",
            "epoch": 0,
            "delivered": 1,
            "deferred": 0,
            "size": 9,
            "ids": [[a, "commands"]],
        }
    )
    report = health_report(store)
    entry = _entry(report, a)
    assert entry["fires"] == {"commands": 1, "paths": 2}
    assert entry["opportunities"] == 3, "s1 and s2 touched its paths; it was delivered in s3"
    assert entry["last_delivered"] == datetime.fromtimestamp(round(last + 10, 3), UTC).isoformat()
    assert set(entry) == set(MEMORY_KEYS)
    assert a not in report["unused"]
    assert a not in report["no_opportunity"]


def test_dead_triggers_name_the_clause(store: Store) -> None:
    d = add(
        store,
        triggers=[{"on": ["edit"], "paths": ["src/a/**"]}, {"on": ["edit"], "paths": ["gone/**"]}],
    )
    archived = add(store, status="archived", triggers=[{"on": ["edit"], "paths": ["gone/**"]}])
    report = health_report(store)
    assert report["dead_triggers"] == [{"id": d, "clause": 1}]
    assert _entry(report, d)["dead_triggers"] == [1]
    assert _entry(report, archived)["dead_triggers"] == [0]  # shown per memory, not listed


def test_stale_evidence_when_the_file_changed_or_went_away(store: Store) -> None:
    digest = hashlib.sha256(b"README.md\n").hexdigest()
    pkg = hashlib.sha256(b"package.json\n").hexdigest()
    outside = store.root.parent / "outside"
    outside.write_text("package.json\n")
    (store.root / "outside-link").symlink_to(outside)  # a link out is never followed
    m = add(
        store,
        evidence=[
            {"kind": "file", "ref": "README.md", "sha256": digest},
            {"kind": "file", "ref": "package.json", "sha256": pkg},
            {"kind": "file", "ref": "outside-link", "sha256": pkg},
        ],
    )
    assert _entry(health_report(store), m)["stale_evidence"] == ["outside-link"]
    (store.root / "README.md").write_text("changed\n")
    (store.root / "package.json").unlink()
    report = health_report(store)
    assert {d["ref"] for d in report["stale_evidence"]} == {
        "README.md",
        "package.json",
        "outside-link",
    }


def test_a_delivered_memory_had_an_opportunity(store: Store) -> None:
    """Delivered in a session whose footprint holds nothing of it (a lost footprint line, a
    session recorded before it was created): still one chance, never "no opportunity"."""
    once = add(store, created_at=OLD, triggers=[{"on": ["edit"], "paths": ["src/c/**"]}])
    Ledger(str(store.local_dir), "s9", clock=lambda: NOW).append(
        {
            "event": "edit",
            "epoch": 0,
            "delivered": 1,
            "deferred": 0,
            "size": 9,
            "ids": [[once, "paths"]],
        }
    )
    report = health_report(store)
    assert _entry(report, once)["fires"] == {"paths": 1}
    assert _entry(report, once)["opportunities"] == 1
    assert once not in report["no_opportunity"]
    assert once not in report["unused"]


def test_no_opportunity_and_unused(store: Store) -> None:
    never = add(store, created_at=OLD, triggers=[{"on": ["edit"], "paths": ["src/c/**"]}])
    unused = add(store, created_at=OLD, triggers=[{"on": ["edit"], "paths": ["src/a/**"]}])
    prompt_only = add(store, created_at=OLD, triggers=[{"on": ["prompt"], "keywords": ["deploy"]}])
    record_session(store, "s1", at=NOW - DAY, calls=[("read", "src/a/x.py")])
    report = health_report(store)
    assert report["no_opportunity"] == [never]
    assert report["unused"] == [unused]
    assert _entry(report, unused)["opportunities"] == 1
    assert prompt_only not in report["no_opportunity"]  # prompts are never recorded


def test_hubs_are_files_many_memories_trigger_on(store: Store) -> None:
    many = [add(store, triggers=[{"on": ["edit"], "paths": ["src/hub/**"]}]) for _ in range(HUB_AT)]
    add(store, triggers=[{"on": ["edit"], "paths": ["src/a/**"]}])
    report = health_report(store)
    assert report["hubs"] == [{"path": "src/hub/h.py", "memories": sorted(many)}]


def test_hubs_need_the_threshold(store: Store) -> None:
    for _ in range(HUB_AT - 1):
        add(store, triggers=[{"on": ["edit"], "paths": ["src/hub/**"]}])
    assert health_report(store)["hubs"] == []


def test_central_only_memories(store: Store) -> None:
    central = add(store, created_at=OLD, triggers=[{"on": ["edit"], "paths": ["package.json"]}])
    mixed = add(
        store, created_at=OLD, triggers=[{"on": ["edit"], "paths": ["package.json", "src/c/*"]}]
    )
    for n in range(4):
        record_session(store, f"s{n}", at=NOW - (5 - n) * DAY, calls=[("read", "package.json")])
    report = health_report(store)
    assert report["central_only"] == [central]
    assert mixed not in report["central_only"]


def test_suspected_false_alarms(store: Store) -> None:
    f = add(store)
    local = str(store.local_dir)

    def report_check(session: str, t: float, path: str, event: str = "edit") -> None:
        Ledger(local, session, clock=lambda: t).append(
            {
                "event": event,
                "epoch": 0,
                "delivered": 1,
                "deferred": 0,
                "size": 50,
                "ids": [[f"check:{f}:{path}", "check"]],
            }
        )

    # Edit check, then only the edit that triggered it: the agent left the file as it was.
    report_check("left", NOW - 3 * DAY, "src/a/x.py")
    record_session(store, "left", at=NOW - 3 * DAY, calls=[("edit", "src/a/x.py")])
    # Edit check, then a second edit of the file: the agent fixed it.
    report_check("fixed", NOW - 2 * DAY, "src/a/x.py")
    record_session(
        store, "fixed", at=NOW - 2 * DAY, calls=[("edit", "src/a/x.py"), ("edit", "src/a/x.py")]
    )
    # Turn check at Stop, then nothing: a false alarm; a command check never is.
    report_check("stop", NOW - DAY, "src/c/y.py", event="stop")
    report_check("stop", NOW - DAY, "the command", event="run")
    record_session(store, "stop", at=NOW - DAY - 10)
    report = health_report(store)
    assert report["false_alarms"] == [{"id": f, "count": 2}]
    assert _entry(report, f)["suspected_false_alarms"] == 2


def test_capture_funnel(store: Store) -> None:
    person = add(store, status="archived", archived_reason="not useful", origin="model_initiated")
    auto = add(store, origin="model_initiated")
    replaced = add(store, status="archived", archived_reason="replaced by candidate 1234")
    pending = add(store, status="candidate", topic="p/q")
    _inbox(
        store,
        {"outcome": "candidate", "reasons": ["candidate"], "memory": person},
        {"outcome": "active", "reasons": ["active"], "memory": auto},
        {"outcome": "candidate", "reasons": ["candidate"], "memory": replaced},
        {"outcome": "replaced", "reasons": ["replaced"], "memory": pending},
        {"outcome": "refused", "reasons": ["generic"], "memory": None},
        {"outcome": "refused", "reasons": ["duplicate"], "memory": None},
        {"outcome": "refused", "reasons": ["generic"], "memory": None},
        {"outcome": "request", "reasons": ["archive_request"], "memory": auto},
    )
    _inbox(store)  # a line with no outcome
    with (store.local_dir / "telemetry" / "inbox.jsonl").open("a") as handle:
        handle.write("{torn\n")
    record_session(store, "s1", at=NOW - DAY, asks=2, corrections=1)
    funnel = health_report(store)["funnel"]
    assert funnel == {
        "asks": 2,
        "corrections": 1,
        "stored": 4,
        "activated": 1,
        "rejected": 5,
        "rejections_by_reason": {
            "archived_by_person": 1,
            "duplicate": 1,
            "generic": 2,
            "replaced_by_newer_proposal": 1,
        },
    }


def test_funnel_survives_the_roll_up(store: Store) -> None:
    auto = add(store, origin="model_initiated")
    _inbox(store, {"outcome": "active", "reasons": ["active"], "memory": auto})
    record_session(store, "s1", at=NOW - 9 * DAY, asks=1)
    before = health_report(store)["funnel"]
    maintain(store)
    assert not (store.local_dir / "telemetry" / "inbox.jsonl").exists()
    assert health_report(store)["funnel"] == before


def test_last_deliveries_newest_first(store: Store) -> None:
    m = add(store, created_at=OLD, triggers=[{"on": ["edit", "read"], "paths": ["src/**"]}])
    record_session(store, "one", at=NOW - 2 * DAY, calls=[("edit", "src/a/x.py")])
    record_session(store, "two", at=NOW - DAY, calls=[("read", "src/c/y.py")])
    Ledger(str(store.local_dir), "two").new_epoch("compact")
    last = health_report(store)["last_deliveries"]
    assert [d["session"] for d in last] == ["two", "one"]
    assert last[0]["event"] == "read"
    assert last[0]["ids"] == [[m, "paths"]]
    assert last[0]["size"] > 0
    assert last[0]["delivered"] == 1


def test_cli_json_equals_the_api_and_help_documents_every_key(
    store: Store, monkeypatch, capsys
) -> None:
    add(store, triggers=[{"on": ["edit"], "paths": ["src/a/**"]}])
    assert cli(monkeypatch, store.root, "health", "--json") == 0
    printed = json.loads(capsys.readouterr().out)
    expected = health_report(store)
    printed.pop("generated_at"), expected.pop("generated_at")
    assert printed == expected
    assert set(printed) | {"generated_at"} == set(KEYS)
    with pytest.raises(SystemExit):
        cli(monkeypatch, store.root, "health", "--help")
    helptext = " ".join(capsys.readouterr().out.split())
    for key in [*KEYS, *MEMORY_KEYS, "asks", "corrections", "rejections_by_reason"]:
        assert key in helptext, key


def test_cli_tables_on_a_terminal(store: Store, monkeypatch, capsys) -> None:
    add(store, title="Stale one", triggers=[{"on": ["edit"], "paths": ["gone/**"]}])
    assert cli(monkeypatch, store.root, "health") == 0
    out = capsys.readouterr().out
    assert "Dead triggers" in out
    assert "Stale one" in out
    assert "Capture funnel" in out


def test_an_unreadable_memory_file_is_a_problem_not_a_crash(store: Store) -> None:
    (store.memories_dir / "broken.json").write_text("{not json")
    assert health_report(store)["problems"]


def test_a_damaged_roll_up_database_is_a_problem_until_maintenance_sets_it_aside(
    store: Store, monkeypatch, capsys
) -> None:
    record_session(store, "s1", at=NOW - 9 * DAY, asks=1)
    maintain(store)
    (store.local_dir / "telemetry.sqlite").write_bytes(b"not a database" * 100)
    assert cli(monkeypatch, store.root, "health") == 0
    out = capsys.readouterr().out
    assert "problem: telemetry.sqlite is unreadable" in out
    assert "cuecard maintain" in out
    maintain(store)
    assert health_report(store)["problems"] == []


def test_building_the_cli_parser_for_these_commands_loads_no_pydantic() -> None:
    import subprocess
    import sys

    code = (
        "import sys, argparse\n"
        "from cuecard.core.cli import _doctor, _export, _health, _import, _maintain, _migrate\n"
        "sub = argparse.ArgumentParser().add_subparsers()\n"
        "for m in (_doctor, _export, _health, _import, _maintain, _migrate): m.register(sub)\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
