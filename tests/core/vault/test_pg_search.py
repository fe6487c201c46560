"""PostgreSQL vault search over its postings (schema 6): the postings, term counts and
statistics stay in line with the facts through every kind of write, a version-5 database is
upgraded with its data, and the ranking is BM25 over all active facts as a plain reference
computes it."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import pytest

from cuecard.core.vault.postgres._vault import PgVault
from tests._support.postgres import postings_out_of_line

BIN = Path(sys.executable).parent
Run = Callable[..., tuple[int, str, str]]


def ok(cc: Run, *args: str) -> str:
    code, out, err = cc(*args)
    assert code == 0, err
    return out


def found(cc: Run, url: str, *query: str) -> list[str]:
    out = ok(cc, "vault", "search", *query, "--vault", url, "--json")
    return [str(r["text"]) for r in json.loads(out)["results"]]


@pytest.fixture
def db(cc: Run, pg_url: str) -> str:
    ok(cc, "vault", "migrate-db", "--vault", pg_url)
    return pg_url


def test_every_kind_of_write_keeps_the_postings_in_line(cc: Run, db: str, tmp_path: Path) -> None:
    """An import, note edits (a fact, a heading), submit and apply, a supersession, forget,
    a delete and a truncate all leave postings, counts and statistics as a rebuild gives."""
    from cuecard.core.vault.postgres._notes import lock_note, store_note

    old = (date.today() - timedelta(days=200)).isoformat()
    text = (
        "# Uncategorised\n\n## Session 1: 8 May 2023\n\n- Melanie adopted a beagle\n"
        "- 部署前先运行数据库迁移脚本\n- parse_config_file() reads cuecard.toml\n"
    )
    folder = tmp_path / "v"
    ok(cc, "vault", "init", "--vault", str(folder))
    (folder / "notes" / "tools.md").write_text("# Tools\n\n- 日本語のドキュメント\n", "utf-8")
    ok(cc, "vault", "import", str(folder), "--vault", db)
    assert postings_out_of_line(db) == {}
    assert found(cc, db, "日本")[0] == "- 日本語のドキュメント"
    with PgVault(db) as vault:
        vault.add_note_text("other", text)
        vault.add_note_text(
            "env",
            f"- the coffee machine is descaled monthly (written {old} | source: inbox/a.md)\n",
        )
    assert postings_out_of_line(db) == {}
    assert found(cc, db, "beagle")[0] == "- Melanie adopted a beagle"
    with PgVault(db) as vault, vault.conn.transaction():
        lock_note(vault, "other")
        edited = text.replace("8 May", "9 June").replace("a beagle", "a shy beagle")
        store_note(vault, "other", edited)
    assert postings_out_of_line(db) == {}
    assert found(cc, db, "June", "shy")[0] == "- Melanie adopted a shy beagle"
    for n, fact in enumerate(("the staging port is 5433", "the staging port is 6000")):
        ok(cc, "vault", "submit", "--agent", f"a{n}", "--vault", db, fact)
        ok(cc, "vault", "apply", "--auto", "--vault", db)
        assert postings_out_of_line(db) == {}
    ok(cc, "vault", "forget", "--apply", "--vault", db)
    assert postings_out_of_line(db) == {}
    assert not any("coffee" in t for t in found(cc, db, "coffee", "descaled"))
    with PgVault(db) as vault, vault.conn.transaction():
        vault.conn.execute("DELETE FROM cuecard_facts WHERE note = 'other'")
    assert postings_out_of_line(db) == {}
    with PgVault(db) as vault, vault.conn.transaction():
        vault.conn.execute("TRUNCATE cuecard_facts")
    assert postings_out_of_line(db) == {}
    assert found(cc, db, "日本") == []


def old_database(url: str, version: int) -> None:
    """A database at schema ``version`` holding one note with headings, a CJK fact and a
    superseded fact, as that version's cuecard left it."""
    from cuecard.core.vault.postgres import _schema as _pg_schema
    from cuecard.core.vault.postgres._notes import derive_facts

    with PgVault(url) as vault:
        vault.conn.autocommit = True
        for number, summary, sql in _pg_schema.MIGRATIONS[:version]:
            vault.conn.execute(sql.encode())
            if number == 1:
                vault.conn.execute(
                    "CREATE TABLE cuecard_schema (version integer PRIMARY KEY, summary text "
                    "NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
                )
            vault.conn.execute("INSERT INTO cuecard_schema VALUES (%s, %s)", (number, summary))
        text = (
            "# Uncategorised\n\n## Session 2: 17 June 2023\n\n- Melanie adopted a beagle\n"
            "- 部署前先运行数据库迁移脚本\n\n## Superseded\n\n- Melanie adopted a cat\n"
        )
        vault.conn.execute("UPDATE cuecard_notes SET text = %s WHERE note = 'other'", (text,))
        for ident, row in derive_facts(text).items():  # the row as that version wrote it
            vault.conn.execute(
                "INSERT INTO cuecard_facts (note, id, position, line, text, shown, status, "
                "source, written, context) VALUES ('other', %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (ident, *row[:8]),
            )


