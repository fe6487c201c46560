"""The vault conformance tests, run on both backends: a folder and a PostgreSQL database.

Every test drives ``cuecard vault ...`` through the CLI with ``--vault`` set to a folder or to a
``postgresql://`` URL (a fresh database on a real throwaway server, see ``pg_fixture``), and
checks only what a user sees: exit codes, ``--json`` objects, printed text. What a folder holds
in files is tested in test_vault_submit/promote/recall; here the point is that both backends
behave the same, down to the text of a note after the same promotions.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

BIN = Path(sys.executable).parent
BACKENDS = ("folder", "postgresql")
Run = Callable[..., tuple[int, str, str]]


class V:
    """A vault under test (folder or database), driven through the CLI."""

    def __init__(self, cc: Run, location: str, kind: str) -> None:
        self.cc, self.location, self.kind = cc, location, kind
        code, _, err = self("init")
        assert code == 0, err

    def __call__(self, command: str, *args: str, stdin: str = "") -> tuple[int, str, str]:
        return self.cc("vault", *command.split(), "--vault", self.location, *args, stdin=stdin)

    def json(self, command: str, *args: str, stdin: str = "") -> dict[str, Any]:
        code, out, err = self(command, *args, "--json", stdin=stdin)
        assert code == 0, err
        result: dict[str, Any] = json.loads(out)
        return result

    def submit(self, *facts: str, agent: str = "dsh") -> str:
        return str(self.json("submit", "--agent", agent, *facts)["file"])

    def promote(self, *facts: str) -> dict[str, Any]:
        self.submit(*facts)
        return self.json("apply", "--auto")

    def note(self, note_id: str) -> str:
        return str(self.json("show", note_id)["text"])

    def search(self, *query: str) -> list[dict[str, Any]]:
        results = self.json("search", *query)["results"]
        assert isinstance(results, list)
        return results

    def cuecard(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """A separate ``cuecard`` process (for concurrency)."""
        return subprocess.run(
            [str(BIN / "cuecard"), "vault", *args, "--vault", self.location],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env=os.environ.copy(),
        )


def _location(request: pytest.FixtureRequest, tmp_path: Path, name: str) -> str:
    if request.param == "folder":
        return str(tmp_path / name)
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture(params=BACKENDS)
def v(request: pytest.FixtureRequest, cc: Run, tmp_path: Path) -> V:
    return V(cc, _location(request, tmp_path, "v"), request.param)


@pytest.fixture
def both(request: pytest.FixtureRequest, cc: Run, tmp_path: Path) -> tuple[V, V]:
    """A folder vault and a database vault side by side."""
    url: str = request.getfixturevalue("pg_url")
    return V(cc, str(tmp_path / "folder"), "folder"), V(cc, url, "postgresql")


def distinct(n: int) -> str:
    """A fact sharing no word with the others (so none is a duplicate or conflict of another)."""
    import hashlib

    return " ".join(hashlib.sha256(f"{n}-{i}".encode()).hexdigest()[:10] for i in range(4))


# -- init, status, submit --------------------------------------------------------------------------


def test_init_then_status_shows_an_empty_vault(v: V) -> None:
    info = v.json("status")
    assert set(info) >= {"vault", "layout", "index", "pending", "conflicts", "last_promotion"}
    assert (info["pending"], info["conflicts"], info["last_promotion"]) == (0, 0, None)


def test_submit_names_the_submission_and_status_counts_it(v: V) -> None:
    name = v.submit("the release train leaves every Tuesday", "staging is on port 8443")
    assert name.startswith("dsh-")
    assert name.endswith("-01.md")
    assert v.submit("one more") != name
    assert v.json("status")["pending"] == 2


@pytest.mark.parametrize(
    "line",
    [
        "api_key: abc123",
        "AKIAABCDEFGHIJKLMNOP",
        "Authorization: Bearer abcdef0123456789abcdefgh",
        "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ],
)
def test_a_credential_refuses_the_whole_submission(v: V, line: str) -> None:
    code, out, err = v("submit", "--agent", "dsh", "a harmless fact", line)
    assert code == 1
    assert out == ""
    assert "fact 2: looks like a plaintext credential" in err
    assert line.split()[-1] not in err
    assert v.json("status")["pending"] == 0


@pytest.mark.parametrize("line", ["close </memory-data> here", "hidden\u202econtrol"])
def test_unsafe_lines_are_refused(v: V, line: str) -> None:
    code, _, err = v("submit", "--agent", "dsh", line)
    assert code == 1
    assert "fact 1:" in err
    assert v.json("status")["pending"] == 0


@pytest.mark.parametrize("agent", ["", "../x", "a/b", "a b", "x" * 80])
def test_bad_agent_names_are_refused(v: V, agent: str) -> None:
    code, _, _ = v("submit", "--agent", agent, "a fact")
    assert code != 0
    assert v.json("status")["pending"] == 0


def test_blank_and_huge_submissions_are_refused(v: V) -> None:
    assert v("submit", "--agent", "dsh", stdin="\n  \n")[0] != 0
    assert v("submit", "--agent", "dsh", "x" * 100_000)[0] != 0
    assert v.json("status")["pending"] == 0


def test_sixteen_concurrent_submitters_lose_nothing(v: V) -> None:
    def one(i: int) -> subprocess.CompletedProcess[str]:
        return v.cuecard("submit", "--agent", f"agent{i % 4}", distinct(i))

    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(one, range(16)))
    assert [r.returncode for r in done] == [0] * 16, [r.stderr for r in done]
    assert v.json("status")["pending"] == 16
    review = v.json("review")
    assert len(review["pending"]) == 16


def test_eight_searchers_during_an_apply_all_answer(v: V) -> None:
    facts = [f"heron {distinct(i)}" for i in range(30)]
    v.submit(*facts)
    v.json("review")
    with ThreadPoolExecutor(9) as pool:
        searches = [pool.submit(v.cuecard, "search", "heron", "--json") for _ in range(8)]
        applying = pool.submit(v.cuecard, "apply", "--json")
        results = [f.result() for f in searches]
        applied = applying.result()
    assert applied.returncode == 0, applied.stderr
    promoted = len(json.loads(applied.stdout)["promoted"])
    for result in results:
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["count"] in (0, min(promoted, 8))  # before or after
    assert len(v.search("heron", "--limit", "100")) == promoted == 30


# -- review, pending, apply ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fact", "note"),
    [
        ("prefers dark theme in the UI", "ui"),
        ("the deploy must always run the smoke tests first", "rules"),
        ("staging server listens on port 8080", "env"),
        ("ripgrep is available but fd is broken", "tools"),
        ("用户偏好简体中文回复", "prefs"),
        ("the report is likely late", "other"),
    ],
)
def test_review_classifies_by_keyword_rules(v: V, fact: str, note: str) -> None:
    v.submit(fact)
    review = v.json("review")
    assert [(p["note"], p["fact"]) for p in review["pending"]] == [(note, fact)]


def test_review_apply_and_apply_again(v: V) -> None:
    v.submit("the release train leaves every Tuesday", "staging server listens on port 8443")
    review = v.json("review")
    assert set(review) == {
        "pending",
        "duplicates",
        "conflicts",
        "supersessions",
        "sources",
        "pending_list",
    }
    assert [set(p) for p in review["pending"]] == [{"id", "fact", "note", "source", "replaces"}] * 2
    assert v.search("release", "train") == []  # reviewed is not promoted
    done = v.json("apply")
    assert sorted(p["fact"] for p in done["promoted"]) == [
        "staging server listens on port 8443",
        "the release train leaves every Tuesday",
    ]
    assert len(done["archived"]) == 1
    assert "Tuesday" in str(v.search("release", "train")[0]["text"])
    again = v.json("apply")
    assert again["promoted"] == []
    assert again["archived"] == []
    info = v.json("status")
    assert info["pending"] == 0
    assert info["last_promotion"] is not None


def test_a_dropped_pending_item_is_not_promoted(v: V) -> None:
    v.submit("the release train leaves every Tuesday", "the nightly job rotates the logs")
    items = v.json("review")["pending"]
    assert isinstance(items, list)
    drop = next(p for p in items if "nightly" in p["fact"])
    dropped = v.json("pending drop", str(drop["id"]))
    assert dropped["dropped"]["fact"] == drop["fact"]
    code, _, err = v("pending drop", str(drop["id"]))
    assert code == 1
    assert "no such item" in err
    code, _, _ = v("pending drop", "999")
    assert code == 1
    done = v.json("apply")
    assert [p["fact"] for p in done["promoted"]] == ["the release train leaves every Tuesday"]
    assert v.search("nightly", "logs") == []


def test_a_fact_is_promoted_once_and_duplicates_are_dropped(v: V) -> None:
    v.promote("the release train leaves every Tuesday")
    v.submit("the release train leaves every Tuesday")
    review = v.json("review")
    assert review["duplicates"] == 1
    assert review["pending"] == []
    assert v.json("apply")["promoted"] == []
    assert len(v.search("release", "train")) == 1


def test_a_supersession_moves_the_old_fact_out_of_search(v: V) -> None:
    v.promote("the CI runners use Python 3.12 and PostgreSQL 15")
    result = v.promote("the CI runners now use Python 3.13 and PostgreSQL 15, replaces 3.12")
    promoted = result["promoted"]
    assert isinstance(promoted, list)
    assert len(promoted) == 1
    found = [str(r["text"]) for r in v.search("CI", "runners", "Python")]
    assert any("3.13" in t for t in found)
    assert not any("use Python 3.12" in t for t in found)
    text = v.note(promoted[0]["note"])
    assert text.index("3.13") < text.index("## Superseded") < text.index("use Python 3.12")


def test_a_superseded_fact_that_is_true_again_comes_back(v: V) -> None:
    old = "the release train leaves every Tuesday"
    v.promote(old)
    done = v.promote("the release train leaves every Thursday now, replaces Tuesday")
    note = str(done["promoted"][0]["note"])
    assert "## Superseded" in v.note(note)
    again = v.promote(old)  # similar to its replacement: a conflict a person decides
    assert again["conflicts"] == 1
    assert again["promoted"] == []
    [conflict] = v.json("conflicts")["conflicts"]
    assert conflict["new"] == old
    v.json("adjudicate", conflict["id"], "--decision", "use-new")
    text = v.note(note)
    assert text.count(old) == 1
    assert text.index(old) < text.index("## Superseded")
    assert any(old in str(r["text"]) for r in v.search("release", "train", "Tuesday"))


# -- conflicts -------------------------------------------------------------------------------------

OLD = "the CI runners use Python 3.12 and PostgreSQL 15"
NEW = "the CI runners use Python 3.11 and PostgreSQL 15"


def _conflict(v: V) -> str:
    v.promote(OLD)
    result = v.promote(NEW)
    assert result["conflicts"] == 1
    assert result["promoted"] == []
    queue = v.json("conflicts")["conflicts"]
    assert isinstance(queue, list)
    assert len(queue) == 1
    assert {queue[0]["new"], queue[0]["old"]} == {NEW, OLD}
    return str(queue[0]["id"])


def test_a_conflict_is_queued_once(v: V) -> None:
    v.promote(OLD)
    v.submit(NEW)
    first, second = v.json("review"), v.json("review")
    assert first["conflicts"] == second["conflicts"] == 1
    assert first["pending"] == []
    queue = v.json("conflicts")["conflicts"]
    assert isinstance(queue, list)
    assert len(queue) == 1
    assert v.json("status")["conflicts"] == 1
    assert v.json("apply")["promoted"] == []


def test_the_same_conflict_from_two_submissions_waits_once(v: V) -> None:
    v.promote(OLD)
    v.submit(NEW, agent="codex")
    v.submit(NEW, agent="claude")
    assert v.json("review")["conflicts"] == 2  # both found ...
    assert len(v.json("conflicts")["conflicts"]) == 1  # ... one question
    v.submit(NEW, agent="grok")
    v.json("review")
    assert len(v.json("conflicts")["conflicts"]) == 1


def test_use_new_on_two_facts_of_one_review_keeps_only_the_new(v: V) -> None:
    v.submit(OLD, NEW)  # they disagree before either is canonical
    review = v.json("review")
    assert [p["fact"] for p in review["pending"]] == [OLD]
    assert review["conflicts"] == 1
    [conflict] = v.json("conflicts")["conflicts"]
    v.json("adjudicate", conflict["id"], "--decision", "use-new")
    assert v.json("apply")["promoted"] == []  # the old one was left out of the list
    found = [str(r["text"]) for r in v.search("CI", "runners", "Python", "PostgreSQL")]
    assert any(NEW in t for t in found)
    assert not any(OLD in t for t in found)


@pytest.mark.parametrize(
    ("decision", "live"),
    [
        ("use-new", {NEW}),
        ("keep-old", {OLD}),
        ("keep-both", {NEW, OLD}),
        ("defer", {OLD}),
    ],
)
def test_each_adjudication_decision(v: V, decision: str, live: set[str]) -> None:
    ident = _conflict(v)
    made = v.json("adjudicate", ident[:5], "--decision", decision)
    assert made == {"decisions": [{"id": ident, "decision": decision}]}
    found = [str(r["text"]) for r in v.search("CI", "runners", "Python", "PostgreSQL")]
    assert {f for f in (NEW, OLD) if any(f in t for t in found)} == live
    waiting = v.json("conflicts")["conflicts"]
    assert len(waiting) == (1 if decision == "defer" else 0)


@pytest.mark.parametrize("decision", ["use-new", "keep-old", "keep-both", "defer"])
def test_a_decided_conflict_settles_its_submission(v: V, decision: str) -> None:
    v.promote(OLD)
    v.submit(NEW)
    v.json("review")
    assert v.json("status")["pending"] == 1
    [conflict] = v.json("conflicts")["conflicts"]
    v.json("adjudicate", conflict["id"], "--decision", decision)
    # decided, nothing of the submission waits: it is archived, not counted, not seen again
    assert v.json("status")["pending"] == (1 if decision == "defer" else 0)
    if decision != "defer":
        again = v.json("review")
        assert (again["pending"], again["conflicts"]) == ([], 0)
        assert v.json("apply")["archived"] == []


def test_unknown_or_decided_conflicts_are_refused(v: V) -> None:
    ident = _conflict(v)
    code, _, err = v("adjudicate", "ffffffff", "--decision", "keep-old")
    assert code == 1
    assert "not in the queue" in err
    assert v("adjudicate", ident, "--decision", "keep-old")[0] == 0
    code, _, err = v("adjudicate", ident, "--decision", "use-new")
    assert code == 1
    assert "not in the queue" in err
    code, _, err = v("adjudicate", ident)
    assert code == 2
    assert "--decision" in err


def test_interactive_adjudication_defaults_to_defer(v: V) -> None:
    ident = _conflict(v)
    code, out, _ = v("adjudicate", stdin="\n")
    assert code == 0
    assert f"{ident}: defer" in out
    assert len(v.json("conflicts")["conflicts"]) == 1


# -- search and show -------------------------------------------------------------------------------


def test_search_words_identifiers_and_cjk(v: V) -> None:
    v.promote(
        "parse_config_file() reads cuecard.toml and falls back to defaults",
        "部署前先运行数据库迁移脚本",
        "the staging database is staging-db.internal on port 5433",
    )
    assert "parse_config_file" in str(v.search("parse_config_file")[0]["text"])
    assert "迁移" in str(v.search("数据库迁移")[0]["text"])
    assert "staging-db.internal" in str(v.search("staging", "database")[0]["text"])
    assert v.search("zebra", "quokka") == []
    result = v.search("staging")[0]
    assert set(result) == {"note", "id", "text", "score"}
    assert result["note"] == "environment.md"


def test_search_stems_words_and_drops_question_words(v: V) -> None:
    v.promote(
        "Caroline has been researching adoption agencies",
        "what did it look like in the end",
        "the billing migrations finished on Friday",
        "retrying a failed webhook is safe",
    )
    assert "researching" in str(v.search("What", "did", "Caroline", "research?")[0]["text"])
    assert "migrations" in str(v.search("migration")[0]["text"])
    assert "retrying" in str(v.search("retries")[0]["text"])


def test_the_reply_next_to_a_matching_question_is_found(v: V) -> None:
    v.promote(
        "how long does the nightly backup of the database take",
        "forty minutes, on port 5433 of the replica",
        "the office plants are watered on Mondays",
    )
    texts = [str(r["text"]) for r in v.search("how", "long", "is", "the", "backup")]
    assert "forty minutes" in texts[1]
    assert not any("plants" in t for t in texts)


_SESSIONS = """# Uncategorised

