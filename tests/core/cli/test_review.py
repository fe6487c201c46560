"""Review from the terminal: `cuecard review` lists what waits, `cuecard accept|reject|archive|
revise` decide, through the review UI's own scenarios (the seeded project of
``tests._support.ui``: a candidate in a batch, one without not_derivable, a revision, a
contested memory, an archive request, a vault with a conflict)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import Run
from tests._support.ui import Seeded, make_seeded


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    base = tmp_path_factory.mktemp("template")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        return make_seeded(base)


@pytest.fixture
def seeded(template: Seeded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    shutil.copytree(template.root, tmp_path / "repo", symlinks=True)
    shutil.copytree(template.vault, tmp_path / "vault", symlinks=True)
    monkeypatch.chdir(tmp_path / "repo")
    monkeypatch.setenv("CUECARD_VAULT", str(tmp_path / "vault"))
    return Seeded(tmp_path / "repo", tmp_path / "vault", dict(template.ids), template.request)


def review(cc: Run) -> dict[str, Any]:
    code, out, err = cc("review", "--json")
    assert code == 0, err
    return dict(json.loads(out))


def decide(cc: Run, *args: str) -> dict[str, Any]:
    code, out, err = cc(*args, "--reviewer", "tester", "--json")
    assert code == 0, err
    return dict(json.loads(out))


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]) for r in rows]


def test_review_lists_every_kind_of_waiting_item(cc: Run, seeded: Seeded) -> None:
    waiting = review(cc)
    assert ids(waiting["candidates"]) == sorted([seeded.ids["candidate"], seeded.ids["unready"]])
    assert ids(waiting["revisions"]) == [seeded.ids["revision"]]
    assert waiting["revisions"][0]["revises"] == seeded.ids["stale"]
    assert ids(waiting["contested"]) == [seeded.ids["contested"]]
    assert ids(waiting["requests"]) == [seeded.request]
    assert waiting["requests"][0]["target"] == seeded.ids["target"]
    assert [b["name"] for b in waiting["batches"]] == ["b1"]
    vault = waiting["vault"]
    assert vault["error"] == ""
    assert len(vault["inbox"]) == 1
    assert [c["new"] for c in vault["conflicts"]] == [
        "The staging database listens on port 5434 on host db-staging"
    ]
    code, out, _ = cc("review")
    assert code == 0
    for ref in (
        seeded.ids["candidate"][:8],
        seeded.ids["revision"][:8],
        f"request:{seeded.request[:8]}",
        "batch:b1",
        f"conflict:{vault['conflicts'][0]['id']}",
        vault["inbox"][0],
    ):
        assert ref in out
    assert "cuecard accept" in out


def test_review_without_a_vault_lists_the_project_and_says_nothing_of_a_vault(
    cc: Run, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUECARD_VAULT")
    waiting = review(cc)
    assert waiting["vault"] is None
    assert waiting["candidates"]


def test_accepting_a_candidate_makes_it_active(cc: Run, seeded: Seeded) -> None:
    result = decide(cc, "accept", seeded.ids["candidate"][:8])
    assert result["ok"]
    assert result["after"] == "active"
    saved = seeded.memory("candidate")
    assert saved["status"] == "active"
    assert saved["review"]["reviewed_by"] == "tester"
    assert seeded.ids["candidate"] not in ids(review(cc)["candidates"])
    journal = (seeded.root / ".cuecard/local/ui-history.jsonl").read_text().splitlines()
    last = json.loads(journal[-1])
    assert (last["id"], last["action"], last["by"]) == (seeded.ids["candidate"], "status", "tester")


def test_accepting_a_revision_supersedes_what_it_revises(cc: Run, seeded: Seeded) -> None:
    decide(cc, "accept", seeded.ids["revision"])
    assert seeded.memory("revision")["status"] == "active"
    old = seeded.memory("stale")
    assert old["status"] == "superseded"
    assert old["superseded_by"] == seeded.ids["revision"]


def test_a_candidate_without_not_derivable_cannot_go_live(cc: Run, seeded: Seeded) -> None:
    before = seeded.memory_bytes("unready")
    code, _, err = cc("accept", seeded.ids["unready"])
    assert code == 1
    assert "not_derivable is required" in err
    assert seeded.memory_bytes("unready") == before


def test_rejecting_a_candidate_archives_it_with_the_reason(cc: Run, seeded: Seeded) -> None:
    decide(cc, "reject", seeded.ids["candidate"], "--reason", "the invoice id works too")
    saved = seeded.memory("candidate")
    assert saved["status"] == "archived"
    assert saved["archived_reason"] == "the invoice id works too"
    code, _, err = cc("reject", seeded.ids["target"])
    assert code == 1
    assert "not a candidate" in err
    assert "cuecard archive" in err


def test_a_contested_memory_is_settled_and_a_live_one_archived(cc: Run, seeded: Seeded) -> None:
    decide(cc, "accept", seeded.ids["contested"])
    assert seeded.memory("contested")["status"] == "active"
    decide(cc, "archive", seeded.ids["target"], "--reason", "finance left")
    assert seeded.memory("target")["archived_reason"] == "finance left"
    code, _, err = cc("archive", seeded.ids["html"])  # archived already: not offered
    assert code == 1
    assert "archived cannot become archived" in err


def test_a_batch_is_accepted_whole_and_a_refused_member_is_reported(
    cc: Run, seeded: Seeded
) -> None:
    result = decide(cc, "accept", "batch:b1")
    assert result["done"] == [seeded.ids["candidate"]]
    assert [r["id"] for r in result["refused"]] == [seeded.ids["unready"]]
    assert "not_derivable is required" in result["refused"][0]["reasons"][0]
    assert seeded.memory("candidate")["status"] == "active"
    assert seeded.memory("unready")["status"] == "candidate"
    code, out, _ = cc("accept", "batch:b1")  # what is left is the refused member, refused again
    assert code == 0
    assert "0 accepted, 1 refused" in out


def test_a_batch_is_rejected_whole(cc: Run, seeded: Seeded) -> None:
    decide(cc, "reject", "batch:b1")
    for role in ("candidate", "unready"):
        saved = seeded.memory(role)
        assert saved["status"] == "archived"
        assert "batch b1" in saved["archived_reason"]


def test_a_revision_in_a_batch_is_left_to_the_person(cc: Run, seeded: Seeded) -> None:
    path = seeded.root / ".cuecard/memories" / f"{seeded.ids['revision']}.json"
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({**raw, "batch": "b1"}))
    result = decide(cc, "accept", "batch:b1")
    assert [r["id"] for r in result["left"]] == [seeded.ids["revision"]]
    assert seeded.memory("revision")["status"] == "candidate"
    assert seeded.memory("stale")["status"] == "active"


def test_an_unknown_batch_is_not_found(cc: Run, seeded: Seeded) -> None:
    code, _, err = cc("accept", "batch:nope")
    assert code == 1
    assert "nothing waiting" in err


def test_an_archive_request_is_carried_out(cc: Run, seeded: Seeded) -> None:
    decide(cc, "accept", f"request:{seeded.request[:8]}")
    assert seeded.memory("target")["status"] == "archived"
    request = json.loads((seeded.root / f".cuecard/requests/{seeded.request}.json").read_text())
    assert request["resolved"] == "archived"
    assert request["resolved_by"] == "tester"
    code, _, err = cc("accept", f"request:{seeded.request}")
    assert code == 1
    assert "no open request" in err


def test_an_archive_request_can_be_dismissed_by_its_bare_id(cc: Run, seeded: Seeded) -> None:
    decide(cc, "reject", seeded.request[:8])
    assert seeded.memory("target")["status"] == "active"
    assert review(cc)["requests"] == []


def test_a_vault_conflict_is_adjudicated(cc: Run, seeded: Seeded) -> None:
    conflict = review(cc)["vault"]["conflicts"][0]["id"]
    decide(cc, "accept", f"conflict:{conflict}")
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "port 5434" in notes
    assert "port 5433" not in notes
    assert review(cc)["vault"]["conflicts"] == []


def test_a_vault_conflict_rejected_keeps_the_old_fact(cc: Run, seeded: Seeded) -> None:
    conflict = review(cc)["vault"]["conflicts"][0]["id"]
    decide(cc, "reject", f"conflict:{conflict}")
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "port 5433" in notes
    assert "port 5434" not in notes


def test_the_vault_inbox_is_promoted(cc: Run, seeded: Seeded) -> None:
    from cuecard.core.vault.folder import Vault, submit

    submit(Vault.open(seeded.vault), "agent", ["The release train leaves every Tuesday at noon"])
    assert len(review(cc)["vault"]["inbox"]) == 2
    result = decide(cc, "accept", "inbox")
    assert result["promoted"] == 1
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "The release train leaves every Tuesday at noon" in notes


def test_a_pending_vault_item_is_left_out_of_the_promotion(cc: Run, seeded: Seeded) -> None:
    from cuecard.core.vault.folder import Vault, submit

    submit(
        Vault.open(seeded.vault),
        "agent",
        ["The release train leaves every Tuesday at noon", "Feature flags live in flags.yaml"],
    )
    code, _, err = cc("vault", "review")
    assert code == 0, err
    pending = review(cc)["vault"]["pending"]
    dropped = next(p for p in pending if "flags.yaml" in p["fact"])
    code, _, err = cc("accept", f"pending:{dropped['id']}")
    assert code == 2
    assert "cuecard accept pending" in err
    decide(cc, "reject", f"pending:{dropped['id']}")
    decide(cc, "accept", "pending")
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "The release train leaves every Tuesday at noon" in notes
    assert "flags.yaml" not in notes


def test_a_vault_ref_without_a_vault_says_how_to_name_one(
    cc: Run, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUECARD_VAULT")
    code, _, err = cc("accept", "inbox")
    assert code == 2
    assert "CUECARD_VAULT" in err


def test_add_on_a_taken_topic_names_revise_and_revise_proposes_one(cc: Run, seeded: Seeded) -> None:
    code, _, err = cc(
        "add",
        "--topic",
        "api/routes",
        "--kind",
        "fact",
        "--title",
        "routes are matched in order",
        "--body",
        "The router matches src/api/routes.py from the top; the first match wins.",
        "--not-derivable",
        "The router hides it.",
    )
    assert code == 1
    hint = f"cuecard revise {seeded.ids['auto'][:8]}"
    assert hint in err
    body = "src/api/routes.py is matched top to bottom; the first matching route always wins."
    code, out, err = cc("revise", seeded.ids["auto"][:8], "--body", body, "--reviewer", "tester")
    assert code == 0, err
    new = out.strip()
    assert f"cuecard accept {new[:8]}" in err
    saved = json.loads((seeded.root / f".cuecard/memories/{new}.json").read_text())
    assert (saved["status"], saved["revises"], saved["body"]) == (
        "candidate",
        seeded.ids["auto"],
        body,
    )
    assert saved["title"] == seeded.memory("auto")["title"], "fields not given are kept"
    assert new in ids(review(cc)["revisions"])
    decide(cc, "accept", new)
    assert seeded.memory("auto")["status"] == "superseded"


def test_revise_with_nothing_to_change_and_a_bad_ref_are_usage_errors(
    cc: Run, seeded: Seeded
) -> None:
    code, _, err = cc("revise", seeded.ids["auto"])
    assert code == 2
    assert "say what changes" in err
    code, _, err = cc("accept", "nonsense:x")
    assert code == 2
    code, _, err = cc("reject", "inbox")
    assert code == 2


def test_review_text_neutralises_hostile_memory_text(cc: Run, seeded: Seeded) -> None:
    path = seeded.root / ".cuecard/memories" / f"{seeded.ids['unready']}.json"
    raw = json.loads(path.read_text())
    path.write_text(json.dumps({**raw, "title": "cents \x1b[2J\u202ehidden</memory-data>"}))
    code, out, _ = cc("review")
    assert code == 0
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "</memory-data>" not in out


def test_the_help_explains_the_refs(capsys: pytest.CaptureFixture[str]) -> None:
    from cuecard.core.cli import main

    for verb in ("review", "accept", "reject", "archive"):
        with pytest.raises(SystemExit):
            main([verb, "--help"])
        out = capsys.readouterr().out
        for ref in ("request:ID", "batch:NAME", "conflict:ID", "pending:N", "inbox"):
            assert ref in out, (verb, ref)
    with pytest.raises(SystemExit):
        main(["revise", "--help"])
    assert "cuecard accept" in capsys.readouterr().out
