"""``cuecard import`` and ``cuecard export``: the six formats and nested CLAUDE.md / AGENTS.md
on a 51-file corpus, re-imports, topics held elsewhere, dry runs, and the round trip
import → export → import."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core import Status, Store
from cuecard.core.engine import Event, handle
from cuecard.core.lifecycle._import import import_rules
from cuecard.core.lifecycle._rules import BODY_LIMIT, FORMATS, parse_rule, split_globs
from tests._support.lifecycle import cli, snapshot
from tests._support.project import add, make_project
from tests._support.rules_corpus import CORPUS, EXPECT, write_corpus


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = make_project(tmp_path / "repo")
    write_corpus(store.root)
    return store


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], store: Store, *args: str
) -> dict[str, Any]:
    assert cli(monkeypatch, store.root, *args, "--json") == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _text(rel: str) -> str:
    """The corpus file ``rel``, one written as text."""
    content = CORPUS[rel]
    assert isinstance(content, str), rel
    return content


def _memories(store: Store) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(store.memories_dir.glob("*.json"))}


def test_corpus_has_at_least_forty_files_in_six_formats() -> None:
    assert len(CORPUS) >= 40
    assert set(CORPUS) == set(EXPECT)
    folders = {fmt.folder for fmt in FORMATS}
    assert sum(1 for k in CORPUS if k.startswith(tuple(folders))) >= 40
    assert {f for f in folders if any(k.startswith(f + "/") for k in CORPUS)} == folders


def test_every_corpus_file_is_imported_or_skipped_as_expected(
    store: Store, monkeypatch, capsys
) -> None:
    report = _run(monkeypatch, capsys, store, "import", "--reviewer", "Ana")
    imported = {item["file"]: item for item in report["imported"]}
    skipped = {item["file"]: item["reason"] for item in report["skipped"]}
    for rel, (outcome, detail) in EXPECT.items():
        if outcome == "import":
            assert rel in imported, (rel, skipped.get(rel))
            assert imported[rel]["paths"] == detail, rel
        elif outcome == "skip":
            assert rel in skipped, rel
            assert str(detail) in skipped[rel], (rel, skipped[rel])
        else:
            assert rel not in imported
            assert rel not in skipped
    assert report["updated"] == []
    assert report["unchanged"] == []
    memories = _memories(store)
    assert len(memories) == len(imported)
    for item in imported.values():
        memory = memories[item["id"]]
        assert memory["status"] == "active"
        assert memory["kind"] == "procedure"
        assert memory["origin"] == "user_explicit"
        assert memory["topic"] == item["topic"]
        assert memory["review"]["reviewed_by"] == "Ana"
        assert memory["review"]["reviewed_at"]
        assert memory["triggers"] == [
            {
                "on": ["read", "edit", "write"],
                "paths": item["paths"],
                "symbols": [],
                "commands": [],
                "keywords": [],
            }
        ]
        data = (store.root / item["file"]).read_bytes()
        assert memory["evidence"][0]["ref"] == item["file"]
        assert memory["evidence"][0]["sha256"] == hashlib.sha256(data).hexdigest()
        assert "\r" not in memory["body"]
        assert "\ufeff" not in memory["body"]


def test_topics_name_the_tool_and_the_file(store: Store) -> None:
    report = import_rules(store, reviewer="Ana")
    topics = {item["file"]: item["topic"] for item in report.imported}
    assert topics[".claude/rules/ts.md"] == "rules/claude/ts"
    assert topics[".claude/rules/nested/api/rules.md"] == "rules/claude/nested/api/rules"
    assert topics[".cursor/rules/sub/db.mdc"] == "rules/cursor/sub/db"
    assert topics[".github/instructions/go.instructions.md"] == "rules/copilot/go"
    assert topics[".continue/rules/api.md"] == "rules/continue/api"
    assert topics[".windsurf/rules/web.md"] == "rules/windsurf/web"
    assert topics[".kiro/steering/list.md"] == "rules/kiro/list"
    assert topics["src/api/CLAUDE.md"] == "rules/claude-md/src/api"
    assert topics["web/AGENTS.md"] == "rules/agents-md/web"


def test_titles_come_from_the_frontmatter_or_the_first_heading(store: Store) -> None:
    report = import_rules(store, reviewer="Ana")
    memories = _memories(store)
    by_file = {item["file"]: memories[item["id"]] for item in report.imported}
    assert by_file[".claude/rules/ts.md"]["title"] == "TypeScript"
    assert by_file[".cursor/rules/python.mdc"]["title"] == "Python style"
    assert by_file[".cursor/rules/comment.mdc"]["title"] == "Styles"
    assert by_file[".continue/rules/api.md"]["title"] == "API rules"


def test_a_huge_body_is_cut_at_a_paragraph_and_points_at_its_file(store: Store) -> None:
    report = import_rules(store, reviewer="Ana")
    item = next(i for i in report.imported if i["file"] == ".claude/rules/huge.md")
    memory = _memories(store)[item["id"]]
    assert item["truncated"]
    assert len(memory["body"]) <= BODY_LIMIT
    assert memory["body"].endswith("The rest of this rule is in .claude/rules/huge.md.")
    kept = memory["body"].split("\n\n[…]")[0]
    assert kept.endswith(".")
    assert kept in CORPUS[".claude/rules/huge.md"]
    assert memory["review"]["issues"] == ["imported_truncated"]


def test_imported_rules_fire_on_reads_edits_and_writes_of_new_files(store: Store) -> None:
    report = import_rules(store, reviewer="Ana")
    sql = next(i["id"] for i in report.imported if i["file"] == ".claude/rules/bare.md")
    root = str(store.root)
    for n, kind in enumerate(("read", "edit", "write")):
        event = Event(kind, paths=(f"db/new/00{n}.sql",), session=f"s{n}")
        assert sql in [b.key for b in handle(root, event).delivered]
    assert sql not in [
        b.key for b in handle(root, Event("run", command="ls", session="x")).delivered
    ]


def test_dry_run_writes_nothing(store: Store, monkeypatch, capsys) -> None:
    before = snapshot(store.root)
    report = _run(monkeypatch, capsys, store, "import", "--dry-run")
    assert report["dry_run"]
    assert report["imported"]
    assert snapshot(store.root) == before


def test_a_second_import_updates_only_changed_files(store: Store) -> None:
    first = import_rules(store, reviewer="Ana")
    ids = {i["file"]: i["id"] for i in first.imported}
    before = _memories(store)
    changed = store.root / ".cursor" / "rules" / "go.mdc"
    changed.write_text(changed.read_text().replace("Keep handlers thin", "Keep handlers small"))
    second = import_rules(store, reviewer="Ana")
    assert [i["file"] for i in second.updated] == [".cursor/rules/go.mdc"]
    assert second.imported == []
    assert len(second.unchanged) == len(first.imported) - 1
    after = _memories(store)
    go = ids[".cursor/rules/go.mdc"]
    assert "Keep handlers small" in after[go]["body"]
    assert after[go]["created_at"] == before[go]["created_at"]
    assert {k: v for k, v in after.items() if k != go} == {
        k: v for k, v in before.items() if k != go
    }


def test_a_topic_held_by_a_memory_from_elsewhere_is_skipped(store: Store) -> None:
    other = add(store, topic="rules/claude/ts", title="hand-written")
    report = import_rules(store, reviewer="Ana")
    reason = next(i["reason"] for i in report.skipped if i["file"] == ".claude/rules/ts.md")
    assert f"held by memory {other[:8]}" in reason
    assert _memories(store)[other]["title"] == "hand-written"


def test_an_archived_import_is_not_brought_back(store: Store) -> None:
    report = import_rules(store, reviewer="Ana")
    ts = next(i["id"] for i in report.imported if i["file"] == ".claude/rules/ts.md")
    with store.transaction() as tx:
        tx.put(tx.get(ts).model_copy(update={"status": Status.ARCHIVED, "archived_reason": "no"}))
    again = import_rules(store, reviewer="Ana")
    assert ts in [i["id"] for i in again.unchanged]
    (store.root / ".claude/rules/ts.md").write_text(_text(".claude/rules/python.md"))
    reason = next(
        i["reason"]
        for i in import_rules(store).skipped
        if i.get("id") is None and i["file"] == ".claude/rules/ts.md"
    )
    assert "archived" in reason
    assert _memories(store)[ts]["status"] == "archived"


def test_import_from_another_folder(store: Store, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    (other / ".claude" / "rules").mkdir(parents=True)
    (other / ".claude" / "rules" / "css.md").write_text(
        _text(".cursor/rules/comment.mdc").replace("globs:", "paths:")
    )
    report = import_rules(store, source=other, reviewer="Ana")
    assert [i["topic"] for i in report.imported] == ["rules/claude/css"]
    memory = _memories(store)[report.imported[0]["id"]]
    assert memory["evidence"][0]["kind"] == "note"
    assert memory["evidence"][0]["ref"] == ".claude/rules/css.md"


def test_symlinked_rule_files_are_skipped(store: Store, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(_text(".claude/rules/python.md"))
    (store.root / ".claude" / "rules" / "link.md").symlink_to(outside)
    report = import_rules(store, reviewer="Ana", dry_run=True)
    reason = next(i["reason"] for i in report.skipped if i["file"] == ".claude/rules/link.md")
    assert "symbolic link" in reason


def test_round_trip_import_export_import_changes_nothing(store: Store, monkeypatch, capsys) -> None:
    _run(monkeypatch, capsys, store, "import", "--reviewer", "Ana")
    memories = _memories(store)
    for target in ("claude", "cursor", "agents-md"):
        written = _run(monkeypatch, capsys, store, "export", target)
        assert written["written"], target
        again = _run(monkeypatch, capsys, store, "export", target)
        assert again["written"] == [], target
        assert again["removed"] == [], target
    second = _run(monkeypatch, capsys, store, "import", "--reviewer", "Ana")
    assert second["imported"] == []
    assert second["updated"] == []
    exported = [i for i in second["skipped"] if "cuecard export" in i["reason"]]
    assert exported
    assert all("/cuecard/" in i["file"] for i in exported)
    assert _memories(store) == memories


def test_export_formats(store: Store) -> None:
    from cuecard.core.lifecycle._export import export_rules

    add(
        store,
        topic="billing/retries",
        title="Retries need the key",
        body="Never retry charge() without the idempotency key.",
        triggers=[{"on": ["edit"], "paths": ["src/{api,app}/**"]}],
    )
    add(store, topic="no/paths", triggers=[{"on": ["prompt"], "keywords": ["deploy"]}])
    memories = store.memories()
    export_rules(memories, "claude", store.root)
    export_rules(memories, "cursor", store.root)
    export_rules(memories, "agents-md", store.root)
    claude = (store.root / ".claude/rules/cuecard/billing--retries.md").read_text()
    assert claude.startswith('---\npaths:\n  - "src/api/**"\n  - "src/app/**"\n---\n')
    cursor = (store.root / ".cursor/rules/cuecard/billing--retries.mdc").read_text()
    assert "globs: src/api/**, src/app/**\nalwaysApply: false\n" in cursor
    agents = (store.root / "AGENTS.md").read_text()
    assert "Never retry charge()" in agents
    assert "deploy" not in agents
    assert len(list((store.root / ".claude/rules/cuecard").iterdir())) == 1


def test_export_touches_only_its_own_files(store: Store) -> None:
    from cuecard.core.lifecycle._export import export_rules

    m = add(store, topic="billing/retries", triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    folder = store.root / ".claude/rules/cuecard"
    folder.mkdir(parents=True)
    (folder / "mine.md").write_text("a person's own rule\n")
    (store.root / "AGENTS.md").write_text("# Agents\n\nHand-written.\n")
    export_rules(store.memories(), "claude", store.root)
    export_rules(store.memories(), "agents-md", store.root)
    assert (folder / "mine.md").read_text() == "a person's own rule\n"
    assert (store.root / "AGENTS.md").read_text().startswith("# Agents\n\nHand-written.\n")
    with store.transaction() as tx:
        tx.put(tx.get(m).model_copy(update={"status": Status.ARCHIVED, "archived_reason": "old"}))
    claude = export_rules(store.memories(), "claude", store.root)
    agents = export_rules(store.memories(), "agents-md", store.root)
    assert claude.removed == [".claude/rules/cuecard/billing--retries.md"]
    assert agents.written == ["AGENTS.md"]
    assert (store.root / "AGENTS.md").read_text() == "# Agents\n\nHand-written.\n\n"
    assert sorted(p.name for p in folder.iterdir()) == ["mine.md"]


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600), st.sampled_from(FORMATS))
def test_parse_rule_never_raises(data: bytes, fmt) -> None:
    rule = parse_rule(fmt, "x.md", b"---\n" + data, "x.md")
    assert bool(rule.skip) or (rule.globs and rule.body)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.from_regex(r"[a-z*/.]{1,12}", fullmatch=True), min_size=1, max_size=5))
def test_split_globs_inverts_joining(globs: list[str]) -> None:
    assert split_globs(", ".join(globs)) == globs


def test_a_nested_agents_md_keeps_its_own_text_and_drops_the_exported_block(store: Store) -> None:
    from cuecard.core.lifecycle._export import export_rules

    add(store, topic="billing/retries", triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    export_rules(store.memories(), "agents-md", store.root / "cmd")  # the block alone
    report = import_rules(store, reviewer="Ana", dry_run=True)
    reason = next(i["reason"] for i in report.skipped if i["file"] == "cmd/AGENTS.md")
    assert "body is empty" in reason
    page = store.root / "cmd" / "AGENTS.md"
    page.write_text("# Commands\n\nEvery command logs to `cmd/log.go`.\n\n" + page.read_text())
    report = import_rules(store, reviewer="Ana")
    item = next(i for i in report.imported if i["file"] == "cmd/AGENTS.md")
    body = _memories(store)[item["id"]]["body"]
    assert body == "# Commands\n\nEvery command logs to `cmd/log.go`."
    assert item["paths"] == ["cmd/**"]


def test_two_files_with_one_topic_in_one_import(store: Store) -> None:
    (store.root / ".claude/rules/Bare.md").write_text(_text(".claude/rules/bare.md"))
    report = import_rules(store, reviewer="Ana")
    topics = [i["topic"] for i in report.imported]
    assert topics.count("rules/claude/bare") == 1
    reason = next(i["reason"] for i in report.skipped if i.get("topic") == "rules/claude/bare")
    assert "taken by" in reason


def test_rule_folders_reached_through_symbolic_links_are_neither_read_nor_written(
    store: Store, tmp_path: Path
) -> None:
    from cuecard.core.lifecycle._export import export_rules

    outside = tmp_path / "outside"
    (outside / "rules").mkdir(parents=True)
    (outside / "rules" / "leak.md").write_text(_text(".claude/rules/python.md"))
    (store.root / ".windsurf").rename(tmp_path / "windsurf-moved")
    (store.root / ".windsurf").symlink_to(outside)
    report = import_rules(store, reviewer="Ana", dry_run=True)
    assert not any("windsurf" in i["file"] for i in report.imported)
    assert {"file": ".windsurf/rules", "reason": "the folder is reached through a symbolic "
            "link: not followed"} in report.skipped  # fmt: skip
    add(store, topic="billing/retries", triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    (store.root / ".cursor" / "rules" / "cuecard").symlink_to(outside / "rules")
    result = export_rules(store.memories(), "cursor", store.root)
    assert result.written == []
    assert result.skipped[0]["reason"] == "the folder is a symbolic link"
    assert sorted(p.name for p in (outside / "rules").iterdir()) == ["leak.md"]


def test_export_skips_fifos_and_links_in_its_place_without_hanging(
    store: Store, tmp_path: Path
) -> None:
    """A FIFO where a rule file or ``AGENTS.md`` goes, or a link one folder up, is skipped with
    its reason: never opened (a FIFO would hang the command), followed or replaced."""
    import os
    import subprocess

    from tests._support.cli import BIN

    add(store, topic="billing/retries", triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    folder = store.root / ".claude/rules/cuecard"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "billing--retries.md")
    os.mkfifo(folder / "old.md")
    agents = store.root / "AGENTS.md"
    agents.unlink(missing_ok=True)
    os.mkfifo(agents)
    outside = tmp_path / "outside"
    (outside / "rules").mkdir(parents=True)
    (store.root / ".cursor").rename(tmp_path / "cursor-moved")
    (store.root / ".cursor").symlink_to(outside)

    def export(target: str) -> dict[str, Any]:
        done = subprocess.run(  # a liveness bound: only a hang reaches it
            [str(BIN / "cuecard"), "export", target, "--json"],
            cwd=store.root, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        report: dict[str, Any] = json.loads(done.stdout)
        return report

    claude = export("claude")
    assert claude["written"] == []
    assert claude["removed"] == []
    assert {"file": ".claude/rules/cuecard/billing--retries.md",
            "reason": "not written by cuecard; left alone"} in claude["skipped"]  # fmt: skip
    assert export("agents-md")["skipped"] == [{"file": "AGENTS.md", "reason": "it is a FIFO"}]
    cursor = export("cursor")
    assert cursor["skipped"] == [
        {"file": ".cursor/rules/cuecard", "reason": "the folder is a symbolic link"}
    ]
    assert sorted(p.name for p in outside.rglob("*")) == ["rules"]
    assert sorted(p.name for p in folder.iterdir()) == ["billing--retries.md", "old.md"]


def test_linked_rule_folders_and_fifos_are_skipped_and_named_without_hanging(
    store: Store, tmp_path: Path
) -> None:
    """`cuecard import` walks the rule folders without following a link (a linked folder inside
    `.claude/rules` was followed, and the rule outside imported) and opens each rule without
    waiting on it (a FIFO named like a rule hung the command); each is named as skipped."""
    import os
    import subprocess

    from tests._support.cli import BIN

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text(_text(".claude/rules/python.md"))
    rules = store.root / ".claude" / "rules"
    (rules / "shared").symlink_to(outside)
    os.mkfifo(rules / "pipe.md")
    os.mkfifo(store.root / "src" / "CLAUDE.md")
    done = subprocess.run(
        [str(BIN / "cuecard"), "import", "--json"],
        cwd=store.root,
        capture_output=True,
        text=True,
        timeout=120,  # a liveness bound: the FIFOs must not block it
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert not any("leak" in i["file"] or "shared" in i["file"] for i in report["imported"])
    skipped = {i["file"]: i["reason"] for i in report["skipped"]}
    assert skipped[".claude/rules/shared"] == "it is a symbolic link"
    assert skipped[".claude/rules/pipe.md"] == "it is a FIFO, not a regular file"
    assert skipped["src/CLAUDE.md"] == "it is a FIFO, not a regular file"
    assert report["imported"]  # the other rules still are
    text = subprocess.run(
        [str(BIN / "cuecard"), "import", "--dry-run"],
        cwd=store.root,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "skipped .claude/rules/shared: it is a symbolic link" in text