def test_a_version_5_database_is_upgraded_with_its_facts(cc: Run, pg_url: str) -> None:
    old_database(pg_url, 5)
    code, _, err = cc("vault", "search", "beagle", "--vault", pg_url)
    assert code == 1
    assert "migrate-db" in err
    code, out, err = cc("vault", "migrate-db", "--vault", pg_url, "--json")
    assert code == 0, err
    assert json.loads(out)["applied"] == [6, 7, 8], err
    assert postings_out_of_line(pg_url) == {}
    with PgVault(pg_url) as vault:  # schema 8: each fact's dates, from its headings here
        dated = vault.conn.execute("SELECT text, dates FROM cuecard_facts ORDER BY text").fetchall()
    assert dated == [
        ("Melanie adopted a beagle", "20230617 202306 0617"),
        ("Melanie adopted a cat", ""),  # superseded: under no dated heading
        ("部署前先运行数据库迁移脚本", "20230617 202306 0617"),
    ]
    assert found(cc, pg_url, "June", "beagle")[0] == "- Melanie adopted a beagle"
    assert found(cc, pg_url, "迁移")[0] == "- 部署前先运行数据库迁移脚本"
    assert found(cc, pg_url, "cat") == []  # superseded: not in the postings


def test_a_version_6_database_is_upgraded_and_its_notes_fetched_once(cc: Run, pg_url: str) -> None:
    old_database(pg_url, 6)
    code, _, err = cc("vault", "search", "beagle", "--vault", pg_url)
    assert code == 1
    assert "migrate-db" in err
    code, out, err = cc("vault", "migrate-db", "--vault", pg_url, "--json")
    assert code == 0, err
    assert json.loads(out)["applied"] == [7, 8], err
    with PgVault(pg_url) as vault:
        held = vault.conn.execute("SELECT note FROM cuecard_note_generations").fetchall()
        options = vault.conn.execute(
            "SELECT reloptions FROM pg_class WHERE relname = 'cuecard_facts'"
        ).fetchall()
    assert held == [("other",)]
    assert options == [(["fillfactor=80"],)]  # room for use records on each page
    assert found(cc, pg_url, "June", "beagle")[0] == "- Melanie adopted a beagle"
    assert found(cc, pg_url, "迁移")[0] == "- 部署前先运行数据库迁移脚本"
    assert found(cc, pg_url, "cat") == []  # superseded
    code, _, err = cc("vault", "migrate-db", "--vault", pg_url)
    assert code == 0, err


# -- the ranking against a plain reference ----------------------------------------------------

WORDS = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega build cache".split()


def corpus(n: int) -> dict[str, str]:
    """Deterministic notes: facts of a few words each, some inflected, some CJK."""
    notes: dict[str, list[str]] = {"env": [], "tools": [], "other": []}
    for i in range(n):
        words = [WORDS[(i * k + k) % len(WORDS)] for k in range(1, 2 + i % 5)]
        if i % 7 == 0:
            words.append(WORDS[i % len(WORDS)] + "ing")
        if i % 11 == 0:
            words.append("数据库迁移" if i % 2 else "部署脚本")
        notes[list(notes)[i % 3]].append(f"- fact {i} " + " ".join(words))
    return {note: "# N\n\n" + "\n".join(lines) + "\n" for note, lines in notes.items()}


