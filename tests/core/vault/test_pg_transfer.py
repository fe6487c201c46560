"""The PostgreSQL vault holds what the folder vault holds: notes as documents, forgetting,
session archives, and `vault export` / `vault import` lossless both ways (see the docstring of
``cuecard.core.vault.transfer._transfer`` for what "identical" means), against a real server."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from cuecard.core.cli import main
from cuecard.core.vault.folder._recall import cache_dir
from cuecard.core.vault.postgres._vault import PgVault
from tests._support.postgres import PASSWORD, PgServer

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _pg_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSWORD", PASSWORD)


def new_db(server: PgServer, cc: Run) -> str:
    """A fresh migrated database on the test server, its URL."""
    name = "t_" + os.urandom(6).hex()
    with psycopg.connect(server.url("postgres"), password=server.password, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    url = server.url(name)
    code, _, err = cc("vault", "migrate-db", "--vault", url)
    assert code == 0, err
    return url


def ok(cc: Run, *args: str, stdin: str = "") -> str:
    code, out, err = cc(*args, stdin=stdin)
    assert code == 0, err
    return out


BASES = (
    "the nightly build publishes wheels to the internal index at two in the morning",
    "our release notes are written in British English with Oxford commas",
    "the load balancer drains connections for thirty seconds before a restart",
    "flaky integration tests are quarantined in a separate pytest marker",
)
VARIANTS = (
    "the nightly build publishes wheels to the internal index at three in the morning",
    "our release notes are written in American English with Oxford commas",
    "the load balancer drains connections for sixty seconds before a restart",
    "flaky integration tests are quarantined in a distinct pytest marker",
)
DECISIONS = ("use-new", "keep-old", "keep-both", "defer")
OLD_LINE = "- the team lunch happens on fridays (written 2020-01-02 | source: inbox/x-1.md)"


def busy(cc: Run, where: str) -> None:
    """Promoted, superseded, conflicting (each decision), forgotten, used, archived, reviewed
    but not applied, and waiting facts, and a note's prose edited by hand, through the CLI."""
    v = ("--vault", where)
    for fact in (
        *BASES,
        "the CI runners use Python 3.12 and PostgreSQL 15",
        "the CI runners now use Python 3.13 and PostgreSQL 15, replaces Python 3.12",
        "部署前先运行数据库迁移脚本",
    ):
        ok(cc, "vault", "submit", "--agent", "codex", *v, fact)
        ok(cc, "vault", "apply", "--auto", *v)
    ok(cc, "vault", "submit", "--agent", "dsh", *v, *VARIANTS)
    ok(cc, "vault", "apply", "--auto", *v)
    queue = json.loads(ok(cc, "vault", "conflicts", *v, "--json"))["conflicts"]
    assert len(queue) == 4
    for conflict in queue:
        decision = DECISIONS[VARIANTS.index(conflict["new"])]
        ok(cc, "vault", "adjudicate", conflict["id"], "--decision", decision, *v)
    for query in ("部署", "nightly wheels", "load balancer", "nightly wheels"):
        ok(cc, "vault", "search", query, *v)
    ok(cc, "vault", "archive", "--agent", "codex", "--title", "one", *v, stdin="did a\n\ndid b\n")
    ok(cc, "vault", "archive", "--agent", "dsh", *v, stdin="- did c\n")
    ok(cc, "vault", "submit", "--agent", "codex", *v, "the docs site builds with mkdocs", "x y")
    ok(cc, "vault", "review", *v)
    ok(cc, "vault", "submit", "--agent", "late", *v, "arrived after the review")


def hand_edit(path: Path) -> None:
    """Prose a person added, and an old stamped line forgetting will move."""
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("\n\n", "\n\nWritten by hand: ask Sam first.\n\n", 1) + OLD_LINE + "\n",
        encoding="utf-8",
    )


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def uses(root: Path) -> dict[str, tuple[int, str]]:
    """Per fact id: (uses, last day), from the folder's use records."""
    found: dict[str, tuple[int, str]] = {}
    log = Path(cache_dir(str(root))) / "usage.log"
    for line in log.read_text(encoding="utf-8").splitlines():
        ident, _, day = line.partition("\t")
        count, last = found.get(ident, (0, day))
        found[ident] = (count + 1, max(last, day))
    return found


