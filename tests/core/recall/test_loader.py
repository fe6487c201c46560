"""The recall index's build path (``recall._loader``): the memoised tokenizer, bulk loading.

The build path must give exactly what the plain path gives: the same tokens for any text, the
same index whether facts arrive at once or one sync at a time, and no partial index when killed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from itertools import chain
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.recall import Entry, Ranking, RecallIndex, tokens
from cuecard.core.recall import _index as index_module
from cuecard.core.recall._loader import TokenMemo

# Word characters of several scripts, the joiners, NFKC-folded forms (ligature, full-width,
# superscript, compatibility CJK), case pairs, stopwords and inflections.
_PIECES = st.sampled_from(
    [
        *"aeiosdgnrtyAEZ09_.:/@- \t\n,'é服务\u3042한ﬁＡ²\uf900ſK",
        *("the ", "running ", "Ports ", "getUsers ", "node.js ", "retried ", "caches "),
        *("Lilon", "drusou", "3144", "0x1F", "Ab", "for"),
    ]
)
_TEXT = st.lists(_PIECES, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6), st.booleans())
def test_memoised_tokens_equal_the_plain_tokenizer(texts: list[str], stem: bool) -> None:
    memo = TokenMemo(stem=stem)
    for text in texts + texts:  # the second pass is served from the memo
        assert memo(text) == tokens(text, stem=stem)


# Headings: the pieces above and marks that combine with what precedes them (a heading's are
# tokenised once per note and joined to each fact's tokens: nothing may cross the line break).
_HEADING = st.lists(
    st.sampled_from([*"\u0301\u0308\u0338\u3099 ", "Session 3", "ﬁx"]), max_size=4
).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT | _HEADING), min_size=1, max_size=8), st.booleans())
def test_what_a_build_stores_is_each_entrys_text_and_context_tokenised(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str]], stem: bool
) -> None:
    folder = tmp_path_factory.mktemp("tokens")
    (folder / "a.txt").write_text("x", encoding="utf-8")
    facts = [(text or "fact", context) for text, context in rows]
    index = RecallIndex(
        folder / "index.sqlite3",
        folder,
        lambda: ["a.txt"],
        lambda _rel, _text: [Entry(f"k{n}", t, context=c) for n, (t, c) in enumerate(facts)],
        now_ns=lambda: 0,
        ranking=Ranking(stem=stem),
    )
    index.sync()
    index.close()
    conn = sqlite3.connect(index.db_path)
    try:
        stored = {
            key: (terms, size)
            for key, terms, size in conn.execute("SELECT key, terms, len FROM entries")
        }
        ids = dict(conn.execute("SELECT id, key FROM entries"))
        held: dict[tuple[str, str], int] = {}
        for term, docs, tfs in conn.execute("SELECT term, docs, tfs FROM postings"):
            for doc, tf in zip(
                *(memoryview(c).cast("I").tolist() for c in (docs, tfs)), strict=True
            ):
                held[ids[doc], term] = tf
    finally:
        conn.close()
    wanted: dict[tuple[str, str], int] = {}
    for n, (text, context) in enumerate(facts):
        want = tokens(f"{text}\n{context}" if context else text, stem=stem)
        assert stored[f"k{n}"] == (" ".join(dict.fromkeys(want)), len(want))
        for term in want:
            wanted[f"k{n}", term] = wanted.get((f"k{n}", term), 0) + 1
    assert held == wanted


def _index(folder: Path, ranking: Ranking | None = None) -> RecallIndex:
    return RecallIndex(
        folder / "index.sqlite3",
        folder,
        lambda: sorted(p.name for p in folder.glob("*.txt")),
        lambda _rel, text: [
            Entry(f"k{n}", line, context="Session 3: May" if n % 3 else "")
            for n, line in enumerate(text.splitlines())
            if line
        ],
        now_ns=lambda: 0,  # never a racy read: only changed stamps re-read a file
        ranking=ranking,
    )


def _tables(index: RecallIndex) -> tuple[object, ...]:
    """The index's content, independent of entry ids."""
    conn = sqlite3.connect(index.db_path)
    try:
        entries = sorted(
            conn.execute("SELECT path, key, hash, text, terms, len, pos FROM entries").fetchall()
        )
        where = {
            i: (path, pos) for i, path, pos in conn.execute("SELECT id, path, pos FROM entries")
        }
        postings = []
        blocks: dict[str, list[int]] = {}
        # Per term: the counts of each of its blocks, and what its blocks hold in all.
        counted: dict[str, list[tuple[int | None, ...]]] = {}
        held: dict[str, list[tuple[int, int]]] = {}
        for term, first, *counts, d, t, n in conn.execute(
            "SELECT term, first, df, tf_max, len_min, docs, tfs, lens FROM postings "
            "ORDER BY term, first"
        ):
            docs, tfs, lens = (memoryview(c).cast("I").tolist() for c in (d, t, n))
            # A block: its first entry its key, at most BLOCK entries, in order, after the last
            # block of its term.
            assert docs[0] == first
            assert 0 < len(docs) <= index_module.BLOCK
            assert docs == sorted(docs)
            assert docs[0] > blocks.get(term, [-1])[-1]
            blocks[term] = docs
            counted.setdefault(term, []).append(tuple(counts))
            held.setdefault(term, []).extend(zip(tfs, lens, strict=True))
            postings += [(term, *where[d], tf, n) for d, tf, n in zip(docs, tfs, lens, strict=True)]
        postings.sort()
        # A term's last block holds its counts, and no other block: the entries holding it, and
        # bounds of its frequencies and of the lengths of its entries that stay true.
        for term, counts in counted.items():
            assert all(c == (None, None, None) for c in counts[:-1]), term
            df, tf_max, len_min = counts[-1]
            assert isinstance(df, int)
            assert isinstance(tf_max, int)
            assert isinstance(len_min, int)
            assert df == len(held[term]), term
            assert tf_max >= max(tf for tf, _ in held[term]), term
            assert len_min <= min(n for _, n in held[term]), term
        terms = sorted(conn.execute("SELECT term, df FROM terms WHERE df > 0").fetchall())
        # (the generation is a fresh random token per change of the entries)
        meta = sorted(conn.execute("SELECT key, value FROM meta WHERE key <> 'generation'"))
        ids = conn.execute("SELECT count(DISTINCT id), count(*) FROM entries").fetchone()
    finally:
        conn.close()
    return entries, postings, terms, meta, ids