def _word_key(word: str, prefix: bool) -> Callable[[list[str], str], bool]:
    """Whether a fact's lexemes hold ``word`` (as a lexeme's prefix when ``prefix``)."""
    return lambda lex, body: any(x.startswith(word) if prefix else x == word for x in lex)


def _gram_key(gram: str) -> Callable[[list[str], str], bool]:
    """Whether a fact's text holds the CJK ``gram``."""
    return lambda lex, body: gram in body


class Reference:
    """BM25 over every active fact, computed in Python: the best facts (id, score), the number
    of query keys each fact holds, and whether every key some fact holds is common."""

    def __init__(self, best: list[tuple[str, float]], held: dict[str, int], common: bool) -> None:
        self.best = best
        self.held = held
        self.common = common


def reference(url: str, query: str, limit: int) -> Reference:
    """BM25 as the module docstring states it, computed over every active fact in Python: the
    weight of each query key a fact holds (word by prefix or exactly, date term exactly, CJK
    gram as a substring), normalised by the fact's length, plus a neighbour's share."""
    import psycopg

    from cuecard.core.vault.postgres import _search as s
    from tests._support.internals import NEIGHBOUR_SHARE

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT note, id, position, tsvector_to_array(tsv), length(tsv), "
            "text || E'\\n' || context FROM cuecard_facts WHERE status = 'active'"
        ).fetchall()
    keys: list[Callable[[list[str], str], bool]] = []
    counts: list[int] = []
    docs = len(rows)
    for lexeme, prefix in s._terms(query):
        keys.append(_word_key(lexeme, prefix))
        # A prefix's document count is the sum of its words' counts.
        counts.append(
            sum(1 for r in rows for x in r[3] if (x.startswith(lexeme) if prefix else x == lexeme))
        )
    for gram in s._bigrams(query):
        keys.append(_gram_key(gram))
        counts.append(sum(1 for r in rows if gram in r[5]))
    avgdl = max(sum(r[4] for r in rows) / docs, 1.0)
    weights = [max(math.log((docs - n + 0.5) / (n + 0.5)), 1e-6) for n in counts]
    own = {}
    held = {}
    for note, ident, position, lex, length, body in rows:
        total = sum(w for w, key in zip(weights, keys, strict=True) if key(lex, body))
        held[ident] = sum(1 for key in keys if key(lex, body))
        norm = (s.K1 + 1) / (1 + s.K1 * (1 - s.B + s.B * length / avgdl))
        own[(note, position)] = (ident, total * norm)
    scored = []
    for (note, position), (ident, score) in own.items():
        near = [own.get((note, position + d), ("", 0.0))[1] for d in (-1, 1)]
        scored.append((ident, score + NEIGHBOUR_SHARE * max(near), note, position))
    best = sorted((x for x in scored if x[1] > 0), key=lambda x: (-x[1], x[2], x[3]))
    common = max((w for w, n in zip(weights, counts, strict=True) if n > 0), default=0) <= 1e-6
    return Reference([(ident, score) for ident, score, _, _ in best[:limit]], held, common)


