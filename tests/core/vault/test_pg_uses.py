"""PostgreSQL vault search records the uses of its results without waiting for the server: a
CLI process has recorded them by the time it exits, a long-lived process by its next statement;
an error in the use record is raised there and reported, never lost; inside an open transaction
the uses are part of it; and only the use record's own commit skips waiting for the disk."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from cuecard.core.vault.postgres._vault import PgVault

BIN = Path(sys.executable).parent
Run = Callable[..., tuple[int, str, str]]

FROZEN = (
    "CREATE FUNCTION frozen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "RAISE EXCEPTION 'uses are frozen in this test'; END $$; "
    "CREATE TRIGGER frozen BEFORE UPDATE OF uses ON cuecard_facts "
    "FOR EACH ROW EXECUTE FUNCTION frozen()"
)


class Abandoned(Exception):
    """Raised to roll a transaction back."""


@pytest.fixture
def db(cc: Run, pg_url: str) -> str:
    code, _, err = cc("vault", "migrate-db", "--vault", pg_url)
    assert code == 0, err
    with PgVault(pg_url) as vault:
        vault.add_note_text("tools", "- the quokka build runs nightly\n- quokka caches live here\n")
        vault.add_note_text("env", "- the wombat proxy is squid\n")
    return pg_url


def uses(url: str) -> dict[str, int]:
    """Each fact's use count, read over a connection of its own."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT text, uses FROM cuecard_facts").fetchall()
    return {str(text): int(n) for text, n in rows}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``cuecard ARGS`` as a process of its own, which exits as soon as it has printed."""
    return subprocess.run(
        [str(BIN / "cuecard"), *args], capture_output=True, text=True, check=False
    )


def test_a_search_process_has_recorded_its_uses_when_it_exits(db: str) -> None:
    for n in (1, 2, 3):  # the first builds this machine's mirror, the others rank on it
        done = cli("vault", "search", "quokka", "--vault", db, "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["count"] == 2
        assert uses(db) == {
            "the quokka build runs nightly": n,
            "quokka caches live here": n,
            "the wombat proxy is squid": 0,
        }
    done = cli("vault", "search", "wombat", "--vault", db)
    assert done.returncode == 0, done.stderr
    assert "the wombat proxy is squid" in done.stdout
    assert uses(db)["the wombat proxy is squid"] == 1


def test_a_long_lived_process_has_recorded_its_uses_by_its_next_statement(db: str) -> None:
    with PgVault(db) as vault:
        for n in (1, 2):
            assert len(vault.search("quokka", 10)) == 2
            vault.status()
            assert uses(db)["quokka caches live here"] == n
        assert len(vault.search("wombat", 10)) == 1
    assert uses(db)["the wombat proxy is squid"] == 1  # read at close


def test_an_error_in_the_use_record_is_reported_by_the_cli_without_a_traceback(db: str) -> None:
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute(FROZEN)
    for _ in range(2):  # the mirror's first build, then a search on it
        done = cli("vault", "search", "quokka", "--vault", db)
        assert done.returncode == 1
        assert done.stderr.startswith(
            "cuecard: the PostgreSQL vault: uses are frozen in this test\n"
        )
        assert "Traceback" not in done.stderr
    shown = cli("vault", "show", "tools", "--vault", db)  # the full command line's path
    assert shown.returncode == 1
    assert shown.stderr.startswith("cuecard: the PostgreSQL vault: uses are frozen in this test\n")
    assert "Traceback" not in shown.stderr
    assert set(uses(db).values()) == {0}


def test_an_error_in_the_use_record_is_raised_at_the_next_statement_or_close(db: str) -> None:
    with PgVault(db) as vault:
        assert len(vault.search("quokka", 10)) == 2  # builds the mirror
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(FROZEN)
        assert len(vault.search("quokka", 10)) == 2  # returns before the answer is read
        with pytest.raises(psycopg.errors.RaiseException, match="frozen in this test"):
            vault.status()
        assert len(vault.search("quokka", 10)) == 2
        with pytest.raises(psycopg.errors.RaiseException, match="frozen in this test"):
            vault.search("wombat", 10)  # read with this search's generation
        assert vault.status()["index"]["facts"] == 3  # the connection is usable again
        vault.search("wombat", 10)
        with pytest.raises(psycopg.errors.RaiseException, match="frozen in this test"):
            vault.close()
    assert vault.conn.closed
    assert uses(db)["quokka caches live here"] == 1


def test_inside_an_open_transaction_the_uses_are_part_of_it(db: str) -> None:
    with PgVault(db) as vault:
        vault.search("quokka", 10)  # builds the mirror
        with vault.conn.transaction():
            assert len(vault.search("quokka", 10)) == 2
            assert uses(db)["quokka caches live here"] == 1  # not committed yet
            setting = vault.conn.execute("SHOW synchronous_commit").fetchone()
            assert setting == ("on",)
        assert uses(db)["quokka caches live here"] == 2

        def abandoned_search() -> None:
            with vault.conn.transaction():
                assert len(vault.search("quokka", 10)) == 2
                raise Abandoned

        with pytest.raises(Abandoned):
            abandoned_search()
        assert uses(db)["quokka caches live here"] == 2


def test_only_the_use_record_commits_without_waiting_for_the_disk(db: str) -> None:
    with PgVault(db) as vault:
        vault.conn.autocommit = True
        for _ in range(2):
            vault.search("quokka", 10)
            assert vault.conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
        vault.record_use(["no such fact"])
        assert vault.conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
    assert uses(db)["quokka caches live here"] == 2


def test_a_fact_id_of_any_characters_is_counted_as_itself(db: str) -> None:
    """Ids travel as a text array literal: quotes, backslashes, commas and braces in one stay
    inside it (a fact renamed here behind cuecard's back, as another writer could)."""
    odd = 'a"b\\c,{d} NULL'
    with PgVault(db) as vault:
        vault.search("quokka", 10)  # builds the mirror
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute(
            "UPDATE cuecard_facts SET id = %s WHERE text = 'quokka caches live here'", (odd,)
        )
    with PgVault(db) as vault:
        hits = vault.search("quokka caches", 10)
        assert odd in {h.key for h in hits}
        vault.record_use(['"', "\\", "{}", ",", "NULL", ""])
    assert uses(db) == {
        "the quokka build runs nightly": 2,
        "quokka caches live here": 2,
        "the wombat proxy is squid": 0,
    }


def test_without_pipeline_mode_each_statement_waits_for_the_one_before(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A libpq older than 14 has no pipeline mode: the same answers, one statement at a time."""
    monkeypatch.setattr(psycopg.Pipeline, "is_supported", classmethod(lambda cls: False))
    with PgVault(db) as vault:
        for _ in range(3):
            assert len(vault.search("quokka", 10)) == 2
            assert len(vault.search("wombat", 10)) == 1
        assert vault.status()["index"]["facts"] == 3
        assert uses(db)["quokka caches live here"] == 3
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(FROZEN)
        assert len(vault.search("quokka", 10)) == 2
        with pytest.raises(psycopg.errors.RaiseException, match="frozen in this test"):
            vault.search("wombat", 10)
    assert uses(db)["the wombat proxy is squid"] == 3