def write_cursor(root: Path, day: str) -> bytes:
    """A digest cursor as ``vault digest`` writes it (one entry per archive read)."""
    path = Path(cache_dir(str(root))) / "digest-cursor.json"
    data = {"files": {f"sessions/{day}.md": {"size": 42, "sha256": "ab" * 32}}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    return path.read_bytes()


# -- folder -> PostgreSQL -> folder -------------------------------------------------------------


def test_a_busy_folder_comes_back_byte_for_byte(
    cc: Run, pg_server: PgServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    ok(cc, "vault", "init", "--vault", str(first))
    hand_edit(first / "notes" / "uncategorised.md")
    busy(cc, str(first))
    moved = json.loads(ok(cc, "vault", "forget", "--apply", "--vault", str(first), "--json"))
    assert [c["line"] for c in moved["candidates"]] == [OLD_LINE]
    cursor = write_cursor(first, date.today().isoformat())
    files = tree(first)
    assert {"review/pending.md", "review/conflicts.md", "review/adjudicated.md"} <= set(files)
    assert {"review/promoted.md", "forgotten/uncategorised.md"} <= set(files)
    assert any(name.startswith("sessions/2") for name in files)
    assert b"- [ ] 1. note:" in files["review/pending.md"]
    assert b"ask Sam first" in files["notes/uncategorised.md"]

    url = new_db(pg_server, cc)
    result = json.loads(ok(cc, "vault", "import", str(first), "--vault", url, "--json"))
    assert result["submissions"] == 2
    assert result["conflicts"] == 1
    assert result["processed"] == 8
    assert result["pending"] == 2
    assert result["archives"] == 1
    assert result["adjudications"] == 4
    assert result["promotions"] == 7
    assert result["forgotten"] == 1
    assert result["cursor"] == 1
    assert result["uses"] >= 3
    keys = "source, target, facts, notes, submissions, processed, conflicts, pending, "
    keys += "adjudications, promotions, forgotten, archives, uses, cursor"
    assert set(result) == set(keys.split(", "))
    with pytest.raises(SystemExit):
        main(["vault", "import", "--help"])
    assert keys in " ".join(capsys.readouterr().out.split())
    ok(cc, "vault", "export", str(second), "--vault", url)
    again = tree(second)
    assert sorted(again) == sorted(files)
    for name, data in files.items():
        assert again[name] == data, name
    assert uses(second) == uses(first)
    assert uses(first)
    assert (Path(cache_dir(str(second))) / "digest-cursor.json").read_bytes() == cursor


def test_a_unified_agent_memory_folder_imports_through_its_layout(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    from cuecard.core.vault import UAM
    from cuecard.core.vault.folder import Vault

    uam, out = tmp_path / "uam", tmp_path / "out"
    ok(cc, "vault", "init", "--layout", "unified-agent-memory", "--vault", str(uam))
    for fact in (BASES[0], VARIANTS[0]):
        ok(cc, "vault", "submit", "--agent", "hermes", "--vault", str(uam), fact)
        ok(cc, "vault", "apply", "--auto", "--vault", str(uam))
    ident = json.loads(ok(cc, "vault", "conflicts", "--vault", str(uam), "--json"))["conflicts"]
    ok(cc, "vault", "adjudicate", ident[0]["id"], "--decision", "keep-both", "--vault", str(uam))
    ok(cc, "vault", "archive", "--agent", "hermes", "--vault", str(uam), stdin="会话结束\n")
    url = new_db(pg_server, cc)
    ok(cc, "vault", "import", str(uam), "--vault", url)
    ok(cc, "vault", "export", str(out), "--vault", url)
    source = Vault.open(uam)
    assert source.layout is UAM
    for note in ("index", "prefs", "env", "rules", "tools", "ui", "coord", "other"):
        exported = Vault.open(out).note_file(note)
        assert exported.read_bytes() == source.note_file(note).read_bytes(), note
    log = (out / "review" / "adjudicated.md").read_text(encoding="utf-8")
    assert "| decision: keep-both | new: " + VARIANTS[0] in log
    promoted = (out / "review" / "promoted.md").read_text(encoding="utf-8").splitlines()
    assert len(promoted) == 1
    assert promoted[0].endswith("| uncategorised.md | " + BASES[0])
    archives = list((out / "sessions").glob("2*.md"))
    assert len(archives) == 1
    assert "会话结束" in archives[0].read_text(encoding="utf-8")


# -- PostgreSQL -> folder -> PostgreSQL ---------------------------------------------------------

# Columns the folder cannot hold (see transfer/_transfer's docstring), left out of the comparison.
TABLES = {
    "cuecard_notes": "note, text",
    "cuecard_facts": "note, id, position, line, text, shown, status, source, written, uses, "
    "last_used",
    "cuecard_submissions": "name, agent, body, facts, status",
    "cuecard_pending": "fact, note, source, replaces",
    "cuecard_pending_list": "generated, command",
    "cuecard_conflicts": "id, note, existing, incoming, source, open",
    "cuecard_adjudications": "decision, detail, to_char(decided_at, 'YYYY-MM-DD HH24:MI'), line",
    "cuecard_promotions": "added, detail, to_char(promoted_at, 'YYYY-MM-DD HH24:MI'), line",
    "cuecard_forgotten": "file, line, id",
    "cuecard_archives": "name, text",
    "cuecard_digest_cursor": "name, size, sha256",
}
ORDER = {"cuecard_notes": "note", "cuecard_archives": "name", "cuecard_digest_cursor": "name"}
UNORDERED = ("cuecard_facts", "cuecard_submissions", "cuecard_pending_list")


def tables(url: str) -> dict[str, list[tuple[Any, ...]]]:
    with PgVault(url) as vault:
        found = {
            table: vault.conn.execute(
                f"SELECT {cols} FROM {table} ORDER BY {ORDER.get(table, 'seq')}"
            ).fetchall()
            for table, cols in TABLES.items()
            if table not in UNORDERED
        }
        for table in UNORDERED:  # rows in no order of their own: sorted whole
            cols = TABLES[table]
            found[table] = sorted(vault.conn.execute(f"SELECT {cols} FROM {table}").fetchall())
        found["open conflict of each decision"] = vault.conn.execute(
            "SELECT a.conflict FROM cuecard_adjudications a JOIN cuecard_conflicts c "
            "ON c.id = a.conflict AND c.open ORDER BY a.seq"
        ).fetchall()
        found["promoted from"] = vault.conn.execute(
            "SELECT p.submission FROM cuecard_promotions p JOIN cuecard_facts f "
            "ON p.detail = f.note || ' | ' || f.text ORDER BY p.seq"
        ).fetchall()
    return found


def test_a_busy_database_comes_back_table_for_table(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    from cuecard.core.vault.postgres._archive import archive_session_pg
    from cuecard.core.vault.postgres._forget import apply_forget_pg

    url = new_db(pg_server, cc)
    with PgVault(url) as vault:
        vault.add_note_text("other", "# Uncategorised\n\nWritten by hand.\n\n" + OLD_LINE + "\n")
    busy(cc, url)
    with PgVault(url) as vault:
        assert [c.line for c in apply_forget_pg(vault, today=date.today())] == [OLD_LINE]
        assert archive_session_pg(vault, "codex", "wrap-up", "shipped it\n") is not None
        vault.conn.execute(
            "INSERT INTO cuecard_digest_cursor (name, size, sha256) VALUES (%s, 42, %s)",
            (date.today().isoformat() + ".md", "cd" * 32),
        )
        vault.conn.commit()
    before = tables(url)
    assert all(before[t] for t in TABLES), [t for t in TABLES if not before[t]]
    folder = tmp_path / "moved"
    ok(cc, "vault", "export", str(folder), "--vault", url)
    copy = new_db(pg_server, cc)
    ok(cc, "vault", "import", str(folder), "--vault", copy)
    after = tables(copy)
    closed = {"cuecard_conflicts"}  # closed conflicts do not move (see the docstring)
    for table in TABLES.keys() - closed:
        assert after[table] == before[table], table
    assert after["cuecard_conflicts"] == [r for r in before["cuecard_conflicts"] if r[-1]]
    assert after["open conflict of each decision"] == before["open conflict of each decision"]
    assert after["promoted from"] == before["promoted from"]


def test_the_target_database_must_be_empty_and_names_from_it_are_checked(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    url = new_db(pg_server, cc)
    with PgVault(url) as vault:
        vault.conn.execute(
            "INSERT INTO cuecard_archives (name, text) VALUES ('../../escape.md', 'x')"
        )
        vault.conn.commit()
    code, _, err = cc("vault", "export", str(tmp_path / "out"), "--vault", url)
    assert code == 1
    assert "'../../escape.md'" in err
    assert "NAME.md" in err
    assert not (tmp_path / "escape.md").exists()
    folder = tmp_path / "v"
    ok(cc, "vault", "init", "--vault", str(folder))
    code, _, err = cc("vault", "import", str(folder), "--vault", url)
    assert code == 1
    assert "not empty" in err
    (folder / "notes" / "tools.md").write_bytes(b"# Tools\n\n- caf\xe9 latin-1\n")
    (folder / "notes" / "rules.md").unlink()
    (folder / "notes" / "rules.md").symlink_to("/etc/passwd")
    fresh = new_db(pg_server, cc)
    code, _, err = cc("vault", "import", str(folder), "--vault", fresh)
    assert code == 1
    assert "tools.md: not UTF-8" in err
    (folder / "notes" / "tools.md").write_text("# Tools\n\n- café\n", encoding="utf-8")
    ok(cc, "vault", "import", str(folder), "--vault", fresh)
    ok(cc, "vault", "export", str(tmp_path / "back"), "--vault", fresh)
    assert not (tmp_path / "back" / "notes" / "rules.md").exists()  # a symlink is no note
    assert (tmp_path / "back" / "notes" / "tools.md").read_text(encoding="utf-8").endswith("café\n")


# -- notes as documents --------------------------------------------------------------------------


def test_promotions_and_decisions_write_the_same_note_text_on_both(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    folder, url = str(tmp_path / "v"), new_db(pg_server, cc)
    ok(cc, "vault", "init", "--vault", folder)
    for where in (folder, url):
        busy(cc, where)
        ok(cc, "vault", "apply", "--vault", where)
    for note in ("env", "other", "tools", "rules"):
        texts = [
            re.sub(
                r"inbox/[\w.-]+\.md",  # submission names hold the second they were made
                "inbox/NAME.md",
                json.loads(ok(cc, "vault", "show", note, "--vault", w, "--json"))["text"],
            )
            for w in (folder, url)
        ]
        assert texts[0] == texts[1], note
    shown = json.loads(ok(cc, "vault", "show", "other", "--vault", url, "--json"))["text"]
    assert "## Superseded" in shown
    assert VARIANTS[0] in shown
    assert BASES[0] not in shown


def test_facts_follow_the_note_text_and_keep_their_uses(cc: Run, pg_server: PgServer) -> None:
    url = new_db(pg_server, cc)
    with PgVault(url) as vault:
        vault.add_note_text("tools", "# Tools\n\nProse.\n\n- use ruff for linting\n- use uv\n")
        # Limit 1: the fact next to a hit gains a share of its score and would be returned too.
        vault.search("ruff linting", 1)
        vault.search("ruff linting", 1)
    ok(
        cc,
        "vault",
        "submit",
        "--agent",
        "a",
        "--vault",
        url,
        "the mypy tool is available for type checks",
    )
    ok(cc, "vault", "apply", "--auto", "--vault", url)
    with PgVault(url) as vault:
        rows = vault.conn.execute(
            "SELECT text, position, uses, status FROM cuecard_facts WHERE note = 'tools' "
            "ORDER BY position"
        ).fetchall()
        text = vault.note("tools")
    assert rows == [
        ("use ruff for linting", 1, 2, "active"),
        ("use uv", 2, 0, "active"),
        ("the mypy tool is available for type checks", 3, 0, "active"),
    ]
    assert text is not None
    assert text.startswith("# Tools\n\nProse.\n\n- use ruff for linting\n")
    from cuecard.core.vault.postgres._notes import lock_note, store_note

    with PgVault(url) as vault, vault.conn.transaction():  # a line edited, one moved, one gone
        edited = lock_note(vault, "tools").replace("- use uv\n", "")
        edited = edited.replace("- use ruff for linting\n", "- use ruff for linting｜使用 9 次\n")
        assert store_note(vault, "tools", edited) == 0
    with PgVault(url) as vault:
        rows = vault.conn.execute(
            "SELECT line, position, uses FROM cuecard_facts WHERE note = 'tools' ORDER BY position"
        ).fetchall()
    assert rows[0] == ("- use ruff for linting｜使用 9 次", 1, 2)
    assert len(rows) == 2
    assert rows[1][1:] == (2, 0)
    assert "mypy" in rows[1][0]


def test_a_version_2_database_migrates_its_facts_into_notes(
    cc: Run, pg_url: str, tmp_path: Path
) -> None:
    from cuecard.core.vault._facts import fact_id
    from cuecard.core.vault.postgres import _schema as _pg_schema

    with PgVault(pg_url) as vault:
        vault.conn.autocommit = True
        for version, summary, sql in _pg_schema.MIGRATIONS[:2]:
            vault.conn.execute(sql.encode())
            if version == 1:
                vault.conn.execute(
                    "CREATE TABLE cuecard_schema (version integer PRIMARY KEY, summary text "
                    "NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
                )
            vault.conn.execute("INSERT INTO cuecard_schema VALUES (%s, %s)", (version, summary))
        rows = [  # (note, position, line, text) as version 2 wrote them; the second superseded
            ("env", 1, "- port 5433 (written 2026-01-02 | source: inbox/a.md)", "port 5433"),
            ("env", 2, "- port 5432", "port 5432"),
            ("env", 3, "- staging is db2", "staging is db2"),
        ]
        ids = [fact_id(text) for *_, text in rows]
        for n, ((note, pos, line, text), ident) in enumerate(zip(rows, ids, strict=True)):
            vault.conn.execute(
                "INSERT INTO cuecard_facts (note, id, position, line, text, shown, status, uses) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (note, ident, pos, line, text, line, "superseded" if n == 1 else "active", n),
            )
        vault.conn.execute(  # logs as version 2 kept them: no line
            "INSERT INTO cuecard_adjudications (conflict, decision, detail, decided_at) VALUES "
            '(\'c1\', \'keep-old\', \'{"new": "port 6000", "old": "port 5433"}\', '
            "'2026-01-03 10:20:00+00')"
        )
        vault.conn.execute(
            "INSERT INTO cuecard_promotions (submission, added, detail, promoted_at) VALUES "
            "('a.md', 1, 'env | port 5433', '2026-01-02 09:15:00+00')"
        )
    code, out, err = cc("vault", "migrate-db", "--vault", pg_url, "--json")
    assert code == 0, err
    assert json.loads(out)["applied"] == [3, 4, 5, 6, 7, 8], err
    shown = json.loads(ok(cc, "vault", "show", "env", "--vault", pg_url, "--json"))["text"]
    assert shown == (
        "# Paths and environment\n\n> Machines, paths, ports, versions, accounts (never "
        "secrets).\n\n- port 5433 (written 2026-01-02 | source: inbox/a.md)\n- staging is db2\n"
        "\n## Superseded\n\n- port 5432\n"
    )
    coord = json.loads(ok(cc, "vault", "show", "coord", "--vault", pg_url, "--json"))["text"]
    assert coord.startswith("# Coordination\n")
    with PgVault(pg_url) as vault:
        positions = vault.conn.execute(
            "SELECT id, position, status FROM cuecard_facts ORDER BY position"
        ).fetchall()
        a1, a2, a3 = ids
        assert positions == [(a1, 1, "active"), (a3, 2, "active"), (a2, 3, "superseded")]
        vault.add_note_text("env", "- the VPN endpoint is vpn.example.org\n")
        kept = dict(vault.conn.execute("SELECT id, uses FROM cuecard_facts").fetchall())
    assert len(kept) == 4
    assert [kept[i] for i in ids] == [1, 2, 3]
    ok(cc, "vault", "export", str(tmp_path / "out"), "--vault", pg_url)
    adjudicated = (tmp_path / "out" / "review" / "adjudicated.md").read_text(encoding="utf-8")
    promoted = (tmp_path / "out" / "review" / "promoted.md").read_text(encoding="utf-8")
    local = datetime(2026, 1, 3, 10, 20, tzinfo=UTC).astimezone().strftime("%Y-%m-%d %H:%M")
    assert adjudicated.endswith(
        f"- {local} | decision: keep-old | new: port 6000 | old: port 5433\n"
    )
    local = datetime(2026, 1, 2, 9, 15, tzinfo=UTC).astimezone().strftime("%Y-%m-%d %H:%M")
    assert promoted == f"- {local} | environment.md | port 5433\n"


def test_a_version_4_database_gains_its_facts_headings(cc: Run, pg_url: str) -> None:
    """Schema 5 fills each fact's headings from its note's text, so search finds a fact by the
    date of the session above it; later edits of a heading are searched too."""
    from cuecard.core.vault.postgres import _schema as _pg_schema
    from cuecard.core.vault.postgres._notes import derive_facts, lock_note, store_note

    text = (
        "# Uncategorised\n\n## Session 1: 8 May 2023\n\n- Melanie adopted a beagle\n\n"
        "## Session 2: 17 June 2023\n\n- Melanie adopted a second beagle, a shy one\n"
    )
    with PgVault(pg_url) as vault:
        vault.conn.autocommit = True
        for version, summary, sql in _pg_schema.MIGRATIONS[:4]:
            vault.conn.execute(sql.encode())
            if version == 1:
                vault.conn.execute(
                    "CREATE TABLE cuecard_schema (version integer PRIMARY KEY, summary text "
                    "NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
                )
            vault.conn.execute("INSERT INTO cuecard_schema VALUES (%s, %s)", (version, summary))
        vault.conn.execute("UPDATE cuecard_notes SET text = %s WHERE note = 'other'", (text,))
        for ident, row in derive_facts(text).items():  # the row as version 4 wrote it
            vault.conn.execute(
                "INSERT INTO cuecard_facts (note, id, position, line, text, shown, status, "
                "source, written) VALUES ('other', %s, %s, %s, %s, %s, %s, %s, %s)",
                (ident, *row[:7]),
            )
    code, _, err = cc("vault", "search", "June", "--vault", pg_url)
    assert code == 1
    assert "migrate-db" in err
    code, out, err = cc("vault", "migrate-db", "--vault", pg_url, "--json")
    assert code == 0, err
    assert json.loads(out)["applied"] == [5, 6, 7, 8], err

    def found(*query: str) -> list[str]:
        out = ok(cc, "vault", "search", *query, "--vault", pg_url, "--json")
        return [str(r["text"]) for r in json.loads(out)["results"]]

    assert found("17", "June")[0] == "- Melanie adopted a second beagle, a shy one"
    assert "second" not in found("Melanie", "adopted", "beagle", "in", "May", "2023")[0]
    assert found("Session", "1", "8", "May")[0] == "- Melanie adopted a beagle"
    with PgVault(pg_url) as vault, vault.conn.transaction():
        lock_note(vault, "other")
        store_note(vault, "other", text.replace("17 June", "3 September"))
    assert found("September")[0] == "- Melanie adopted a second beagle, a shy one"
    assert not found("June")


# -- forget and archive -----------------------------------------------------------------------


def test_forget_picks_what_the_folder_picks_and_moves_it_aside(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    from cuecard.core.vault.postgres._forget import apply_forget_pg, candidates_pg

    old = (date.today() - timedelta(days=200)).isoformat()
    lines = [
        f"- the coffee machine is descaled monthly (written {old} | source: inbox/a.md)",
        f"- the team lunch happens on fridays (written {old} | source: inbox/a.md)",
        f"- the deploy server is web-3 (written {old} | source: inbox/a.md)",  # protected
        f"- the printer jams on A3 paper (written {old} | source: inbox/a.md)｜使用 2 次",
        "- a fact without a stamp is never forgotten",
    ]
    body = "# Uncategorised\n\nKept by hand.\n\n" + "\n".join(lines) + "\n"
    folder, url = tmp_path / "v", new_db(pg_server, cc)
    ok(cc, "vault", "init", "--vault", str(folder))
    (folder / "notes" / "uncategorised.md").write_text(body, encoding="utf-8")
    with PgVault(url) as vault:
        vault.add_note_text("other", body)
    for where in (str(folder), url):
        # Limit 1: the facts next to a hit gain a share of its score and would be returned too.
        ok(cc, "vault", "search", "coffee", "machine", "descaled", "--limit", "1", "--vault", where)
    expected = json.loads(ok(cc, "vault", "forget", "--vault", str(folder), "--json"))
    with PgVault(url) as vault:
        dry = candidates_pg(vault, today=date.today())
        assert [(c.note, c.line, c.id) for c in dry] == [
            (c["note"], c["line"], c["id"]) for c in expected["candidates"]
        ]
        assert [c.line for c in dry] == [lines[1], lines[3]]
        moved = apply_forget_pg(vault, today=date.today())
        again = apply_forget_pg(vault, today=date.today())
        kept = vault.conn.execute("SELECT file, line FROM cuecard_forgotten").fetchall()
        live = vault.conn.execute("SELECT count(*) FROM cuecard_facts WHERE note = 'other'")
        assert live.fetchone() == (3,)
        note = vault.note("other")
    ok(cc, "vault", "forget", "--apply", "--vault", str(folder))
    assert moved == dry
    assert again == []
    assert kept == [("uncategorised.md", lines[1]), ("uncategorised.md", lines[3])]
    assert note == (folder / "notes" / "uncategorised.md").read_text(encoding="utf-8")


def test_eight_concurrent_archivers_lose_nothing(cc: Run, pg_server: PgServer) -> None:
    from cuecard.core.vault.postgres._archive import archive_session_pg

    url = new_db(pg_server, cc)
    at = datetime(2026, 11, 30, 9, 5).astimezone()

    def archive(n: int) -> tuple[str, int] | None:
        vault = PgVault(url, clock=lambda: at)
        try:
            return archive_session_pg(vault, f"agent{n}", "", f"step {n}\n\nnote {n}\n")
        finally:
            vault.close()

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(archive, range(8)))
    assert results == [("2026-11-30.md", 2)] * 8
    with PgVault(url, clock=lambda: at) as vault:
        assert archive_session_pg(vault, "a", "t", "\n  \n") is None
        row = vault.conn.execute("SELECT name, text FROM cuecard_archives").fetchall()
    assert len(row) == 1
    assert row[0][0] == "2026-11-30.md"
    text = str(row[0][1])
    assert text.startswith("# 2026-11-30\n\n## 09:05 [agent")
    for n in range(8):
        assert f"## 09:05 [agent{n}]\n\n- step {n}\n- note {n}\n\n" in text


# -- concurrent writers of one note ---------------------------------------------------------------


def test_concurrent_promoters_and_a_decision_on_one_note_lose_nothing(
    cc: Run, pg_server: PgServer
) -> None:
    import hashlib
    import subprocess

    from cuecard.core.vault.postgres._notes import derive_facts

    url = new_db(pg_server, cc)
    for fact in (BASES[0], VARIANTS[0]):
        ok(cc, "vault", "submit", "--agent", "a", "--vault", url, fact)
        ok(cc, "vault", "apply", "--auto", "--vault", url)
    ident = json.loads(ok(cc, "vault", "conflicts", "--vault", url, "--json"))["conflicts"][0]["id"]
    facts = [
        " ".join(hashlib.sha256(f"{n}-{i}".encode()).hexdigest()[:10] for i in range(4))
        for n in range(6)
    ]
    env = {**os.environ, "CUECARD_VAULT": url}
    cuecard = str(Path(sys.executable).parent / "cuecard")

    def write(n: int) -> None:
        if n == len(facts):
            args = ["vault", "adjudicate", ident, "--decision", "keep-both"]
        else:
            args = ["vault", "submit", "--agent", f"w{n}", facts[n]]
        for step in (args, ["vault", "apply", "--auto"]):
            done = subprocess.run([cuecard, *step], env=env, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr

    with ThreadPoolExecutor(len(facts) + 1) as pool:
        list(pool.map(write, range(len(facts) + 1)))
    with PgVault(url) as vault:
        text = vault.note("other")
        rows = vault.conn.execute(
            "SELECT id, position, line, status FROM cuecard_facts WHERE note = 'other'"
        ).fetchall()
    assert text is not None
    for fact in (*facts, BASES[0], VARIANTS[0]):
        assert text.count(f"- {fact} (written ") == 1, fact
    derived = derive_facts(text)
    assert sorted(rows) == sorted((i, r[0], r[1], r[4]) for i, r in derived.items())


def test_apply_auto_writes_no_pending_list_on_either_backend(
    cc: Run, pg_server: PgServer, tmp_path: Path
) -> None:
    folder, url = tmp_path / "folder", new_db(pg_server, cc)
    ok(cc, "vault", "init", "--vault", str(folder))
    for vault in (str(folder), url):
        ok(cc, "vault", "submit", "--agent", "a", "--vault", vault, BASES[0])
        ok(cc, "vault", "apply", "--auto", "--vault", vault)
    exported = tmp_path / "exported"
    ok(cc, "vault", "export", str(exported), "--vault", url)
    assert not (folder / "review" / "pending.md").exists()
    assert not (exported / "review" / "pending.md").exists()