QUERIES = [
    "alpha",
    "beta gamma",
    "building caches",
    "omega lambda kappa sigma",
    "数据库",
    "部署 delta",
    "what happened on 8 May 2023",
    "alpha in May 2023",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_database_ranking_is_bm25_over_every_fact(db: str, query: str) -> None:
    """``_search.rank``: the ranking of a machine that cannot keep a mirror. Its pool is BM25
    with the neighbours' share over every active fact (dates as terms), and it is ordered
    from there as the folder vault's index orders its pool (exact forms first, or the prior)."""
    from cuecard.core.recall import Ranking
    from cuecard.core.vault.postgres._search import pool, rank
    from tests._support.internals import pool_size, settle

    notes = corpus(300)
    notes["tools"] = notes["tools"].replace("# N\n\n", "# N\n\n## Session 3: 8 May 2023\n\n", 1)
    notes["env"] += "- on 2023-05-08 the alpha build moved\n"
    with PgVault(db) as vault:
        for note, text in notes.items():
            vault.add_note_text(note, text)
        pooled = pool(vault, query, pool_size(10, Ranking()))
        hits = rank(vault, query, 10)
    expected = reference(db, query, 10)
    top = pooled.rows[:10]
    assert top, query
    assert [round(r[3], 6) for r in top] == [round(s, 6) for _, s in expected.best]
    # Equal scores may come in another order; each score's facts are the same set.
    by_score: dict[float, set[str]] = {}
    for ident, score in expected.best:
        by_score.setdefault(round(score, 6), set()).add(ident)
    for row in top:
        assert row[1] in by_score[round(row[3], 6)]
    assert pooled.common == expected.common
    assert [r[4] for r in pooled.rows] == [expected.held[r[1]] for r in pooled.rows]
    rows = pooled.rows
    order = settle(
        [(n, r[3]) for n, r in enumerate(rows)],
        10,
        query,
        Ranking(),
        lambda ns: {
            n: (rows[n][2], expected.held[rows[n][1]] if expected.common else 0) for n in ns
        },
    )
    assert [(h.key, h.score) for h in hits] == [(rows[n][1], s) for n, s in order]


def test_search_ranks_as_the_folder_vault_over_the_same_notes(db: str, tmp_path: Path) -> None:
    """Search ranks on this machine's mirror with the folder vault's BM25: the same facts, the
    same scores and the same order as a folder vault holding the same notes (headings too)."""
    from cuecard.core.vault import DEFAULT
    from cuecard.core.vault.folder import Vault, init_vault
    from cuecard.core.vault.folder._recall import notes_index

    notes = corpus(300)
    notes["env"] = notes["env"].replace("# N\n\n", "# N\n\n## Session 3: 2 May 2024\n\n", 1)
    root = tmp_path / "folder"
    init_vault(root, DEFAULT)
    folder = Vault.open(root)
    with PgVault(db) as vault:
        for note, text in notes.items():
            vault.add_note_text(note, text)
            folder.note_file(note).write_text(text, encoding="utf-8")
        index = notes_index(str(root), folder.layout)
        index.sync()
        for query in [*QUERIES, "May session alpha"]:
            expected = [
                (Path(h.path).name, h.key, h.text, round(h.score, 9))
                for h in index.search(query, 10)
            ]
            every = {(Path(h.path).name, h.key, h.text) for h in index.search(query, 1000)}
            hits = [(h.path, h.key, h.text, round(h.score, 9)) for h in vault.search(query, 10)]
            assert expected, query
            assert [h[3] for h in hits] == [e[3] for e in expected], query
            # Equal scores may come in another order (the order each index read the facts in),
            # so the last score's facts may be others of that score.
            for score in {e[3] for e in expected} - {expected[-1][3]}:
                assert {h for h in hits if h[3] == score} == {e for e in expected if e[3] == score}
            assert {h[:3] for h in hits} <= every, query
        index.close()


def test_writers_of_several_notes_at_once_keep_the_postings_in_line(db: str) -> None:
    """Eight writers on four notes (sharing the words of their facts) and four searchers at
    once: every writer and searcher finishes, and the postings are as a rebuild gives."""
    env_url = db

    def write(n: int) -> None:
        with PgVault(env_url) as vault:
            note = ("env", "tools", "other", "prefs")[n % 4]
            vault.add_note_text(note, f"- concurrent fact {n} about the build cache\n")

    from concurrent.futures import ThreadPoolExecutor

    def search(_: int) -> int:
        done = subprocess.run(
            [str(BIN / "cuecard"), "vault", "search", "build", "cache", "--vault", env_url],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        return len(re.findall("concurrent fact", done.stdout))

    with ThreadPoolExecutor(8) as pool:
        jobs = [pool.submit(write, n) for n in range(8)] + [
            pool.submit(search, n) for n in range(4)
        ]
        for job in jobs:
            job.result()
    assert postings_out_of_line(db) == {}
    with PgVault(db) as vault:
        hits = vault.search("concurrent", 20)
    assert len({h.text for h in hits if "concurrent fact" in h.text}) == 8


# -- the mirror: exact freshness, no cache folder ------------------------------------------------


def uses(url: str) -> dict[str, int]:
    with PgVault(url) as vault:
        rows = vault.conn.execute("SELECT text, uses FROM cuecard_facts").fetchall()
    return {str(text): int(n) for text, n in rows}


def test_a_search_never_returns_a_fact_changed_before_it_started(db: str) -> None:
    """One process keeps its mirror between searches; another client retires a fact, adds one
    and rewrites one behind it. The next search sees all three, and records the uses of what it
    returned only (not of the stale ranking it discarded)."""
    with PgVault(db) as vault, PgVault(db) as other:
        vault.add_note_text("tools", "- the quokka cache lives on disk one\n- quokka builds\n")
        assert len(vault.search("quokka", 10)) == 2  # the first search builds the mirror
        assert uses(db) == {"the quokka cache lives on disk one": 1, "quokka builds": 1}
        with other.conn.transaction():
            other.conn.execute(
                "UPDATE cuecard_facts SET status = 'superseded' WHERE text LIKE '%disk one%'"
            )
            other.conn.execute(
                "UPDATE cuecard_facts SET shown = shown || ' (checked)' "
                "WHERE text = 'quokka builds'"
            )
        other.add_note_text("env", "- the quokka deploy needs a token\n")
        texts = [h.text for h in vault.search("quokka", 10)]
        assert sorted(texts) == ["- quokka builds (checked)", "- the quokka deploy needs a token"]
        assert uses(db) == {
            "the quokka cache lives on disk one": 1,
            "quokka builds": 2,
            "the quokka deploy needs a token": 1,
        }
        # Nothing changed since: the same answer, the uses counted once more.
        assert sorted(h.text for h in vault.search("quokka", 10)) == texts
        assert uses(db)["quokka builds"] == 3


def test_without_a_writable_cache_folder_search_ranks_in_the_database(
    cc: Run, db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cuecard.core.vault.postgres._search import rank

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    with PgVault(db) as vault:
        vault.add_note_text("tools", "- the quokka cache lives on disk one\n- quokka builds\n")
        hits = vault.search("quokka", 10)
        assert vault.mirror() is None
        assert [(h.key, h.score) for h in hits] == [
            (h.key, h.score) for h in rank(vault, "quokka", 10)
        ]
    assert uses(db) == {"the quokka cache lives on disk one": 1, "quokka builds": 1}
    assert found(cc, db, "quokka", "builds")[0] == "- quokka builds"
    code, _, err = cc("vault", "search", "--vault", db, "--mode", "hybrid", "quokka")
    assert code == 1
    assert "cache folder" in err
    assert "must be writable" in err


def test_a_change_fetches_only_the_notes_it_touched(db: str) -> None:
    """After one note changes, the next search fetches that note alone: another note's mirror
    file, altered here behind cuecard's back, is left as it is (a fetch of every note would
    rewrite it), until that note changes too. A truncate touches every note."""
    from cuecard.core.vault.postgres._mirror import pg_cache_dir

    with PgVault(db) as vault:
        vault.add_note_text("tools", "- the quokka build runs nightly\n")
        vault.add_note_text("env", "- the quokka cache lives on disk one\n")
        assert len(vault.search("quokka", 10)) == 2
    env = Path(pg_cache_dir(db)) / "mirror" / "env.md"
    altered = env.read_text(encoding="utf-8").replace("disk one", "disk two")
    env.write_text(altered, encoding="utf-8")
    with PgVault(db) as vault:
        vault.add_note_text("tools", "- the quokka deploy needs a token\n")
        texts = {h.text for h in vault.search("quokka", 10)}
        assert texts == {
            "- the quokka build runs nightly",
            "- the quokka deploy needs a token",
            "- the quokka cache lives on disk two",
        }
        assert env.read_text(encoding="utf-8") == altered
        vault.add_note_text("env", "- the quokka proxy is squid\n")
        texts = {h.text for h in vault.search("quokka", 10)}
        assert "- the quokka cache lives on disk one" in texts
        with vault.conn.transaction():
            vault.conn.execute("UPDATE cuecard_facts SET uses = 7")  # changes nothing searched
            held = dict(vault.conn.execute("SELECT note, n FROM cuecard_note_generations"))
        with vault.conn.transaction():
            vault.conn.execute(
                "UPDATE cuecard_facts SET note = 'prefs' WHERE text LIKE '%%proxy%%'"
            )
            moved = dict(vault.conn.execute("SELECT note, n FROM cuecard_note_generations"))
        assert moved["tools"] == held["tools"]
        assert moved["env"] > held["env"]
        assert moved["prefs"] == moved["env"]
        assert {h.path for h in vault.search("proxy", 10)} == {"preferences.md"}
        with vault.conn.transaction():
            vault.conn.execute("TRUNCATE cuecard_facts")
        assert vault.search("quokka", 10) == []
    assert sorted(p.name for p in env.parent.iterdir()) == []


# -- the same answers with and without a cache folder ----------------------------------------------

CONVERSATION = """# Melanie and Caroline

## Session 1: 8 May 2023

- Melanie: Hi Caroline!
- Caroline: Hey Melanie, how was your week?
- Melanie: I ran my first half marathon along the river last weekend and finished it in \
just under two hours.
- Caroline: That's so cool!

## Session 2: 17 June 2023

- Melanie: Guess what, we finally adopted a shy little beagle from the animal shelter down \
the road, and the kids named her Biscuit after the biscuits she keeps stealing.
- Caroline: Wow!
- Melanie: Thanks!
- Caroline: The buildkite pipeline at work broke again on Friday.

## Session 3: 2 July 2023

- Caroline: Hi Melanie!
- Melanie: Hey, good to see you.
- Caroline: My sister is visiting from Lisbon next week and we are going hiking in the hills.
- Melanie: Have fun!

## Session 4: 30 August 2023

- Melanie: Hello again!
- Caroline: I started a pottery class on Tuesday evenings and made a wobbly bowl.
- Melanie: That sounds lovely.
- Caroline: Bye for now!
"""

# question -> the fact both rankings put first
ANSWERS = {
    # a date in another form than the heading's: reached only through the date terms
    "Which sport did Melanie take up on 2023-05-08?": "Melanie: I ran my first half marathon",
    # only the name in common (in every fact's headings): the prior prefers the long turn
    "Does Melanie have a pet?": "Melanie: Guess what, we finally adopted",
    "Is Caroline impressed by Melanie?": "Melanie: Guess what, we finally adopted",
    # a known item: the exact words first
    "first half marathon along the river": "Melanie: I ran my first half marathon",
    "What happened in June 2023?": "Melanie: Guess what, we finally adopted",
}


def test_search_answers_alike_with_and_without_a_writable_cache_folder(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database's ranking (a machine whose cache folder cannot be written) searches the
    dates a question names and weighs the length prior as the mirror's ranking does, so both
    put the same fact first. What still differs is stated in the module docstring of
    ``_search`` and shown by the next test."""
    with PgVault(db) as vault:
        vault.add_note_text("other", CONVERSATION)
        mirrored = {q: vault.search(q, 5) for q in ANSWERS}
        assert vault.mirror() is not None
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    with PgVault(db) as vault:
        ranked = {q: vault.search(q, 5) for q in ANSWERS}
        assert vault.mirror() is None
    for question, answer in ANSWERS.items():
        assert mirrored[question][0].text.startswith(f"- {answer}"), question
        assert ranked[question][0].text == mirrored[question][0].text, question


def test_where_the_two_rankings_differ(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database's BM25 matches a word's stem of four letters or more as a prefix (its
    postings hold ``simple`` lexemes, not the folder vault's tokens): "build" finds
    "buildkite", which the mirror's ranking does not."""
    with PgVault(db) as vault:
        vault.add_note_text("other", CONVERSATION)
        mirrored = [h.text for h in vault.search("build", 5)]
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    with PgVault(db) as vault:
        ranked = [h.text for h in vault.search("build", 5)]
    assert mirrored == []
    assert ranked[0] == "- Caroline: The buildkite pipeline at work broke again on Friday."
