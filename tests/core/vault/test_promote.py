"""Promotion, conflicts and forgetting, on both layouts, through the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuecard.core.vault.folder import Vault

BIN = Path(sys.executable).parent
LAYOUTS = ("default", "unified-agent-memory")


Run = Callable[..., tuple[int, str, str]]


class V:
    """A vault under test, driven through the CLI."""

    def __init__(self, cc: Run, root: Path, layout: str) -> None:
        self.cc, self.root, self.layout = cc, root, layout
        code, _, err = cc("vault", "init", "--vault", str(root), "--layout", layout)
        assert code == 0, err
        self.vault = Vault.open(root)

    def __call__(self, *args: str, stdin: str = "") -> tuple[int, str, str]:
        return self.cc("vault", args[0], "--vault", str(self.root), *args[1:], stdin=stdin)

    def json(self, *args: str) -> dict[str, Any]:
        code, out, err = self(*args, "--json")
        assert code == 0, err
        result: dict[str, Any] = json.loads(out)
        return result

    def submit(self, *facts: str, agent: str = "dsh") -> str:
        return str(self.json("submit", "--agent", agent, *facts)["file"])

    def note(self, note_id: str) -> str:
        path = self.vault.note_file(note_id)
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def path(self, rel: str) -> Path:
        folder = getattr(self.vault.layout, rel)
        assert isinstance(folder, str)
        return self.root / folder

    def inbox(self) -> list[str]:
        return [p.name for p in self.vault.inbox_files()]

    def processed(self) -> list[str]:
        return sorted(p.name for p in self.vault.processed.glob("*.md"))


@pytest.fixture(params=LAYOUTS)
def v(request: pytest.FixtureRequest, cc: Run, tmp_path: Path) -> V:
    return V(cc, tmp_path / "v", request.param)


# -- review and apply ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fact", "note"),
    [
        ("prefers dark theme in the UI", "ui"),
        ("the deploy must always run the smoke tests first", "rules"),
        ("I prefer short answers in English", "prefs"),
        ("staging server listens on port 8080", "env"),
        ("staging 服务器环境绑定在 127.0.0.1:8080", "env"),
        ("服务端口已改为 9090", "env"),
        ("用户偏好简体中文回复", "prefs"),
        ("ripgrep is available but fd is broken", "tools"),
        ("hand off to the codex agent at the end of a task", "coord"),
        ("the report is likely late", "other"),
    ],
)
def test_review_classifies_by_keyword_rules(cc: Run, tmp_path: Path, fact: str, note: str) -> None:
    layout = LAYOUTS[any(ord(c) > 0x1100 for c in fact)]
    v = V(cc, tmp_path / "v", layout)
    v.submit(fact)
    result = v.json("review")
    assert [(p["fact"], p["note"]) for p in result["pending"]] == [(fact, note)]


def test_review_writes_the_pending_list_and_apply_promotes(v: V) -> None:
    name = v.submit("staging server listens on port 8080", "prefers dark theme in the UI")
    v.json("review")
    pending = v.path("pending").read_text(encoding="utf-8")
    assert f'<!-- sources: ["{name}"] -->' in pending
    if v.layout == "unified-agent-memory":
        assert pending.startswith("# 待晋升清单\n")
        assert re.search(
            rf"^- \[ \] 1\. 分类:env｜目标:50-Agent-Context/常用路径与环境\.md｜来源:{name}"
            r"｜内容:staging server listens on port 8080$",
            pending,
            re.M,
        )
    result = v.json("apply")
    assert len(result["promoted"]) == 2
    today = date.today().isoformat()
    env = v.note("env")
    if v.layout == "unified-agent-memory":
        assert (
            f"- staging server listens on port 8080（写入 {today}｜来源：Agent提交区/{name}）"
            in env
        )
    else:
        assert (
            f"- staging server listens on port 8080 (written {today} | source: inbox/{name})" in env
        )
    assert v.inbox() == []
    assert v.processed() == [name]
    assert v.json("status")["last_promotion"] is not None


def test_apply_is_idempotent(v: V) -> None:
    v.submit("staging server listens on port 8080")
    v.json("review")
    v.json("apply")
    before = v.note("env")
    again = v.json("apply")
    assert again["promoted"] == []
    assert again["archived"] == []
    assert v.note("env") == before


def test_ticked_or_deleted_items_are_not_promoted(v: V) -> None:
    v.submit("staging server listens on port 8080", "prefers dark theme in the UI")
    v.json("review")
    path = v.path("pending")
    path.write_text(path.read_text(encoding="utf-8").replace("- [ ] 1.", "- [x] 1."), "utf-8")
    result = v.json("apply")
    assert [p["note"] for p in result["promoted"]] == ["ui"]
    assert "port 8080" not in v.note("env")
    assert v.inbox() == []


def test_field_markers_inside_a_fact_survive_the_list(v: V) -> None:
    fact = "the relay 来源:ci｜目标:prod says source:x | fact:y keeps working"
    v.submit(fact)
    v.json("review")
    v.json("apply")
    assert fact in "".join(v.note(n) for n in (*v.vault.layout.notes, "other"))


def test_apply_archives_the_reviewed_sources_but_not_later_arrivals(v: V) -> None:
    first = v.submit("staging server listens on port 8080")
    v.submit("staging server listens on port 8080", agent="claude")  # a duplicate
    v.json("review")
    late = v.submit("the backup host is nas-2", agent="codex")
    result = v.json("apply")
    assert first in result["archived"]
    assert v.inbox() == [late]


def test_same_name_archives_are_kept_side_by_side(v: V) -> None:
    name = v.submit("first fact about the quay")
    v.json("apply", "--auto")
    (v.vault.inbox / name).write_text("- second fact about the pier\n", encoding="utf-8")
    v.json("apply", "--auto")
    assert v.processed() == sorted([name, name[:-3] + "-2.md"])


def test_duplicates_are_dropped_and_their_files_archived(v: V) -> None:
    v.submit("staging server listens on port 8080")
    v.json("apply", "--auto")
    v.submit("staging server listens on port 8080")
    result = v.json("review")
    assert result["pending"] == []
    assert result["duplicates"] == 1
    v.json("apply")
    assert v.inbox() == []
    assert v.note("env").count("port 8080") == 1


def test_review_and_apply_without_a_pending_list_do_nothing(v: V) -> None:
    result = v.json("apply")
    assert result["promoted"] == []
    assert result["archived"] == []


def test_a_hand_edited_unknown_note_refuses_the_whole_apply(v: V) -> None:
    v.submit("staging server listens on port 8080")
    v.json("review")
    path = v.path("pending")
    label = v.vault.layout.pending_labels[0]
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"{label}:env", f"{label}:../../etc"), "utf-8"
    )
    code, _, err = v("apply")
    assert code == 1
    assert "pending item 1: note '../../etc'" in err
    assert "port 8080" not in v.note("env")
    assert len(v.inbox()) == 1


def test_auto_promotes_into_the_right_note(v: V) -> None:
    name = v.submit("the deploy must always run the smoke tests first")
    v.json("apply", "--auto")
    assert "smoke tests" in v.note("rules")
    assert "smoke tests" not in v.note("other")
    assert name in v.note("rules")


def test_a_supersession_moves_the_old_line(v: V) -> None:
    v.submit("the build server uses python 3.10")
    v.json("apply", "--auto")
    v.submit("the build server now uses python 3.12 instead of 3.10")
    result = v.json("review")
    assert result["supersessions"] == 1
    assert result["conflicts"] == 0
    v.json("apply")
    env = v.note("env")
    heading = v.vault.layout.superseded_heading
    live, _, old = env.partition(heading)
    assert "now uses python 3.12" in live
    assert "uses python 3.10" not in live
    assert "uses python 3.10" in old
    code, out, _ = v("search", "python", "--json")
    assert code == 0
    assert json.loads(out)["count"] >= 1
    assert all("3.12" in r["text"] for r in json.loads(out)["results"])


# -- conflicts -----------------------------------------------------------------------------------


def _conflicted(v: V) -> str:
    v.submit("staging server listens on port 8080")
    v.json("apply", "--auto")
    v.submit("staging server listens on port 8081")
    result = v.json("review")
    assert result["conflicts"] == 1
    assert result["pending"] == []
    conflicts = v.json("conflicts")["conflicts"]
    assert len(conflicts) == 1
    return str(conflicts[0]["id"])


def test_conflicts_are_queued_once(v: V) -> None:
    _conflicted(v)
    v.json("review")
    assert len(v.json("conflicts")["conflicts"]) == 1
    if v.layout == "unified-agent-memory":
        queue = v.path("conflicts").read_text(encoding="utf-8")
        assert '- [ ] 冲突 {"新":"staging server listens on port 8081"' in queue


@pytest.mark.parametrize(
    ("decision", "new_there", "old_there", "queued"),
    [
        ("use-new", True, False, 0),
        ("keep-old", False, True, 0),
        ("keep-both", True, True, 0),
        ("defer", False, True, 1),
    ],
)
def test_adjudication_decisions(
    v: V, decision: str, new_there: bool, old_there: bool, queued: int
) -> None:
    ident = _conflicted(v)
    result = v.json("adjudicate", ident, "--decision", decision)
    assert result["decisions"] == [{"id": ident, "decision": decision}]
    env = v.note("env")
    assert ("port 8081" in env) is new_there
    assert ("port 8080" in env) is old_there
    assert len(v.json("conflicts")["conflicts"]) == queued
    log = v.path("adjudicated").read_text(encoding="utf-8")
    assert v.vault.layout.decisions[decision] in log
    assert "port 8081" in log


def test_interactive_adjudication_defaults_to_defer(v: V) -> None:
    _conflicted(v)
    code, out, _ = v("adjudicate", stdin="\n")
    assert code == 0
    assert "defer" in out
    assert len(v.json("conflicts")["conflicts"]) == 1
    code, out, _ = v("adjudicate", stdin="n\n")
    assert code == 0
    assert "use-new" in out
    assert v.json("conflicts")["conflicts"] == []


def test_adjudicating_an_unknown_id_fails(v: V) -> None:
    code, _, err = v("adjudicate", "ffffffff", "--decision", "use-new")
    assert code == 1
    assert "not in the queue" in err


def test_the_queue_keeps_json_and_pipes_intact(v: V) -> None:
    v.submit("the gateway route is /api｜v1 on port 8080")
    v.json("apply", "--auto")
    v.submit("the gateway route is /api｜v2 on port 8080")
    v.json("review")
    conflict = v.json("conflicts")["conflicts"][0]
    assert conflict["new"] == "the gateway route is /api｜v2 on port 8080"


# -- a crash mid-apply ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "layout"),
    [
        ("vault-apply-note", "default"),
        ("vault-apply-notes-written", "unified-agent-memory"),
        ("vault-apply-archived", "default"),
    ],
)
def test_a_crash_mid_apply_leaves_the_vault_consistent(
    cc: Run, tmp_path: Path, point: str, layout: str
) -> None:
    v = V(cc, tmp_path / "v", layout)
    facts = ["staging server listens on port 8080", "prefers dark theme in the UI"]
    name = v.submit(*facts)
    v.json("review")
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "CUECARD_CRASH_AT": point,
    }
    crashed = subprocess.run(
        [str(BIN / "cuecard"), "vault", "apply", "--vault", str(v.root)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert crashed.returncode == -9
    assert not list(v.root.rglob(".*.tmp"))
    code, _, err = v("apply")  # the dead owner's lock is broken; the work completes
    assert code == 0, err
    notes = "".join(v.note(n) for n in v.vault.layout.notes)
    for fact in facts:
        assert notes.count(fact) == 1
    assert v.inbox() == []
    assert v.processed() == [name]


# -- forgetting ----------------------------------------------------------------------------------


def _stamped(v: V, days_ago: int, fact: str, note: str = "tools") -> None:
    day = (date.today() - timedelta(days=days_ago)).isoformat()
    stamp = v.vault.layout.stamp.format(date=day, source="old-20200101-000000-01.md")
    path = v.vault.note_file(note)
    path.write_text(path.read_text(encoding="utf-8") + f"- {fact}{stamp}\n", encoding="utf-8")


def test_forget_is_a_dry_run_unless_applied(v: V) -> None:
    _stamped(v, 200, "the old linter was flaky on tuesdays")
    _stamped(v, 10, "the new linter is quick")
    _stamped(v, 200, "the staging server hostname is kestrel")  # protected: server
    v.vault.note_file("tools").write_text(
        v.note("tools") + "- hand-written lines have no stamp and stay\n", encoding="utf-8"
    )
    result = v.json("forget")
    assert result["applied"] is False
    assert [c["line"].split("（")[0].split(" (")[0] for c in result["candidates"]] == [
        "- the old linter was flaky on tuesdays"
    ]
    assert "flaky on tuesdays" in v.note("tools")
    moved = v.json("forget", "--apply")
    assert len(moved["candidates"]) == 1
    assert "flaky on tuesdays" not in v.note("tools")
    forgotten = v.path("forgotten") / v.vault.note_file("tools").name
    assert "flaky on tuesdays" in forgotten.read_text(encoding="utf-8")
    assert "the new linter is quick" in v.note("tools")
    assert "kestrel" in v.note("tools")
    assert "hand-written" in v.note("tools")


def test_a_fact_returned_by_search_is_not_forgotten(v: V) -> None:
    _stamped(v, 200, "the old linter was flaky on tuesdays")
    code, out, _ = v("search", "tuesdays")
    assert code == 0
    assert "tuesdays" in out
    assert v.json("forget")["candidates"] == []
    assert v.json("forget", "--days", "400")["candidates"] == []


def test_a_fact_returned_by_show_is_not_forgotten(v: V) -> None:
    _stamped(v, 200, "the old linter was flaky on tuesdays")
    assert v("show", "tools")[0] == 0
    assert v.json("forget")["candidates"] == []


def test_forget_never_touches_the_index_note_or_superseded_history(v: V) -> None:
    _stamped(v, 200, "see the tools note for linters", note="index")
    assert v.json("forget")["candidates"] == []


# -- the pending list round-trips any fact -------------------------------------------------------

_FACT = (
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")),
        min_size=1,
        max_size=60,
    )
    .map(str.strip)
    .filter(bool)
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(facts=st.lists(_FACT, min_size=1, max_size=5), replaces=_FACT)
def test_pending_list_round_trips_any_fact(tmp_path: Path, facts: list[str], replaces: str) -> None:
    from cuecard.core.vault._layout import LAYOUTS
    from cuecard.core.vault._model import Pending, Review
    from cuecard.core.vault.folder._pending import parse_pending, render_pending

    for layout in LAYOUTS.values():
        vault = Vault(tmp_path / layout.name, layout)
        pending = [
            Pending(f, "env", "dsh-20260101-000000-01.md", replaces if i % 2 else "")
            for i, f in enumerate(facts)
        ]
        text = render_pending(vault, Review(pending=pending, sources=["a.md"]), "apply")
        entries, sources = parse_pending(layout, text)
        assert sources == ["a.md"]
        assert entries == pending
