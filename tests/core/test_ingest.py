"""Ingestion of inbox proposals: replies, refusals, replacement, requests, auto-accept."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import BIN, run_cli

GOOD: dict[str, Any] = {
    "topic": "billing/refunds",
    "kind": "trap",
    "title": "refund() needs the original charge id",
    "body": "Call refund(charge_id) with the id from the charges table, not the invoice id.",
    "not_derivable": "The payment API accepts both ids and fails a week later.",
    "triggers": [{"on": ["edit"], "paths": ["billing/**"]}],
    "evidence": [{"kind": "file", "ref": "billing/charge.py"}],
}


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "billing").mkdir()
    (project / "billing/charge.py").write_text("def refund(charge_id): ...\n")
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    return project


def ingest(root: Path, proposal: Any, name: str = "p.json") -> dict[str, Any]:
    text = proposal if isinstance(proposal, str) else json.dumps(proposal)
    (root / ".cuecard/inbox" / name).write_text(text)
    result = run_cli("ingest", "--json", cwd=root)
    out = json.loads(result.stdout)["results"]
    assert len(out) == 1
    assert not (root / ".cuecard/inbox" / name).exists(), "the proposal leaves the inbox"
    return dict(out[0])


def memory(root: Path, memory_id: str) -> dict[str, Any]:
    return dict(json.loads((root / ".cuecard/memories" / f"{memory_id}.json").read_text()))


def test_verified_grounds_are_auto_accepted(repo: Path) -> None:
    out = ingest(repo, GOOD)
    assert out["outcome"] == "active"
    assert out["file"] == f".cuecard/memories/{out['memory_id']}.json"
    assert "auto-accepted because its evidence file was verified" in out["message"]
    saved = memory(repo, out["memory_id"])
    assert saved["origin"] == "model_initiated"
    assert saved["review"]["auto_accepted"] is True
    assert saved["evidence"][0]["verified"] is True
    assert len(saved["evidence"][0]["sha256"]) == 64


@pytest.mark.parametrize(
    ("change", "note"),
    [
        ({"evidence": []}, "no evidence cuecard could verify"),
        (
            {"evidence": [{"kind": "note", "ref": "tests passed", "summary": "it worked"}]},
            "no evidence cuecard could verify",
        ),
        ({"evidence": [{"kind": "file", "ref": "../etc/passwd"}]}, "lies outside the repository"),
        ({"triggers": [{"on": ["edit"], "paths": ["nowhere/**"]}]}, "match no file"),
        ({"not_derivable": None}, "not_derivable is missing"),
        ({"check": {"if_content": "x", "violates": ["x"], "passes": ["y"]}}, "with a check"),
    ],
    ids=["no-evidence", "reported-success", "outside", "dead-trigger", "no-why", "check"],
)
def test_auto_accept_refused_cases_stay_candidates(
    repo: Path, change: dict[str, Any], note: str
) -> None:
    out = ingest(repo, {**GOOD, **change})
    assert out["outcome"] == "candidate"
    assert note in out["message"]
    assert memory(repo, out["memory_id"])["status"] == "candidate"


def test_auto_accept_off(repo: Path) -> None:
    config = repo / ".cuecard/config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "auto_accept": False}))
    out = ingest(repo, GOOD)
    assert out["outcome"] == "candidate"
    assert "auto-accept is off" in out["message"]


@pytest.mark.parametrize(
    ("proposal", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "not one JSON object"),
        ({**GOOD, "kind": "opinion"}, "kind input should be"),
        ({**GOOD, "body": "token: ghp_" + "Zq7" * 12}, "credential-shaped value (GitHub token)"),
        ({**GOOD, "title": "x </memory-data> y"}, "<memory-data> tag"),
        ({**GOOD, "triggers": [{"on": ["edit"], "paths": ["../up"]}]}, "leaves the repository"),
        (
            {
                "topic": "general/x",
                "kind": "procedure",
                "title": "Write tests",
                "body": "Always write tests and follow best practices for clean code.",
            },
            "generic advice",
        ),
    ],
    ids=["json", "array", "schema", "secret", "wrapper", "glob", "generic"],
)
def test_refusals_say_why_and_store_nothing(repo: Path, proposal: Any, reason: str) -> None:
    out = ingest(repo, proposal)
    assert out["outcome"] == "refused"
    assert out["memory_id"] is None
    assert reason in out["message"]
    assert "ghp_" not in out["message"]
    assert list((repo / ".cuecard/memories").iterdir()) == []
    assert list((repo / ".cuecard/local/inbox-refused").iterdir())


def test_a_duplicate_of_a_live_memory_is_refused(repo: Path) -> None:
    first = ingest(repo, GOOD)
    again = ingest(repo, {**GOOD, "topic": "billing/refund-ids"})
    assert again["outcome"] == "refused"
    assert f"duplicates live memory {first['memory_id'][:8]}" in again["message"]


def test_a_new_candidate_replaces_a_pending_one_on_its_topic(repo: Path) -> None:
    first = ingest(repo, {**GOOD, "evidence": []})
    second = ingest(repo, {**GOOD, "evidence": [], "body": "Pass charge_id from charges, always."})
    assert second["outcome"] == "replaced"
    old = memory(repo, first["memory_id"])
    assert old["status"] == "archived"
    assert second["memory_id"] in old["archived_reason"]


def test_requests_wait_for_a_person(repo: Path) -> None:
    live = ingest(repo, GOOD)["memory_id"]
    archive = ingest(repo, {"request": "archive", "target": live[:8], "reason": "obsolete"})
    assert archive["outcome"] == "request"
    [request] = list((repo / ".cuecard/requests").glob("*.json"))
    assert json.loads(request.read_text())["target"] == live
    assert memory(repo, live)["status"] == "active"
    revise = ingest(
        repo,
        {
            "request": "revise",
            "target": live,
            "reason": "clearer",
            "body": "Use the charge id from charges.id when refunding.",
        },
    )
    candidate = memory(repo, revise["memory_id"])
    assert candidate["status"] == "candidate"
    assert candidate["revises"] == live
    accepted = subprocess.run(
        [
            str(BIN / "python"),
            "-c",
            f"from cuecard.core import Store; Store.open().accept({revise['memory_id']!r})",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert accepted.returncode == 0, accepted.stderr
    assert memory(repo, live)["status"] == "superseded"
    assert memory(repo, revise["memory_id"])["status"] == "active"


def test_telemetry_has_outcomes_not_content(repo: Path) -> None:
    ingest(repo, GOOD)
    line = (repo / ".cuecard/local/telemetry/inbox.jsonl").read_text().splitlines()[-1]
    assert json.loads(line)["outcome"] == "active"
    assert "refund" not in line


def test_schema_proposal(tmp_path: Path) -> None:
    schema = json.loads(run_cli("schema", "proposal", cwd=tmp_path).stdout)
    assert schema["title"] == "Proposal"
    assert len(schema["anyOf"]) == 2


def test_triggers_are_suggested_from_the_session(repo: Path) -> None:
    from cuecard.core.engine import Footprint

    footprint = Footprint(str(repo / ".cuecard/local"), "sess-1")
    for path in ("billing/charge.py", "billing/charge.py", "billing/refund.py"):
        footprint.tool("Edit", "edit", paths=[path])
    proposal = {k: v for k, v in GOOD.items() if k != "triggers"}
    (repo / ".cuecard/inbox/s.json").write_text(json.dumps(proposal))
    out = json.loads(run_cli("ingest", "--session", "sess-1", "--json", cwd=repo).stdout)
    [result] = out["results"]
    assert "Triggers were suggested from this session" in result["message"]
    saved = memory(repo, result["memory_id"])
    assert saved["triggers"] == [
        {
            "on": ["read", "edit", "write"],
            "paths": ["billing/**"],
            "symbols": [],
            "commands": [],
            "keywords": [],
        }
    ]


def test_a_recorded_correction_grounds_auto_accept(repo: Path) -> None:
    from cuecard.core.engine import Footprint

    footprint = Footprint(str(repo / ".cuecard/local"), "sess-2")
    proposal = {**GOOD, "evidence": [{"kind": "correction", "ref": "sess-2"}]}
    (repo / ".cuecard/inbox/c.json").write_text(json.dumps(proposal))
    out = json.loads(run_cli("ingest", "--session", "sess-2", "--json", cwd=repo).stdout)
    assert out["results"][0]["outcome"] == "candidate", "no correction recorded yet"
    footprint.tool("Edit", "edit", paths=["billing/charge.py"])
    footprint.prompt(correction=True, preview="no, refunds take the charge id")
    proposal["topic"] = "billing/refund-charge-id"
    proposal["body"] = "refund() takes charges.id; invoices.id fails silently a week later."
    (repo / ".cuecard/inbox/c.json").write_text(json.dumps(proposal))
    out = json.loads(run_cli("ingest", "--session", "sess-2", "--json", cwd=repo).stdout)
    assert out["results"][0]["outcome"] == "active"
    assert "a recorded correction" in out["results"][0]["message"]


def test_an_inbox_that_is_a_link_is_not_emptied(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "p.json").write_text(json.dumps(GOOD))
    (repo / ".cuecard/inbox").rmdir()
    (repo / ".cuecard/inbox").symlink_to(elsewhere)
    result = run_cli("ingest", "--json", cwd=repo)
    [out] = json.loads(result.stdout)["results"]
    assert out["outcome"] == "refused"
    assert "is a link" in out["message"]
    assert (elsewhere / "p.json").is_file()
    assert list((repo / ".cuecard/memories").iterdir()) == []


def test_a_linked_proposal_is_refused_by_itself_and_the_others_ingested(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(GOOD))
    (repo / ".cuecard/inbox/a-link.json").symlink_to(outside)
    (repo / ".cuecard/inbox/b.json").write_text(json.dumps(GOOD))
    result = run_cli("ingest", "--json", cwd=repo)
    assert result.returncode == 1, result.stderr
    link, good = json.loads(result.stdout)["results"]
    assert link["proposal"].endswith("a-link.json")
    assert link["outcome"] == "refused"
    assert "not a regular file" in link["message"]
    assert good["outcome"] != "refused", good["message"]
    assert (repo / ".cuecard/inbox/a-link.json").is_symlink()
    assert outside.read_text() == json.dumps(GOOD)


def test_an_inbox_that_is_not_a_folder_is_named(repo: Path) -> None:
    import os

    inbox = repo / ".cuecard/inbox"
    inbox.rmdir()
    os.mkfifo(inbox)
    result = run_cli("ingest", cwd=repo)
    assert result.returncode == 1
    assert ".cuecard/inbox is a FIFO, not a folder" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_proposal_reached_through_a_linked_folder_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.json").write_text(json.dumps(GOOD))
    (repo / ".cuecard/inbox/sub").symlink_to(outside)
    result = run_cli("ingest", "--json", ".cuecard/inbox/sub/p.json", cwd=repo)
    assert result.returncode == 1, result.stderr
    [out] = json.loads(result.stdout)["results"]
    assert out["outcome"] == "refused"
    assert "p.json is not a regular file" in out["message"]
    assert (outside / "p.json").read_text() == json.dumps(GOOD)
    assert list((repo / ".cuecard/memories").iterdir()) == []
