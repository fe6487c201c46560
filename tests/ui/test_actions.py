"""Edits, status changes, batches, requests, settings and the vault, over real HTTP."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._support.ui import Seeded, Server


@pytest.fixture
def client(live: Server) -> Iterator[httpx.Client]:
    c = live.client()
    try:
        yield c
    finally:
        c.close()


def generation(root: Path) -> str:
    current = root / ".cuecard/local/index/CURRENT"
    return current.read_text().strip() if current.exists() else ""


def edit(client: httpx.Client, ident: str, **changes: Any) -> httpx.Response:
    return client.post(f"/api/memories/{ident}/edit", json={"changes": changes})


def test_an_invalid_edit_names_the_field_and_writes_nothing(
    client: httpx.Client, seeded: Seeded
) -> None:
    before = seeded.memory_bytes("candidate")
    triggers = [{"on": ["edit"], "paths": ["billing/**", "../outside/**"]}]
    answer = edit(client, seeded.ids["candidate"], triggers=triggers, title="Refunds")
    assert answer.status_code == 422
    errors = {e["field"]: e["message"] for e in answer.json()["errors"]}
    assert list(errors) == ["triggers[0].paths[1]"]
    assert errors["triggers[0].paths[1]"].startswith('triggers[0].paths[1] "../outside/**"')
    assert "leaves the repository" in errors["triggers[0].paths[1]"]
    empty = edit(client, seeded.ids["candidate"], title="")
    assert [e["field"] for e in empty.json()["errors"]] == ["title"]
    assert seeded.memory_bytes("candidate") == before


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"triggers": [{"on": ["edit"]}]}, "triggers[0]", "would fire on every event"),
        ({"triggers": [{"on": ["edit"], "keywords": ["refund"]}]}, "triggers[0].keywords", ""),
        ({"kind": "rumour"}, "kind", ""),
        ({"topic": "Billing Refunds"}, "topic", ""),
        (
            {"check": {"if_content": r"(a)\1", "violates": ["aa"], "passes": ["b"]}},
            "check.if_content",
            "RE2",
        ),
        ({"status": "active"}, "status", "cannot be changed here"),
        (
            {
                "title": "Best practices",
                "body": "Write tests and handle errors.",
                "triggers": [{"on": ["prompt"], "keywords": ["tests"]}],
            },
            "body",
            "generic advice",
        ),
    ],
    ids=["no-narrowing", "keywords-need-prompt", "kind", "topic", "check", "status", "generic"],
)
def test_edits_are_validated_as_ingestion_validates(
    client: httpx.Client, seeded: Seeded, changes: dict[str, Any], field: str, words: str
) -> None:
    before = seeded.memory_bytes("candidate")
    answer = edit(client, seeded.ids["candidate"], **changes)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert field in [e["field"] for e in errors], errors
    assert words in " ".join(e["message"] for e in errors)
    assert seeded.memory_bytes("candidate") == before


def test_a_secret_in_an_edit_is_refused_and_never_echoed(
    client: httpx.Client, seeded: Seeded
) -> None:
    secret = "AKIA" + "ZQ7MBXL2RN4TPW6Y"
    before = seeded.memory_bytes("candidate")
    answer = edit(client, seeded.ids["candidate"], body=f"Use the key {secret} for refunds.")
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["field"] == "body"
    assert secret not in answer.text
    assert seeded.memory_bytes("candidate") == before


def test_an_edit_that_duplicates_another_live_memory_is_refused(
    client: httpx.Client, seeded: Seeded
) -> None:
    twin = seeded.memory("auto")
    answer = edit(client, seeded.ids["candidate"], title=twin["title"], body=twin["body"])
    assert answer.status_code == 422
    assert "duplicates live memory" in answer.json()["errors"][0]["message"]


def test_a_valid_edit_is_saved_journaled_and_recompiled(
    client: httpx.Client, seeded: Seeded
) -> None:
    ident = seeded.ids["auto"]
    old_generation = generation(seeded.root)
    triggers = [{"on": ["read", "edit"], "paths": ["src/api/**", "src/routes/*.py"]}]
    answer = edit(client, ident, triggers=triggers, not_derivable="The router shadows routes.")
    assert answer.status_code == 200, answer.text
    assert answer.json()["fields"] == ["not_derivable", "triggers"]
    saved = seeded.memory("auto")
    assert saved["triggers"][0]["paths"] == ["src/api/**", "src/routes/*.py"]
    assert saved["not_derivable"] == "The router shadows routes."
    assert generation(seeded.root) != old_generation, "the index was recompiled"
    page = client.get(f"/memories/{ident}")
    assert "edit (not_derivable, triggers) by tester" in page.text
    assert "src/routes/*.py" in page.text


def test_accepting_a_candidate_makes_it_active(client: httpx.Client, seeded: Seeded) -> None:
    answer = client.post(
        f"/api/memories/{seeded.ids['candidate']}/status", json={"status": "active"}
    )
    assert answer.status_code == 200, answer.text
    saved = seeded.memory("candidate")
    assert saved["status"] == "active"
    assert saved["review"]["reviewed_by"] == "tester"
    assert "refund() needs" not in client.get("/queues/candidates").text


def test_accepting_a_revision_supersedes_what_it_revises(
    client: httpx.Client, seeded: Seeded
) -> None:
    answer = client.post(
        f"/api/memories/{seeded.ids['revision']}/status", json={"status": "active"}
    )
    assert answer.status_code == 200, answer.text
    assert seeded.memory("revision")["status"] == "active"
    old = seeded.memory("stale")
    assert old["status"] == "superseded"
    assert old["superseded_by"] == seeded.ids["revision"]


def test_a_candidate_without_not_derivable_cannot_go_live(
    client: httpx.Client, seeded: Seeded
) -> None:
    before = seeded.memory_bytes("unready")
    answer = client.post(f"/api/memories/{seeded.ids['unready']}/status", json={"status": "active"})
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["field"] == "not_derivable"
    assert seeded.memory_bytes("unready") == before


@pytest.mark.parametrize(
    ("role", "status", "code"),
    [
        ("contested", "active", 200),
        ("auto", "contested", 200),
        ("target", "archived", 200),
        ("auto", "candidate", 422),
        ("candidate", "superseded", 422),
    ],
    ids=["settle", "dispute", "archive", "live-to-candidate", "to-superseded"],
)
def test_status_changes_follow_the_lifecycle(
    client: httpx.Client, seeded: Seeded, role: str, status: str, code: int
) -> None:
    answer = client.post(f"/api/memories/{seeded.ids[role]}/status", json={"status": status})
    assert answer.status_code == code, answer.text
    saved = seeded.memory(role)
    assert (saved["status"] == status) == (code == 200)


def test_marking_reviewed_empties_the_auto_accepted_queue(
    client: httpx.Client, seeded: Seeded
) -> None:
    assert "routes.py order" in client.get("/queues/auto-accepted").text
    answer = client.post(f"/api/memories/{seeded.ids['auto']}/reviewed", json={})
    assert answer.status_code == 200
    saved = seeded.memory("auto")
    assert saved["review"]["reviewed_by"] == "tester"
    assert saved["review"]["auto_accepted"]
    assert (
        "Every memory cuecard accepted on its own has been reviewed"
        in client.get("/queues/auto-accepted").text
    )


def test_a_batch_is_accepted_whole_and_a_refused_member_is_reported(
    client: httpx.Client, seeded: Seeded
) -> None:
    answer = client.post("/api/batch", json={"batch": "b1", "decision": "accept"})
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["done"] == [seeded.ids["candidate"]]
    assert [r["id"] for r in result["refused"]] == [seeded.ids["unready"]]
    assert "not_derivable is required" in result["refused"][0]["reasons"][0]
    assert seeded.memory("candidate")["status"] == "active"
    assert seeded.memory("unready")["status"] == "candidate"


def test_a_batch_is_rejected_whole(client: httpx.Client, seeded: Seeded) -> None:
    answer = client.post("/api/batch", json={"batch": "b1", "decision": "reject"})
    assert answer.status_code == 200, answer.text
    for role in ("candidate", "unready"):
        saved = seeded.memory(role)
        assert saved["status"] == "archived"
        assert "batch b1" in saved["archived_reason"]


def test_an_unknown_batch_is_not_found(client: httpx.Client) -> None:
    answer = client.post("/api/batch", json={"batch": "nope", "decision": "accept"})
    assert answer.status_code == 404


def test_an_archive_request_is_carried_out(client: httpx.Client, seeded: Seeded) -> None:
    answer = client.post(f"/api/requests/{seeded.request}", json={"decision": "archive"})
    assert answer.status_code == 200, answer.text
    assert seeded.memory("target")["status"] == "archived"
    request = json.loads((seeded.root / f".cuecard/requests/{seeded.request}.json").read_text())
    assert request["resolved"] == "archived"
    assert request["resolved_by"] == "tester"
    again = client.post(f"/api/requests/{seeded.request}", json={"decision": "archive"})
    assert again.status_code == 404


def test_an_archive_request_can_be_dismissed(client: httpx.Client, seeded: Seeded) -> None:
    answer = client.post(f"/api/requests/{seeded.request}", json={"decision": "dismiss"})
    assert answer.status_code == 200
    assert seeded.memory("target")["status"] == "active"
    assert "finance moved" not in client.get("/queues/requests").text


def test_settings_change_auto_accept_and_refuse_a_bad_limit(
    client: httpx.Client, seeded: Seeded
) -> None:
    config = seeded.root / ".cuecard/config.json"
    answer = client.post("/api/settings", json={"auto_accept": False, "delivery_limit": 4000})
    assert answer.status_code == 200, answer.text
    saved = json.loads(config.read_text())
    assert saved["auto_accept"] is False
    assert saved["delivery_limit"] == 4000
    before = config.read_bytes()
    for bad in ({"delivery_limit": 100}, {"auto_accept": "maybe"}, {"project_id": "x"}):
        refused = client.post("/api/settings", json=bad)
        assert refused.status_code == 422
        assert refused.json()["errors"][0]["field"] == next(iter(bad))
    assert config.read_bytes() == before


def test_the_dry_run_replays_recorded_sessions(client: httpx.Client, seeded: Seeded) -> None:
    url = f"/api/memories/{seeded.ids['candidate']}/dryrun"
    saved = client.post(url, json={}).json()["dryrun"]
    assert (saved["sessions"], saved["events"], saved["matched"]) == (2, 6, 3)
    assert [h["event"] for h in saved["hits"]] == [
        "read billing/charge.py",
        "edit billing/charge.py",
        "edit billing/tax.py",
    ]
    edited = client.post(url, json={"triggers": [{"on": ["run"], "commands": ["pytest"]}]})
    assert edited.json()["dryrun"]["hits"][0]["event"] == "run pytest -q billing"
    bad = client.post(url, json={"triggers": [{"on": ["edit"], "paths": ["/etc/**"]}]})
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["field"] == "triggers[0].paths[0]"


def test_a_vault_conflict_is_adjudicated(client: httpx.Client, seeded: Seeded) -> None:
    page = client.get("/queues/vault-conflicts").text
    marker = 'data-conflict="'
    ident = page[page.index(marker) + len(marker) :].split('"', 1)[0]
    wrong = client.post(f"/api/vault/conflicts/{ident}", json={"decision": "maybe"})
    assert wrong.status_code == 409
    assert "choose one of" in wrong.json()["message"]
    answer = client.post(f"/api/vault/conflicts/{ident}", json={"decision": "use-new"})
    assert answer.status_code == 200, answer.text
    note = (seeded.vault / "notes").glob("*.md")
    text = "".join(p.read_text() for p in note)
    assert "port 5434" in text
    assert "port 5433" not in text
    assert "No conflicts wait." in client.get("/queues/vault-conflicts").text


def test_unknown_memories_and_queues_are_404(client: httpx.Client) -> None:
    assert client.get("/memories/00000000-0000-4000-8000-000000000000").status_code == 404
    assert client.get("/queues/nope").status_code == 404
    assert client.get("/nowhere").status_code == 404
    missing = client.post(
        "/api/memories/00000000-0000-4000-8000-000000000000/status", json={"status": "active"}
    )
    assert missing.status_code == 404


def test_a_topic_held_by_another_live_memory_is_refused_on_the_topic_field(
    client: httpx.Client, seeded: Seeded
) -> None:
    before = seeded.memory_bytes("contested")
    answer = edit(client, seeded.ids["contested"], topic="api/routes")
    assert answer.status_code == 422
    error = answer.json()["errors"][0]
    assert error["field"] == "topic"
    assert "already has a live memory" in error["message"]
    assert seeded.memory_bytes("contested") == before


def test_an_edit_that_changes_nothing_writes_nothing(client: httpx.Client, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    current = seeded.memory("candidate")
    answer = edit(client, seeded.ids["candidate"], title=current["title"], body=current["body"])
    assert answer.status_code == 200
    assert answer.json()["fields"] == []
    assert seeded.memory_bytes("candidate") == before


def test_accepting_a_batch_carries_out_its_archive_requests_on_live_targets(
    client: httpx.Client, seeded: Seeded
) -> None:
    from cuecard.core import Store

    store = Store(seeded.root)
    requests = [
        {"id": "11111111-1111-4111-8111-111111111111", "target": seeded.ids["target"]},
        {"id": "22222222-2222-4222-8222-222222222222", "target": seeded.ids["html"]},
    ]
    with store.transaction() as tx:
        for item in requests:
            tx.put_request(
                {
                    **item,
                    "request": "archive",
                    "reason": "gone",
                    "batch": "b2",
                    "source": "agent",
                    "created_at": "2026-11-20T00:00:00+00:00",
                }
            )
    answer = client.post("/api/batch", json={"batch": "b2", "decision": "accept"})
    assert answer.status_code == 200, answer.text
    assert sorted(answer.json()["done"]) == sorted(r["id"] for r in requests)
    assert seeded.memory("target")["status"] == "archived"
    assert seeded.memory("html")["archived_reason"].startswith("seeded"), "not live: untouched"
    for item in requests:
        saved = json.loads((seeded.root / f".cuecard/requests/{item['id']}.json").read_text())
        assert saved["resolved"] == "archived"


def test_a_check_is_saved_compiled_and_shown_for_editing(
    client: httpx.Client, seeded: Seeded
) -> None:
    check = {
        "if_command": r"make deploy .*--force",
        "violates": ["make deploy --force"],
        "passes": ["make deploy"],
        "message": "never force a deploy <after 15:00>",
    }
    answer = edit(client, seeded.ids["contested"], check=check)
    assert answer.status_code == 200, answer.text
    assert answer.json()["compile"]["left_out"] == []
    assert seeded.memory("contested")["check"]["if_command"] == check["if_command"]
    page = client.get(f"/memories/{seeded.ids['contested']}").text
    assert "never force a deploy &lt;after 15:00&gt;" in page
    broken = {**check, "passes": ["make deploy --force"]}  # the example contradicts the check
    answer = edit(client, seeded.ids["contested"], check=broken)
    assert answer.status_code == 200
    left_out = answer.json()["compile"]["left_out"]
    assert [item["id"] for item in left_out] == [seeded.ids["contested"]]
    assert "its check was left out of the index" in answer.json()["message"]


def test_the_vault_inbox_is_reviewed_and_promoted(client: httpx.Client, seeded: Seeded) -> None:
    from cuecard.core.vault.folder import Vault, submit

    submit(Vault.open(seeded.vault), "agent", ["The release train leaves every Tuesday at noon"])
    reviewed = client.post("/api/vault/review", json={})
    assert reviewed.status_code == 200
    assert "1 pending" in reviewed.json()["message"]
    page = client.get("/queues/vault-pending").text
    assert "The release train leaves every Tuesday at noon" in page
    applied = client.post("/api/vault/apply", json={})
    assert applied.status_code == 200
    assert "promoted 1 fact(s)" in applied.json()["message"]
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "The release train leaves every Tuesday at noon" in notes
    forgot = client.post("/api/vault/forget", json={})
    assert forgot.status_code == 200
    assert "moved 0 fact(s)" in forgot.json()["message"]


def test_a_pending_vault_item_is_left_out_of_the_promotion(
    client: httpx.Client, seeded: Seeded
) -> None:
    from cuecard.core.vault.folder import Vault, submit

    vault = Vault.open(seeded.vault)
    submit(vault, "agent", ["The release train leaves every Tuesday at noon"])
    submit(vault, "agent", ["The nightly job rotates the web logs"])
    assert client.post("/api/vault/review", json={}).status_code == 200
    page = client.get("/queues/vault-pending").text
    assert page.count("Leave out") >= 2
    from cuecard.core.vault import open_backend

    with open_backend(str(seeded.vault)) as backend:
        [ident] = [i for i, p in backend.pending() if "nightly" in p.fact]
    answer = client.post(f"/api/vault/pending/{ident}/drop", json={})
    assert answer.status_code == 200
    assert "nightly" in answer.json()["message"]
    for bad in (str(ident), "999", "x1", "-1"):
        assert client.post(f"/api/vault/pending/{bad}/drop", json={}).status_code == 404
    assert "nightly job" not in client.get("/queues/vault-pending").text
    applied = client.post("/api/vault/apply", json={})
    assert applied.status_code == 200
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "Tuesday at noon" in notes
    assert "nightly job" not in notes


def test_vault_routes_without_a_vault_say_so(seeded: Seeded) -> None:
    from tests._support.ui import InThread

    running = InThread(seeded, vault=False)
    c = Server(running.served.url, None).client()
    try:
        answer = c.post("/api/vault/apply", json={})
        assert answer.status_code == 404
        assert "no vault is configured" in answer.text
        assert "No vault is configured" in c.get("/queues/vault-conflicts").text
    finally:
        c.close()
        running.stop()


def test_a_mirror_failure_reaches_the_server_log_and_the_answer(
    seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuecard.core.vault.folder import Vault, submit
    from tests._support.ui import start_ui, stop_ui

    monkeypatch.setenv("CUECARD_VAULT_MIRROR", "postgresql://nobody@127.0.0.1:1/none")
    submit(Vault.open(seeded.vault), "agent", ["The release train leaves every Tuesday at noon"])
    server = start_ui(seeded.root, seeded.vault)
    c = server.client()
    try:
        assert c.post("/api/vault/review", json={}).status_code == 200
        applied = c.post("/api/vault/apply", json={})
    finally:
        c.close()
        err = stop_ui(server)
    assert applied.status_code == 200
    assert "promoted 1 fact(s)" in applied.json()["message"]
    [line] = applied.json()["warnings"]
    assert line.startswith("warning: the vault mirror was not updated (")
    assert line.endswith("); `cuecard vault mirror` retries")
    assert f"{line}\n" in err  # the server's log says it too
    notes = "".join(p.read_text() for p in (seeded.vault / "notes").glob("*.md"))
    assert "The release train leaves every Tuesday at noon" in notes  # the change stands


def test_a_vault_lock_wait_is_said_and_answered(seeded: Seeded) -> None:
    from tests._support.ui import InThread

    lock = seeded.vault / ".lock"
    lock.write_text(f"pid={os.getpid()} token={'c' * 32}\n")  # a live owner: this process
    said: list[str] = []

    def notify(line: str) -> None:
        said.append(line)
        lock.unlink()  # the owner lets go: the waiter takes the lock at its next try

    running = InThread(seeded, notify=notify)
    c = Server(running.served.url, None).client()
    try:
        answer = c.post("/api/vault/forget", json={})
    finally:
        c.close()
        running.stop()
    assert answer.status_code == 200, answer.text
    wait = f"cuecard: waiting for the vault lock held by pid {os.getpid()}"
    assert answer.json()["warnings"] == [wait]
    assert said == [wait]
    quiet = InThread(seeded)  # nothing to say: no warnings key
    c = Server(quiet.served.url, None).client()
    try:
        answer = c.post("/api/vault/forget", json={})
    finally:
        c.close()
        quiet.stop()
    assert answer.status_code == 200
    assert "warnings" not in answer.json()


def test_a_postgresql_error_is_answered_not_a_server_error(seeded: Seeded, pg_url: str) -> None:
    import psycopg

    from cuecard.core.cli import main
    from cuecard.core.vault import open_backend
    from tests._support.ui import InThread

    assert main(["vault", "migrate-db", "--vault", pg_url]) == 0
    with open_backend(pg_url) as vault:
        vault.submit("agent", ["The release train leaves every Tuesday at noon"])
        vault.review()
        pending = vault.pending()
    assert len(pending) == 1
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'facts are read-only in this test'; END $$; "
            "CREATE TRIGGER refuse BEFORE INSERT ON cuecard_facts "
            "FOR EACH ROW EXECUTE FUNCTION refuse()"
        )
    running = InThread(seeded, location=pg_url)
    c = Server(running.served.url, None).client()
    try:
        answer = c.post("/api/vault/apply", json={})
    finally:
        c.close()
        running.stop()
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"] == "vault_unavailable"
    assert answer.json()["message"].startswith(
        "the PostgreSQL vault: facts are read-only in this test"
    )
    with open_backend(pg_url) as vault:  # nothing half-done: the fact still waits
        assert len(vault.pending()) == 1
        assert vault.search("release train", 3) == []


def test_a_postgresql_vault_is_reviewed_promoted_and_adjudicated(
    seeded: Seeded, pg_url: str
) -> None:
    from cuecard.core.cli import main
    from cuecard.core.vault import open_backend
    from tests._support.ui import InThread

    assert main(["vault", "migrate-db", "--vault", pg_url]) == 0
    with open_backend(pg_url) as vault:
        vault.submit("agent", ["The release train leaves every Tuesday at noon"])
        vault.apply(auto=True)
        vault.submit("agent", ["The release train leaves every Tuesday at one"])
    running = InThread(seeded, location=pg_url)
    c = Server(running.served.url, None).client()
    try:
        reviewed = c.post("/api/vault/review", json={})
        assert reviewed.status_code == 200
        assert "1 new conflict(s)" in reviewed.json()["message"]
        page = c.get("/queues/vault-conflicts").text
        assert "Tuesday at one" in page
        assert "Tuesday at noon" in page
        with open_backend(pg_url) as vault:
            [conflict] = vault.conflicts()
        answer = c.post(f"/api/vault/conflicts/{conflict.id}", json={"decision": "use-new"})
        assert answer.status_code == 200
        assert "No conflicts wait." in c.get("/queues/vault-conflicts").text
        with open_backend(pg_url) as vault:
            shown = vault.show(vault.search("release train", 1)[0].path)
        assert "Tuesday at one" in shown.text
        assert "Tuesday at noon" not in shown.text
        forgot = c.post("/api/vault/forget", json={})
        assert forgot.status_code == 200
        assert "moved 0 fact(s)" in forgot.json()["message"]
        with open_backend(pg_url) as vault:
            vault.submit("agent", ["The nightly job rotates the web logs"])
        assert c.post("/api/vault/review", json={}).status_code == 200
        with open_backend(pg_url) as vault:
            [(ident, _)] = vault.pending()
        assert c.post(f"/api/vault/pending/{ident}/drop", json={}).status_code == 200
        assert "promoted 0 fact(s)" in c.post("/api/vault/apply", json={}).json()["message"]
    finally:
        c.close()
        running.stop()
