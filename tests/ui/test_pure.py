"""The pure parts: the dry run over footprint records, field errors, usage, charts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core import ValidationError, validate_memory
from cuecard.core.review import dry_run, record_event, recorded_sessions, with_status
from cuecard.ui._charts import bar_chart
from cuecard.ui._edits import EditRefused, edited, field_errors
from cuecard.ui._usage import deliveries_per_day, fires_by_dimension, usage

NOW = datetime(2026, 11, 20, tzinfo=UTC).isoformat()


def memory(triggers: list[dict[str, Any]], **extra: Any) -> Any:
    return validate_memory(
        {
            "id": "0f0e0d0c-0b0a-4909-8807-060504030201",
            "topic": "billing/refunds",
            "kind": "trap",
            "title": "refund() needs the charge id",
            "body": "Call refund(charge_id) with the charges table id, never the invoice id.",
            "triggers": triggers,
            "created_at": NOW,
            "updated_at": NOW,
            **extra,
        }
    )


def tool(kind: str, **fields: Any) -> dict[str, Any]:
    return {"t": 1.0, "e": "tool", "tool": "X", "kind": kind, **fields}


SESSION = [
    {"t": 0.5, "e": "prompt", "correction": True, "preview": "no, refund with the charge id"},
    tool("read", paths=["billing/charge.py"]),
    tool("edit", paths=["billing/charge.py"], symbols=["refund"]),
    tool("run", command="alembic upgrade head && pytest -q"),
    tool("search", paths=["billing"]),
    tool("read", paths=["docs/readme.md"]),
    {"t": 9.0, "e": "stop", "asked": "abc"},
    {"t": 9.5, "e": "epoch", "reason": "compact"},
]


@pytest.mark.parametrize(
    ("clause", "events"),
    [
        ({"on": ["read", "edit"], "paths": ["billing/**"]}, ["read", "edit"]),
        ({"on": ["search"], "paths": ["billing/api/*.py"]}, ["search"]),
        ({"on": ["run"], "commands": ["alembic upgrade"]}, ["run"]),
        ({"on": ["run"], "commands": ["pytest"]}, ["run"]),
        ({"on": ["run"], "commands": ["pytest --lf"]}, []),
        ({"on": ["edit"], "symbols": ["refund"]}, ["edit"]),
        ({"on": ["prompt"], "keywords": ["charge id"]}, ["prompt"]),
        ({"on": ["edit"], "paths": ["{billing,docs}/*.md"]}, []),
        ({"on": ["read"], "paths": ["{billing,docs}/*.md"]}, ["read"]),
    ],
    ids=[
        "paths",
        "search-folder",
        "command",
        "second-command",
        "longer-prefix",
        "symbol",
        "keyword-in-preview",
        "braces-wrong-kind",
        "braces",
    ],
)
def test_dry_run_fires_as_the_hot_path_matches(clause: dict[str, Any], events: list[str]) -> None:
    result = dry_run(memory([clause]), [("s1", SESSION)])
    assert [h.kind for h in result.hits] == events
    assert result.matched == len(events)
    assert result.events == 6
    assert result.sessions == 1
    assert result.sessions_hit == (1 if events else 0)


def test_an_event_counts_once_for_its_first_clause() -> None:
    triggers = [
        {"on": ["edit"], "paths": ["billing/**"]},
        {"on": ["edit"], "symbols": ["refund"]},
    ]
    result = dry_run(memory(triggers), [("s1", SESSION)])
    assert result.matched == 1
    assert result.by_clause == {0: 1}
    assert result.by_dimension == {"paths": 1}


def test_the_hit_list_is_bounded_but_the_count_is_not() -> None:
    many = [tool("read", paths=["billing/x.py"], t=float(i)) for i in range(50)]
    result = dry_run(memory([{"on": ["read"], "paths": ["billing/**"]}]), [("s", many)], limit=10)
    assert result.matched == 50
    assert len(result.hits) == 10
    assert result.hits[-1].t == 49.0, "the most recent are kept"


def test_recorded_sessions_skip_torn_lines_and_symlinks(tmp_path: Path) -> None:
    local = tmp_path / "local"
    (local / "sessions/a").mkdir(parents=True)
    (local / "sessions/a/footprint.jsonl").write_text(
        json.dumps(tool("read", paths=["a.py"])) + "\n{torn\n[1]\n" + json.dumps({"e": 3}) + "\n"
    )
    (local / "sessions/b").mkdir()
    (local / "sessions/b/footprint.jsonl").symlink_to(local / "sessions/a/footprint.jsonl")
    found = dict(recorded_sessions(str(local)))
    assert list(found) == ["a"]
    assert len(found["a"]) == 1
    assert list(recorded_sessions(str(tmp_path / "nowhere"))) == []


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["e", "kind", "paths", "command", "symbols", "agent", "t", "preview"]),
        values,
    )
)
def test_any_footprint_line_replays_without_error(record: dict[str, Any]) -> None:
    event = record_event(record)
    if event is not None:
        assert event.kind in ("prompt", "read", "edit", "write", "run", "search")
        dry_run(
            memory([{"on": ["read", "run", "prompt"], "paths": ["**/*.py"]}]), [("s", [record])]
        )


def test_field_errors_name_the_field_of_each_refusal() -> None:
    errors = field_errors(
        [
            'memory 7f3a…: triggers[0].paths[1] "../x" leaves the repository',
            "memory 7f3a…: not_derivable is required for a live memory",
            "memory (new): the record is 40000 characters; the limit is 32000",
            "memory 7f3a…: check needs if_content or if_command",
        ]
    )
    assert [e.field for e in errors] == [
        "triggers[0].paths[1]",
        "not_derivable",
        "(record)",
        "check",
    ]
    assert errors[0].message == 'triggers[0].paths[1] "../x" leaves the repository'


def test_edits_refuse_unknown_fields_and_keep_the_rest() -> None:
    base = memory([{"on": ["edit"], "paths": ["billing/**"]}])
    with pytest.raises(EditRefused) as refused:
        edited(base, {"id": "x", "status": "active"})
    assert sorted(e.field for e in refused.value.errors) == ["id", "status"]
    saved = edited(base, {"batch": "  ", "not_derivable": "Only finance knows."})
    assert saved.batch is None
    assert saved.not_derivable == "Only finance knows."
    assert saved.id == base.id
    assert saved.triggers == base.triggers


def test_status_moves_follow_the_lifecycle() -> None:
    base = memory([{"on": ["edit"], "paths": ["billing/**"]}], not_derivable="why")
    now = datetime(2026, 11, 21, tzinfo=UTC)
    archived = with_status(base, "archived", reviewer="ana", now=now, note="obsolete")
    assert archived.archived_reason == "obsolete"
    assert archived.review.reviewed_by == "ana"
    restored = with_status(archived, "candidate", reviewer="ana", now=now)
    assert restored.archived_reason is None
    with pytest.raises(ValidationError) as refused:
        with_status(base, "superseded", reviewer="ana", now=now)
    assert field_errors(refused.value.refusals)[0].field == "status"


LEDGER: list[dict[str, Any]] = [
    {
        "t": 86_400.0 * 3,
        "session": "a",
        "event": "edit",
        "ids": [["m1", "paths"], ["m2", "symbols"]],
    },
    {"t": 86_400.0 * 3 + 5, "session": "a", "event": "run", "ids": [["check:m1:x", "check"]]},
    {"t": 86_400.0 * 4, "session": "b", "event": "read", "ids": [["m1", "paths"]]},
    {"t": "bad", "ids": [["m1", "paths"]]},
    {"event": "epoch", "epoch": 1},
    {"t": 1.0, "ids": ["not-a-pair", [1, 2]]},
]


def test_usage_reads_the_ledger() -> None:
    mine = usage(LEDGER, "m1")
    assert mine.fires == {"paths": 2}
    assert mine.total == 2
    assert [d.session for d in mine.last] == ["b", "a"]
    assert fires_by_dimension(LEDGER) == {"paths": 2, "symbols": 1}
    assert deliveries_per_day(LEDGER) == [("1970-01-04", 2), ("1970-01-05", 1)]


def test_charts_escape_labels_and_scale_bars() -> None:
    svg = bar_chart([("<script>", 10), ("b&c", 5), ("zero", 0)], title='t"itle')
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "b&amp;c" in svg
    assert 'aria-label="t&quot;itle"' in svg
    assert svg.count("<rect") == 3
    assert bar_chart([], title="none") == ""