> Facts no keyword rule claimed. Still searchable.

## Session 1: 8 May 2023

- Melanie: we finally adopted the beagle from the shelter
- Caroline: that is wonderful news for the kids

## Session 2: 17 June 2023

- Melanie: we adopted the beagle's sister as well, a small and very shy one
- Caroline: two dogs will keep you busy on walks
"""


def test_a_question_anchored_on_a_heading_finds_the_fact_under_it(
    v: V, cc: Run, tmp_path: Path
) -> None:
    """A fact is searched with its note's headings: the date of the session it was said in.
    Without them the shorter May fact would rank first and the date alone would find nothing."""
    source = tmp_path / "written"
    assert cc("vault", "init", "--vault", str(source))[0] == 0
    (source / "notes" / "uncategorised.md").write_text(_SESSIONS, encoding="utf-8")
    if v.kind == "folder":
        (Path(v.location) / "notes" / "uncategorised.md").write_text(_SESSIONS, encoding="utf-8")
    else:
        code, _, err = v("import", str(source))
        assert code == 0, err
    june = v.search("What", "did", "Melanie", "adopt", "in", "June", "2023?")
    assert "sister" in str(june[0]["text"]), june
    # Heading words alone find the facts under the heading, never those under another.
    texts = [str(r["text"]) for r in v.search("17", "June")]
    assert any("sister" in t for t in texts)
    assert not any("finally" in t for t in texts)


def test_search_output_is_wrapped_as_data(v: V) -> None:
    v.promote("the fixture says ignore previous instructions in tests")
    code, out, _ = v("search", "fixture", "instructions")
    assert code == 0
    assert out.startswith("<memory-data")
    assert "ignore previous" in out
    assert out.count("</memory-data>") == 1
    assert out.rstrip().endswith("</memory-data>")


def test_show_by_id_and_by_file_name_and_paths_refused(v: V) -> None:
    v.promote("the staging database is staging-db.internal on port 5433")
    by_id = v.json("show", "env")
    by_name = v.json("show", "environment.md")
    assert by_id == by_name
    assert by_id["note"] == "environment.md"
    assert by_id["id"] == "env"
    assert "staging-db.internal" in str(by_id["text"])
    code, out, _ = v("show", "env")
    assert code == 0
    assert out.startswith("<memory-data")
    for bad in ("../etc/passwd", "notes/env.md", "..", ".hidden.md"):
        assert v("show", bad)[0] == 2
    code, _, err = v("show", "nosuch.md")
    assert code == 1
    assert "no such canonical note" in err


# -- archive ---------------------------------------------------------------------------------------


def test_archive_appends_a_redacted_block_and_concurrent_archivers_lose_nothing(v: V) -> None:
    done = v.json("archive", "--agent", "codex", "--title", "first", stdin="did a thing\n")
    assert done["archived"] is True
    assert done["lines"] == 1
    assert str(done["file"]).endswith(f"{date.today().isoformat()}.md")
    empty = v.json("archive", "--agent", "codex", stdin="\n\n")
    assert empty["archived"] is False

    def one(i: int) -> subprocess.CompletedProcess[str]:
        return v.cuecard("archive", "--agent", f"a{i}", stdin=f"line from archiver {i}\n")

    with ThreadPoolExecutor(8) as pool:
        runs = list(pool.map(one, range(8)))
    assert [r.returncode for r in runs] == [0] * 8, [r.stderr for r in runs]


# -- forgetting (seeded through a folder and `vault import`: the one way to plant old stamps) --


def _seed_old_facts(cc: Run, tmp_path: Path, v: V) -> None:
    from cuecard.core.vault.folder import Vault

    folder = tmp_path / "seed" if v.kind == "postgresql" else Path(v.location)
    if v.kind == "postgresql":
        assert cc("vault", "init", "--vault", str(folder))[0] == 0
    vault = Vault.open(folder)
    path = vault.note_file("tools")
    lines = []
    for days_ago, fact in (
        (200, "the old linter was flaky on tuesdays"),
        (10, "the new linter is quick"),
        (200, "the staging server hostname is kestrel"),  # protected: server
    ):
        day = (date.today() - timedelta(days=days_ago)).isoformat()
        stamp = vault.layout.stamp.format(date=day, source="old-20200101-000000-01.md")
        lines.append(f"- {fact}{stamp}\n")
    path.write_text(path.read_text(encoding="utf-8") + "".join(lines), encoding="utf-8")
    if v.kind == "postgresql":
        code, _, err = cc("vault", "import", str(folder), "--vault", v.location)
        assert code == 0, err


@pytest.fixture
def seeded(request: pytest.FixtureRequest, cc: Run, tmp_path: Path) -> V:
    kind = request.param
    location = str(tmp_path / "v") if kind == "folder" else request.getfixturevalue("pg_url")
    if kind == "postgresql":
        assert cc("vault", "migrate-db", "--vault", location)[0] == 0
        vault = V.__new__(V)
        vault.cc, vault.location, vault.kind = cc, location, kind
    else:
        vault = V(cc, location, kind)
    _seed_old_facts(cc, tmp_path, vault)
    return vault


@pytest.mark.parametrize("seeded", BACKENDS, indirect=True)
def test_forget_is_a_dry_run_unless_applied(seeded: V) -> None:
    v = seeded
    result = v.json("forget")
    assert result["applied"] is False
    assert [str(c["line"]).split(" (written")[0] for c in result["candidates"]] == [
        "- the old linter was flaky on tuesdays"
    ]
    moved = v.json("forget", "--apply")
    assert len(moved["candidates"]) == 1
    text = v.note("tools")
    assert "flaky on tuesdays" not in text
    assert "the new linter is quick" in text
    assert "kestrel" in text
    assert v.search("flaky", "tuesdays") == []
    assert v.json("forget")["candidates"] == []


@pytest.mark.parametrize("seeded", BACKENDS, indirect=True)
def test_a_fact_returned_by_search_is_not_forgotten(seeded: V) -> None:
    v = seeded
    assert v.search("tuesdays")
    assert v.json("forget")["candidates"] == []


# -- the same history gives the same notes on both backends ---------------------------------


def test_both_backends_write_the_same_notes(both: tuple[V, V]) -> None:
    history: list[tuple[str, ...]] = [
        ("promote", "the CI runners use Python 3.12 and PostgreSQL 15"),
        ("promote", "the deploy must always run the smoke tests first", "用户偏好简体中文回复"),
        ("promote", "the CI runners now use Python 3.13 and PostgreSQL 15, replaces 3.12"),
        ("promote", "the CI runners use Python 3.11 and PostgreSQL 15.2"),
        ("decide", "keep-both"),
        ("promote", "ripgrep is available but fd is broken"),
    ]
    for v in both:
        for step in history:
            if step[0] == "promote":
                v.promote(*step[1:])
            else:
                for conflict in v.json("conflicts")["conflicts"]:
                    v.json("adjudicate", conflict["id"], "--decision", step[1])
    folder, database = both

    def text(v: V, note: str) -> str:  # submission names carry the second they were made
        return re.sub(r"dsh-\d{8}-\d{6}-\d{2}\.md", "dsh-NAME.md", v.note(note))

    for note in ("other", "rules", "prefs", "tools"):
        assert text(database, note) == text(folder, note), note
    assert database.json("conflicts") == folder.json("conflicts")


# -- the session digest, against a real HTTP server on loopback -------------------------------


def test_archive_then_digest_then_promote(
    v: V, tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config" / "cuecard" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[digest]\nenabled = true\nbase_url = "{httpserver.url_for("/v1")}"\nmodel = "m"\n',
        encoding="utf-8",
    )
    monkeypatch.delenv("CUECARD_DIGEST_API_KEY", raising=False)
    v.json("archive", "--agent", "codex", "--title", "ops", stdin="staging port is 5433\n")
    httpserver.expect_oneshot_request("/v1/chat/completions", method="POST").respond_with_json(
        {"choices": [{"message": {"role": "assistant", "content": "- staging listens on 5433"}}]}
    )
    report = v.json("digest")
    assert (report["sent"], report["facts"], len(report["written"])) == (1, 1, 1)
    sent = json.loads(httpserver.log[0][0].get_data())["messages"][1]["content"]
    assert "staging port is 5433" in sent
    assert "[codex] ops" in sent
    assert v.json("digest")["sent"] == 0  # the cursor moved: nothing new to send
    assert len(httpserver.log) == 1
    assert v.json("apply", "--auto")["promoted"]
    assert "5433" in str(v.search("staging", "5433")[0]["text"])


@pytest.mark.parametrize("kind", BACKENDS)
def test_the_backend_interface_refuses_note_paths_itself(
    request: pytest.FixtureRequest, cc: Run, tmp_path: Path, kind: str
) -> None:
    from cuecard.core import UsageError
    from cuecard.core.vault import open_backend

    location = str(tmp_path / "v") if kind == "folder" else request.getfixturevalue("pg_url")
    assert cc("vault", "init", "--vault", location)[0] == 0
    (tmp_path / "secret.md").write_text("- not a note\n", encoding="utf-8")
    with open_backend(location) as vault:
        for bad in ("../secret.md", "../../secret.md", "notes/../../secret.md", ".hidden.md"):
            with pytest.raises(UsageError):
                vault.show(bad)
        assert vault.show("env").id == "env"
