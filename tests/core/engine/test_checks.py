"""Checks: examples verified at compile, introduced-only reports, the twice-per-file rule."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Store, compile_index
from cuecard.core.engine._engine import handle, stop
from cuecard.core.engine._event import Event
from tests._support.project import add, make_project

PRINT_CHECK: dict[str, Any] = {
    "if_content": r"\bprint\(",
    "unless_content": r"# allow-print",
    "message": "Use the logger in billing code, never print()",
    "violates": ["print('x')"],
    "passes": ["log.info('x')", "print('x')  # allow-print"],
}


@pytest.fixture
def store(tmp_path: Path):
    return make_project(tmp_path / "repo")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_a_check_that_fails_its_examples_is_left_out(store) -> None:
    good = add(store, check=PRINT_CHECK, triggers=[{"on": ["edit"], "paths": ["billing/**"]}])
    bad = add(
        store,
        check={**PRINT_CHECK, "passes": ["print('still')"]},
        triggers=[{"on": ["edit"], "paths": ["billing/**"]}],
    )
    report = compile_index(store)
    assert report.checks == 1
    assert report.left_out == [{"id": bad, "reason": "passes[0] is reported by the check"}]
    assert good != bad


def test_an_re2_refused_pattern_is_refused_and_reported(store) -> None:
    m = add(store, check=PRINT_CHECK, triggers=[{"on": ["edit"], "paths": ["b/**"]}])
    path = store.memories_dir / f"{m}.json"
    raw = json.loads(path.read_text())
    raw["check"]["if_content"] = r"(print)\1"  # a backreference: RE2 cannot run it
    path.write_text(json.dumps(raw))
    report = compile_index(store)
    assert report.checks == 0
    assert any("RE2 cannot run" in p for p in report.problems)


def test_edit_checks_report_only_introduced_violations(store) -> None:
    add(
        store,
        check={**PRINT_CHECK, "when": "edit"},
        triggers=[{"on": ["edit"], "paths": ["billing/**"]}],
    )
    root = str(store.root)
    before = "print('old')\n"
    same = Event(
        "edit",
        paths=("billing/a.py",),
        before={"billing/a.py": before},
        after={"billing/a.py": before + "x = 1\n"},
        session="s",
    )
    assert "## check:" not in handle(root, same).text
    worse = Event(
        "edit",
        paths=("billing/a.py",),
        before={"billing/a.py": before},
        after={"billing/a.py": before + "print('new')\n"},
        session="s",
    )
    text = handle(root, worse).text
    assert "## check: Use the logger" in text
    assert "print('new')" in text
    assert "print('old')" not in text
    allowed = Event(
        "edit",
        paths=("billing/b.py",),
        before={"billing/b.py": None},
        after={"billing/b.py": "print(1)  # allow-print\n"},
    )
    assert "## check:" not in handle(root, allowed).text
    elsewhere = Event("edit", paths=("api/a.py",), after={"api/a.py": "print(1)\n"})
    assert "## check:" not in handle(root, elsewhere).text


def test_a_violation_is_reported_at_most_twice_per_file_per_epoch(store) -> None:
    add(
        store,
        check={**PRINT_CHECK, "when": "edit"},
        triggers=[{"on": ["edit"], "paths": ["billing/**"]}],
    )
    root = str(store.root)
    reports = []
    for n in range(4):
        event = Event(
            "edit",
            paths=("billing/a.py",),
            before={"billing/a.py": ""},
            after={"billing/a.py": f"print({n})\n"},
            session="s",
        )
        reports.append("## check:" in handle(root, event).text)
    assert reports == [True, True, False, False]
    other = Event(
        "edit",
        paths=("billing/c.py",),
        before={"billing/c.py": ""},
        after={"billing/c.py": "print(9)\n"},
        session="s",
    )
    assert "## check:" in handle(root, other).text


def test_command_checks_run_at_the_command(store) -> None:
    add(
        store,
        check={
            "if_command": r"alembic\s+upgrade",
            "unless_command": r"--sql",
            "message": "Migrations run through make migrate, which takes the lock",
            "violates": ["alembic upgrade head"],
            "passes": ["alembic upgrade head --sql", "alembic history"],
        },
        triggers=[{"on": ["run"], "commands": ["alembic"]}],
    )
    root = str(store.root)
    text = handle(
        root, Event("run", command="alembic upgrade head", parts=(("alembic", "upgrade", "head"),))
    ).text
    assert "## check: Migrations run through make migrate" in text
    quiet = handle(
        root,
        Event(
            "run",
            command="alembic upgrade head --sql",
            parts=(("alembic", "upgrade", "head", "--sql"),),
        ),
    ).text
    assert "## check:" not in quiet


def test_turn_checks_at_stop_against_the_last_commit(store) -> None:
    root = store.root
    (root / "billing").mkdir()
    (root / "billing/old.py").write_text("print('legacy')\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    add(store, check=PRINT_CHECK, triggers=[{"on": ["edit", "write"], "paths": ["billing/**"]}])
    (root / "billing/old.py").write_text("print('legacy')\nx = 2\n")
    (root / "billing/new.py").write_text("print('fresh')\n")
    (root / "billing/read.py").write_text("print('only read')\n")
    changed = [("billing/old.py", "edit"), ("billing/new.py", "write"), ("billing/read.py", "read")]
    text = stop(str(root), "s", changed).text
    assert "billing/new.py" in text
    assert "print('fresh')" in text
    assert "billing/old.py" not in text
    assert "billing/read.py" not in text


def test_the_first_256_kb_only(store) -> None:
    add(
        store,
        check={**PRINT_CHECK, "when": "edit"},
        triggers=[{"on": ["edit"], "paths": ["billing/**"]}],
    )
    late = "x = 1\n" * 50_000 + "print('late')\n"
    event = Event(
        "edit",
        paths=("billing/big.py",),
        before={"billing/big.py": ""},
        after={"billing/big.py": late},
    )
    assert "## check:" not in handle(str(store.root), event).text


def test_held_reports_arrive_once_each_and_a_torn_line_is_skipped(store) -> None:
    add(
        store,
        check={**PRINT_CHECK, "when": "edit"},
        triggers=[{"on": ["edit", "write"], "paths": ["billing/**"]}],
    )
    root = str(store.root)
    paths = tuple(f"billing/m{n}.py" for n in range(6))
    after = {p: "".join(f"print('{'y' * 180}{k}')\n" for k in range(3)) for p in paths}
    write = Event("write", paths=paths, before=dict.fromkeys(paths), after=after, session="h")
    first = handle(root, write, limit=2_000)
    assert first.delivered
    assert first.deferred
    held = store.local_dir / "sessions" / "h" / "held" / "_.jsonl"
    with held.open("a", encoding="utf-8") as handle_:
        handle_.write('{"id": "torn", "key": "check:')  # a writer killed mid-line
    seen = [b.key for b in first.delivered]
    for _ in range(6):
        ls = Event("run", command="ls", parts=(("ls",),), session="h")
        later = handle(root, ls, limit=2_000)
        seen += [b.key for b in later.delivered]
    reports = [k for k in seen if k.startswith("check:")]
    assert sorted(reports) == sorted(f"check:{k}" for k in _check_ids(store, paths))
    other_agent = Event("run", command="ls", parts=(("ls",),), session="h", agent="a2")
    assert handle(root, other_agent).delivered == []


def _check_ids(store: Store, paths: tuple[str, ...]) -> list[str]:
    [memory_id] = [p.stem for p in store.memories_dir.glob("*.json")]
    return [f"{memory_id}:{p}" for p in paths]


def test_a_fifo_or_a_link_in_place_of_the_held_file_never_blocks_or_writes_out(
    store, tmp_path: Path
) -> None:
    import os

    add(
        store,
        check={**PRINT_CHECK, "when": "edit"},
        triggers=[{"on": ["edit", "write"], "paths": ["billing/**"]}],
    )
    root = str(store.root)
    held = store.local_dir / "sessions" / "f" / "held"
    held.mkdir(parents=True)
    os.mkfifo(held / "_.jsonl")
    outside = tmp_path / "outside.txt"
    outside.write_text("")
    (held / "a2.jsonl").symlink_to(outside)
    paths = tuple(f"billing/n{n}.py" for n in range(6))
    after = {p: f"print('{'z' * 190}')\n" * 3 for p in paths}
    for agent in ("", "a2"):
        event = Event("write", paths=paths, before=dict.fromkeys(paths), after=after,
                      session="f", agent=agent)  # fmt: skip
        delivery = handle(root, event, limit=2_000)
        assert delivery.delivered
        assert delivery.deferred
    assert outside.read_text() == ""
