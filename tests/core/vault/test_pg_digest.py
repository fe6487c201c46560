"""``digest`` on a PostgreSQL vault, against a real throwaway server and a real HTTP endpoint on
loopback (pytest-httpserver): archives read from ``cuecard_archives`` past the fleet's cursor in
``cuecard_digest_cursor``, the cursor advanced only with a successful answer, one submission per
archive, and two digests racing on one archive sending it once."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from cuecard.core.cli import main
from cuecard.core.vault._digest import SYSTEM_PROMPT, DigestConfig, DigestFailed, digest
from cuecard.core.vault.postgres._digest import PgArchives
from cuecard.core.vault.postgres._vault import PgVault

KEY = "sk-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe"
DAY = "2026-11-30.md"


@pytest.fixture(autouse=True)
def _digest_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUECARD_DIGEST_API_KEY", "local-test-key")


@pytest.fixture
def db(pg_url: str, capsys: pytest.CaptureFixture[str]) -> str:
    """A migrated PostgreSQL vault, its URL."""
    assert main(["vault", "migrate-db", "--vault", pg_url]) == 0, capsys.readouterr().err
    return pg_url


def config(server: HTTPServer, **extra: Any) -> DigestConfig:
    return DigestConfig(True, server.url_for("/v1"), "qwen2.5:7b", **extra)


def answer(content: str) -> dict[str, object]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


def sql(url: str, query: str, params: tuple[object, ...] | None = None) -> list[tuple[Any, ...]]:
    with PgVault(url) as vault, vault.conn.transaction():
        cur = vault.conn.execute(query.encode(), params)
        return cur.fetchall() if cur.description else []


def put_archive(url: str, name: str, text: str) -> None:
    sql(
        url,
        "INSERT INTO cuecard_archives (name, text) VALUES (%s, %s) "
        "ON CONFLICT (name) DO UPDATE SET text = EXCLUDED.text",
        (name, text),
    )


def run(url: str, cfg: DigestConfig, **options: Any) -> dict[str, Any]:
    with PgVault(url) as vault:
        return digest(PgArchives(vault), cfg, **options)


def cursor(url: str) -> dict[str, tuple[int, str]]:
    return {
        str(n): (int(s), str(h))
        for n, s, h in sql(url, "SELECT name, size, sha256 FROM cuecard_digest_cursor")
    }


def submissions(url: str) -> list[tuple[str, str, str]]:
    return [
        (str(n), str(a), str(b))
        for n, a, b in sql(url, "SELECT name, agent, body FROM cuecard_submissions ORDER BY seq")
    ]


def sent_texts(server: HTTPServer) -> list[str]:
    return [json.loads(r.get_data())["messages"][1]["content"] for r, _ in server.log]


# -- one digest -----------------------------------------------------------------------------------


def test_the_exact_redacted_request_one_submission_and_the_fleet_cursor(
    db: str, httpserver: HTTPServer
) -> None:
    text = f"# 2026-11-30\n\n## 10:00 [codex] ops\n\n- the API key is {KEY}\n- 部署端口是 5433\n"
    put_archive(db, DAY, text)
    httpserver.expect_oneshot_request("/v1/chat/completions", method="POST").respond_with_json(
        answer(
            f"- The staging database listens on port 5433.\n- The token is {KEY}\n"
            "- 部署前先运行迁移脚本\n- (none)"
        )
    )
    report = run(db, config(httpserver))
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Bearer local-test-key"
    body = json.loads(request.get_data())
    assert body["model"] == "qwen2.5:7b"
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    sent = body["messages"][1]["content"]
    assert sent.startswith(f"Session notes ({DAY}):\n\n# 2026-11-30")
    assert "部署端口是 5433" in sent
    assert KEY not in request.get_data(as_text=True)
    [(name, agent, facts)] = submissions(db)
    assert agent == "digest"
    assert name.startswith("digest-")
    assert facts == "- The staging database listens on port 5433.\n- 部署前先运行迁移脚本\n"
    assert report == {
        "enabled": True,
        "dry_run": False,
        "pending": 1,
        "sent": 1,
        "written": [name],
        "facts": 2,
        "dropped": 1,
        "requests": [],
    }
    # The cursor is the size and SHA-256 of the UTF-8 bytes read (not characters).
    data = text.encode("utf-8")
    assert cursor(db) == {DAY: (len(data), hashlib.sha256(data).hexdigest())}
    again = run(db, config(httpserver))
    assert again["pending"] == 0
    assert again["sent"] == 0
    assert len(httpserver.log) == 1


def test_appends_second_archives_and_rewrites(db: str, httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/chat/completions").respond_with_json(answer("- (none)"))
    put_archive(db, DAY, "# 2026-11-30\n\n- morning: moved CI to two cores\n")
    assert run(db, config(httpserver))["sent"] == 1
    assert submissions(db) == []  # nothing durable: no submission, but the cursor moved
    sql(db, "UPDATE cuecard_archives SET text = text || %s", ("- afternoon: UI on port 8701\n",))
    put_archive(db, "2026-11-29.md", "- yesterday's archive, archived late\n")
    report = run(db, config(httpserver))
    assert report["pending"] == 2
    assert report["sent"] == 2
    late, appended = sent_texts(httpserver)[1:]
    assert late.startswith("Session notes (2026-11-29.md)")
    assert "archived late" in late
    assert appended == f"Session notes ({DAY}):\n\n- afternoon: UI on port 8701\n"
    # A rewritten archive (its start changed, even to a longer text) is read again whole.
    put_archive(db, DAY, "# 2026-11-30\n\n- morning: moved CI to FOUR cores\n- afternoon: x\n")
    assert run(db, config(httpserver))["sent"] == 1
    assert sent_texts(httpserver)[-1].endswith(
        "\n\n# 2026-11-30\n\n- morning: moved CI to FOUR cores\n- afternoon: x\n"
    )


def test_a_failed_request_moves_no_cursor_and_writes_nothing(
    db: str, httpserver: HTTPServer
) -> None:
    put_archive(db, "2026-11-29.md", "- first day\n")
    put_archive(db, DAY, "- chose sqlite for the index\n")
    httpserver.expect_ordered_request("/v1/chat/completions").respond_with_json(
        answer("- The first day had one fact.")
    )
    httpserver.expect_request("/v1/chat/completions").respond_with_data("down", 500)
    with pytest.raises(DigestFailed, match=r"HTTP 500 after 2 attempt\(s\); nothing written"):
        run(db, config(httpserver, retries=1))
    assert len(httpserver.log) == 3
    assert set(cursor(db)) == {"2026-11-29.md"}  # the archive done before the failure stays done
    assert len(submissions(db)) == 1
    httpserver.clear()
    httpserver.expect_request("/v1/chat/completions").respond_with_json(
        answer("- The recall index is SQLite.")
    )
    report = run(db, config(httpserver))
    assert report["pending"] == 1
    assert report["sent"] == 1
    assert report["facts"] == 1
    assert "chose sqlite" in sent_texts(httpserver)[0]


def test_dry_run_limit_and_off(db: str, httpserver: HTTPServer) -> None:
    put_archive(db, "2026-11-29.md", f"- key {KEY}\n- the UI is on port 8701\n")
    put_archive(db, DAY, "- second\n")
    off = run(db, DigestConfig())
    assert off["enabled"] is False
    assert off["sent"] == 0
    dry = run(db, config(httpserver), dry_run=True)
    assert dry["pending"] == 2
    assert dry["sent"] == 0
    assert [r["file"] for r in dry["requests"]] == ["sessions/2026-11-29.md", f"sessions/{DAY}"]
    assert KEY not in json.dumps(dry)
    assert "port 8701" in json.dumps(dry)
    assert httpserver.log == []
    assert cursor(db) == {}
    assert submissions(db) == []
    httpserver.expect_request("/v1/chat/completions").respond_with_json(answer("- A fact."))
    first = run(db, config(httpserver), limit=1)
    assert first["pending"] == 2
    assert first["sent"] == 1
    assert set(cursor(db)) == {"2026-11-29.md"}


# -- two digests at once --------------------------------------------------------------------------


def _waiting_on_a_lock(url: str) -> int:
    rows = sql(
        url,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'",
    )
    return int(rows[0][0])


@pytest.mark.parametrize("before", ["never digested", "digested, then appended"])
def test_two_digests_racing_on_one_archive_send_it_once(
    db: str, httpserver: HTTPServer, before: str
) -> None:
    """Digest A's request is held open by the endpoint until digest B (another connection, as
    another machine) is seen waiting on A's lock; then A finishes and B finds nothing new."""
    put_archive(db, DAY, "# 2026-11-30\n\n- morning: moved CI to two cores\n")
    if before != "never digested":
        httpserver.expect_oneshot_request("/v1/chat/completions").respond_with_json(
            answer("- (none)")
        )
        assert run(db, config(httpserver))["sent"] == 1
        httpserver.clear()
        sql(db, "UPDATE cuecard_archives SET text = text || %s", ("- afternoon: port 8701\n",))
    in_flight = threading.Event()
    release = threading.Event()

    def slow(request: Request) -> Response:
        in_flight.set()
        release.wait(60)
        return Response(
            json.dumps(answer("- CI runs on two cores.")), 200, content_type="application/json"
        )

    httpserver.expect_request("/v1/chat/completions").respond_with_handler(slow)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, db, config(httpserver))
        assert in_flight.wait(120), "digest A never sent its request"
        second = pool.submit(run, db, config(httpserver))
        deadline = time.monotonic() + 60
        while _waiting_on_a_lock(db) < 1:
            assert time.monotonic() < deadline, "digest B never waited on the archive's lock"
            assert not second.done(), second.result()
            time.sleep(0.02)
        release.set()
        reports = [first.result(), second.result()]
    assert len(httpserver.log) == 1
    assert sorted(r["sent"] for r in reports) == [0, 1]
    assert reports[1]["pending"] == 1  # B saw the archive pending, then found it taken
    [(_, _, body)] = submissions(db)
    assert body == "- CI runs on two cores.\n"
    data = sql(db, "SELECT text FROM cuecard_archives")[0][0].encode()
    assert cursor(db) == {DAY: (len(data), hashlib.sha256(data).hexdigest())}