_LINES = [
    "the beaver port is 4242 on node.js",
    "Ports running retried caches getUsers",
    "服务器 restarts nightly; the port moved",
    "beaver beaver beaver dam",
    "a lone fact about ports",
    "snake_case and CamelCase identifiers at 127.0.0.1:8080",
]


@pytest.mark.parametrize("batch", [20_000, 3], ids=["one-batch", "batches-of-3"])
@pytest.mark.parametrize("stem", [True, False], ids=["stemmed", "unstemmed"])
@pytest.mark.parametrize("block", [2048, 2], ids=["blocks-of-2048", "blocks-of-2"])
def test_a_bulk_build_equals_one_line_at_a_time(
    tmp_path: Path, stem: bool, batch: int, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cuecard.core.recall._index.BATCH", batch)
    # Postings written along with each batch of entries, in small blocks: a term's postings
    # span many, and batches and syncs extend begun ones.
    monkeypatch.setattr("cuecard.core.recall._index.POSTINGS_HELD", 1 if batch < 10 else 10**6)
    monkeypatch.setattr("cuecard.core.recall._index.BLOCK", block)
    ranking = Ranking(stem=stem)
    bulk_dir, step_dir = tmp_path / "bulk", tmp_path / "step"
    bulk_dir.mkdir()
    step_dir.mkdir()
    (bulk_dir / "a.txt").write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    (bulk_dir / "b.txt").write_text("\n".join(reversed(_LINES)) + "\n", encoding="utf-8")
    bulk = _index(bulk_dir, ranking)
    report = bulk.sync()
    assert (report.files_changed, report.entries_added) == (2, 2 * len(_LINES))

    step = _index(step_dir, ranking)
    for count in range(1, len(_LINES) + 1):
        for name, lines in (("a.txt", _LINES), ("b.txt", list(reversed(_LINES)))):
            path = step_dir / name
            path.write_text("\n".join(lines[:count]) + "\n", encoding="utf-8")
            stamp = 1_000_000_000 * count
            os.utime(path, ns=(stamp, stamp))
        assert step.sync().entries_added == 2
    assert _tables(bulk) == _tables(step)
    for query in ("beaver port", "port", "服务", "getusers", "caches retried", "127.0.0.1"):
        got = [(h.path, h.key, round(h.score, 9)) for h in bulk.search(query, 5)]
        assert got == [(h.path, h.key, round(h.score, 9)) for h in step.search(query, 5)]
        assert got
    bulk.close()
    step.close()


def test_a_changed_line_after_a_bulk_build_replaces_only_its_rows(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    index = _index(tmp_path)
    index.sync()
    changed = [*_LINES[:2], "the beaver moved to port 4343", *_LINES[3:]]
    (tmp_path / "a.txt").write_text("\n".join(changed) + "\n", encoding="utf-8")
    os.utime(tmp_path / "a.txt", ns=(5_000_000_000, 5_000_000_000))
    report = index.sync()
    assert (report.entries_added, report.entries_removed) == (1, 1)
    assert index.search("4343", 3)[0].text == "the beaver moved to port 4343"
    assert index.search("nightly", 3) == []
    index.close()


@pytest.mark.parametrize("block", [2048, 2], ids=["blocks-of-2048", "blocks-of-2"])
def test_edits_leave_the_tables_a_fresh_build_gives(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines changed, removed and restored, a file deleted and one added: the posting blocks
    rewritten in place hold what a build of the final files holds."""
    monkeypatch.setattr("cuecard.core.recall._index.BLOCK", block)
    edited_dir, fresh_dir = tmp_path / "edited", tmp_path / "fresh"
    edited_dir.mkdir()
    fresh_dir.mkdir()
    edited = _index(edited_dir)
    steps: list[dict[str, list[str] | None]] = [
        {"a.txt": _LINES, "b.txt": list(reversed(_LINES))},
        {"a.txt": [_LINES[0], "the beaver moved to port 4343", *_LINES[4:]]},
        {"b.txt": None, "c.txt": ["ports and beaver dams", _LINES[2]]},
        {"a.txt": [*_LINES, "one more beaver port"], "c.txt": [_LINES[2]]},
    ]
    final: dict[str, list[str]] = {}
    for n, step in enumerate(steps, start=1):
        for name, lines in step.items():
            path = edited_dir / name
            if lines is None:
                path.unlink()
                del final[name]
                continue
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            os.utime(path, ns=(n * 1_000_000_000, n * 1_000_000_000))
            final[name] = lines
        edited.sync()
    for name, lines in final.items():
        (fresh_dir / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    fresh = _index(fresh_dir)
    fresh.sync()
    assert _tables(edited) == _tables(fresh)
    for query in ("beaver port", "4343", "服务", "nightly", "dams"):
        got = [(h.path, h.key, round(h.score, 9)) for h in edited.search(query, 5)]
        assert got == [(h.path, h.key, round(h.score, 9)) for h in fresh.search(query, 5)]
    edited.close()
    fresh.close()


@pytest.mark.parametrize("cache", [0, 10], ids=["cache-default", "cache-of-10-pages"])
@pytest.mark.parametrize("batch", [20_000, 10], ids=["one-batch", "batches-of-10"])
@pytest.mark.parametrize("point", ["recall-entries-written", "recall-postings-written"])
def test_a_build_killed_midway_leaves_no_partial_index(
    tmp_path: Path, point: str, batch: int, cache: int
) -> None:
    """Also when the build's pages already reached the file (a cache of a few pages spills
    them long before the commit): a first build goes through SQLite's rollback journal, which
    the next open plays back."""
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "CUECARD_VAULT": str(tmp_path / "v"),
    }
    cuecard = str(Path(sys.executable).parent / "cuecard")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([cuecard, *args], capture_output=True, text=True, env=env)

    assert run("vault", "init").returncode == 0
    notes = tmp_path / "v" / "notes"
    for n in range(2):
        lines = "".join(f"- fact {n}-{i} about the heron colony {i * 7 + n}\n" for i in range(40))
        (notes / f"birds-{n}.md").write_text(f"# birds {n}\n\n{lines}", encoding="utf-8")
    # Killed in the first batch written (with batches of 10: the first note's 40 facts, written
    # before the second note is read).
    probe = (
        "import sys\n"
        "import cuecard.core.recall._index as index\n"
        f"index.BATCH = {batch}\n"
        "connect = index.RecallIndex._connect\n"
        "def small(self):\n"
        "    conn = connect(self)\n"
        f"    if {cache}:\n"
        f"        conn.execute('PRAGMA cache_size = {cache}')\n"
        "    return conn\n"
        "index.RecallIndex._connect = small\n"
        "from cuecard.core.cli import main\n"
        "sys.exit(main(['vault', 'search', 'heron']))\n"
    )
    killed = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env | {"CUECARD_CRASH_AT": point},
    )
    assert killed.returncode == -9, killed.stderr
    (db,) = (tmp_path / "cache").glob("cuecard/vaults/*/recall.sqlite3")
    if cache and point == "recall-postings-written":  # (spilled: the journal holds the undo)
        assert db.with_name(db.name + "-journal").is_file()
    done = run("vault", "search", "--json", "--limit", "100", "heron")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["count"] == 80
    assert len({r["id"] for r in found["results"]}) == 80
    status = json.loads(run("vault", "status", "--json").stdout)
    assert status["index"]["facts"] == 80


def test_a_build_leaves_the_garbage_collector_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    (tmp_path / "a.txt").write_text("\n".join(_LINES) + "\n", encoding="utf-8")
    index = _index(tmp_path)
    assert gc.isenabled()
    assert index.sync().entries_added == len(_LINES)
    assert gc.isenabled()  # paused for the build only

    def broken(*_args: object, **_kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    (tmp_path / "b.txt").write_text("a new fact\n", encoding="utf-8")
    monkeypatch.setattr("cuecard.core.recall._loader.Loader.flush", broken)
    with pytest.raises(sqlite3.OperationalError):
        index.sync()
    assert gc.isenabled()  # and after a build that failed
    monkeypatch.undo()
    gc.disable()
    try:
        assert index.sync().entries_added == 1
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
        index.close()


@pytest.mark.parametrize("lines", [_LINES, []], ids=["facts", "no-fact"])
def test_a_first_build_leaves_the_index_in_write_ahead_logging(
    tmp_path: Path, lines: list[str]
) -> None:
    """Built in the rollback journal, then turned to WAL: a later writer does not block the
    readers of another process."""
    (tmp_path / "a.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = _index(tmp_path)
    assert index.sync().entries_added == len(lines)
    reader = sqlite3.connect(index.db_path)
    try:
        assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        (tmp_path / "b.txt").write_text("a beaver in the second file\n", encoding="utf-8")
        reader.execute("BEGIN")
        before = reader.execute("SELECT count(*) FROM entries").fetchone()[0]
        assert index.sync().entries_added == 1  # (a reader in a transaction does not block it)
        assert reader.execute("SELECT count(*) FROM entries").fetchone()[0] == before
        reader.execute("COMMIT")
        assert reader.execute("SELECT count(*) FROM entries").fetchone()[0] == before + 1
    finally:
        reader.close()
        index.close()


_ASCII = st.lists(
    st.sampled_from([*"aZ09_.:/@- \t\n,'!~\x00\x1c\x7f", "Ports ", "node.js", "retried "]),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(_ASCII, min_size=1, max_size=4))
def test_memoised_tokens_of_ascii_text_equal_the_plain_tokenizer(texts: list[str]) -> None:
    """ASCII text is cut into runs without the pattern; the runs are the pattern's."""
    memo = TokenMemo()
    for text in texts + texts:
        assert memo(text) == tokens(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ASCII | _TEXT, max_size=6), st.booleans())
def test_a_notes_lines_tokenised_at_once_equal_each_tokenised_alone(
    texts: list[str], stem: bool
) -> None:
    """``TokenMemo.many`` finds the runs of a note's ASCII lines in one pass: the tokens of each
    line are those of the line alone (a line break inside a text, or text that is not ASCII,
    takes each on its own)."""
    memo = TokenMemo(stem=stem)
    for _ in range(2):  # the second pass is served from the memo
        got = [list(chain.from_iterable(parts)) for parts in memo.many(texts)]
        assert got == [tokens(text, stem=stem) for text in texts]
