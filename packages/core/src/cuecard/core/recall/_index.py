"""A persisted BM25 recall index over a folder of text files (SQLite tables of postings).

Standard library only: the cold ``search`` process imports this and nothing heavier. The index
lives outside the indexed folder. Each file yields entries (a fact line, a memory); entries are
keyed by a content hash, so a changed file costs only its changed entries. A file is re-read when
its stat signature changed or when it was modified within ``RACY_NS`` of the last read (the
timestamps cannot tell two writes in one clock tick apart); its SHA-256 then decides. Rows of
files that disappeared are removed, and a schema or tokenizer change rebuilds the whole index.

Ranking (``Ranking``; each part measured on its own by ``tools/bench/recall_quality.py
--ablation``): Okapi BM25 over stemmed words, the query without its function words; an entry
may carry a context (its note's headings: a date, a session, a section) indexed with it; and an
entry's score gains a damped share of its neighbours' (the entries just before and after it in
the same file), so the answer after a question that names the topic ranks itself.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from cuecard.core.recall._tokens import TOKENIZER_VERSION, query_tokens

__all__ = ["SCHEMA_VERSION", "Entry", "Hit", "Ranking", "RecallIndex", "SyncReport"]

# The postings' blocks hold native integers: the byte order is part of the version.
SCHEMA_VERSION = f"6{sys.byteorder[0]}.{TOKENIZER_VERSION}"
K1 = 1.2
B = 0.75
RACY_NS = 2_000_000_000
# An entry gains this share of the best score among the entries next to it (up to this many
# entries away, the share divided by the distance); tuned on tools/bench/recall_quality.py.
NEIGHBOUR_SHARE = 0.5
NEIGHBOUR_WINDOW = 1
# The best entries whose neighbours are looked at (at least; three times the limit if more).
POOL = 24
# Candidates (at least; twice the pool if more) whose scores are completed from the query terms
# not read in full when ``_max_score`` tests whether it may stop.
CANDIDATES = 48
# New entries written per batch while a sync loads many (bounds the memory of a first build;
# the batches of one sync share its transaction).
BATCH = 20_000
# New postings held at most before they are written (they are held longer than their entries:
# a term then gets fewer, longer rows).
POSTINGS_HELD = 4_000_000
# A term's postings are stored in blocks of at most this many entries, one row each keyed by
# its first entry id: a rare term is one row, and a change rewrites a block (a few KB), not
# every posting of a common term.
BLOCK = 2048


class Ranking:
    """How an index tokenises and ranks; the defaults are cuecard's search.

    - ``content``: a query drops its English function words ("what", "did", "how").
    - ``stem``: plain English words are stemmed (``cuecard.core.engine._words.stem``), in entries
      and queries alike.
    - ``context``: an entry's ``context`` (its note's headings) is indexed with its terms.
    - ``neighbours``: the share (0-1; 0 turns it off) of a neighbour's score an entry gains.
    """

    __slots__ = ("content", "context", "neighbours", "stem")

    def __init__(
        self,
        *,
        content: bool = True,
        stem: bool = True,
        context: bool = True,
        neighbours: float = NEIGHBOUR_SHARE,
    ) -> None:
        self.content = content
        self.stem = stem
        self.context = context
        self.neighbours = neighbours

    def tag(self) -> str:
        """What changes the stored index (a change rebuilds it)."""
        return f"s{int(self.stem)}c{int(self.context)}"


class Entry:
    """One searchable unit of a file: ``key`` (a fact or memory id), ``text`` (what a result
    shows, already redacted), ``terms`` (what is tokenised; ``text`` when empty) and
    ``context`` (words about it outside it, such as its note's headings; indexed with it when
    the ranking says so)."""

    __slots__ = ("context", "key", "terms", "text")

    def __init__(self, key: str, text: str, terms: str = "", context: str = "") -> None:
        self.key = key
        self.text = text
        self.terms = terms
        self.context = context


class Hit:
    """One search result: the file it came from, the entry key, its text and BM25 score."""

    __slots__ = ("key", "path", "score", "text")

    def __init__(self, path: str, key: str, text: str, score: float) -> None:
        self.path = path
        self.key = key
        self.text = text
        self.score = score

    def __repr__(self) -> str:
        return f"Hit({self.path!r}, {self.key!r}, {self.text!r}, {self.score:.3f})"


class SyncReport:
    """What one synchronisation changed."""

    __slots__ = ("entries_added", "entries_removed", "files_changed", "files_removed", "rebuilt")

    def __init__(
        self, files_changed: int, files_removed: int, added: int, removed: int, rebuilt: bool
    ) -> None:
        self.files_changed = files_changed
        self.files_removed = files_removed
        self.entries_added = added
        self.entries_removed = removed
        self.rebuilt = rebuilt


Extractor = Callable[[str, str], list[Entry]]
Lister = Callable[[], Sequence[str]]

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
  path TEXT PRIMARY KEY, sha TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  ctime_ns INTEGER NOT NULL, ino INTEGER NOT NULL, read_ns INTEGER NOT NULL
);
-- terms: the entry's distinct terms, space-separated
CREATE TABLE entries (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL,
  text TEXT NOT NULL, terms TEXT NOT NULL, len INTEGER NOT NULL, pos INTEGER NOT NULL
);
CREATE INDEX entries_path ON entries(path, pos);
-- A block of a term's postings: up to BLOCK entries from the first, their ids, the term's
-- frequency in each and their lengths, as native 4-byte unsigned integers
CREATE TABLE postings (
  term TEXT NOT NULL, first INTEGER NOT NULL, docs BLOB NOT NULL, tfs BLOB NOT NULL,
  lens BLOB NOT NULL, PRIMARY KEY (term, first)
) WITHOUT ROWID;
-- df: entries holding the term, tf_max and len_min: its highest frequency in an entry and the
-- shortest entry holding it (bounds that stay true when entries leave)
CREATE TABLE terms (
  term TEXT PRIMARY KEY, df INTEGER NOT NULL, tf_max INTEGER NOT NULL, len_min INTEGER NOT NULL
) WITHOUT ROWID;
"""


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class RecallIndex:
    """The index of one folder, stored in ``db_path``."""

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        root: str | os.PathLike[str],
        list_files: Lister,
        extract: Extractor,
        *,
        now_ns: Callable[[], int] = time.time_ns,
        rules: str = "",
        ranking: Ranking | None = None,
    ) -> None:
        self.db_path = os.fspath(db_path)
        self.root = os.fspath(root)
        self._list_files = list_files
        self._extract = extract
        self._now_ns = now_ns
        self.ranking = ranking or Ranking()
        # The stored version names the schema, the extraction rules (redaction included) and
        # what the ranking indexes: a change of any rebuilds the index, so no row keeps an
        # older redaction.
        self._version_tag = f"{SCHEMA_VERSION}/{rules}/{self.ranking.tag()}"
        self._conn: sqlite3.Connection | None = None
        self._schema_ok = False
        self._seen: tuple[int, dict[str, tuple[str, int, int, int, int, int]]] | None = None

    # -- connection ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        os.makedirs(os.path.dirname(self.db_path) or ".", exist_ok=True)
        conn = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -32768")
        self._conn = conn
        return conn

    def close(self) -> None:
        self._schema_ok = False
        self._seen = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _version(self, conn: sqlite3.Connection) -> str | None:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else str(row[0])

    def _ensure_schema(self) -> bool:
        """Create or rebuild the tables when the stored schema is not ours; ``True`` if so."""
        if self._schema_ok:
            return False
        conn = self._connect()
        if self._version(conn) == self._version_tag:
            self._schema_ok = True
            return False
        with self._write() as w:
            if self._version(w) == self._version_tag:
                return False
            for (name,) in w.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%'"
            ).fetchall():
                w.execute(f'DROP TABLE IF EXISTS "{name}"')
            for statement in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                w.execute(statement)
            w.execute("INSERT INTO meta VALUES ('schema', ?)", (self._version_tag,))
            w.execute("INSERT INTO meta VALUES ('docs', '0'), ('length', '0')")
        self._schema_ok = True
        return True

    # -- synchronisation ----------------------------------------------------------------------

    def _stats(self) -> dict[str, os.stat_result]:
        found: dict[str, os.stat_result] = {}
        for rel in self._list_files():
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(self.root, rel))
                found[rel] = st
        return found

    def _needs(
        self, rows: dict[str, tuple[str, int, int, int, int, int]], stats: dict[str, os.stat_result]
    ) -> tuple[list[str], list[str]]:
        todo = []
        for rel, st in stats.items():
            row = rows.get(rel)
            if row is None or row[1:5] != _signature(st) or row[5] - st.st_ctime_ns < RACY_NS:
                todo.append(rel)
        return todo, sorted(set(rows) - set(stats))

    def _rows(self, conn: sqlite3.Connection) -> dict[str, tuple[str, int, int, int, int, int]]:
        return {
            r[0]: (r[1], r[2], r[3], r[4], r[5], r[6])
            for r in conn.execute(
                "SELECT path, sha, size, mtime_ns, ctime_ns, ino, read_ns FROM files"
            )
        }

    def sync(self) -> SyncReport:
        """Bring the index up to date with the files; cheap when nothing changed."""
        rebuilt = self._ensure_schema()
        conn = self._connect()
        stats = self._stats()
        # A warm process re-reads the file table only when some connection changed the database.
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        if self._seen is None or self._seen[0] != version:
            self._seen = (version, self._rows(conn))
        todo, stale = self._needs(self._seen[1], stats)
        if not todo and not stale:
            return SyncReport(0, 0, 0, 0, rebuilt)
        self._seen = None
        # Only now the write path's imports (the cold query path never gets here).
        from cuecard.core.recall._changes import apply_changes

        with self._write() as w:
            rows = self._rows(w)
            todo, stale = self._needs(rows, self._stats())
            changed, added, removed = apply_changes(
                self, w, rows, todo, stale, _signature, (BATCH, BLOCK, POSTINGS_HELD)
            )
        return SyncReport(changed, len(stale), added, removed, rebuilt)

    # -- queries ------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 8) -> list[Hit]:
        """The best ``limit`` entries for ``query`` by BM25 (any query term may match), each with
        its share of its neighbours' scores (see ``Ranking``)."""
        ranking = self.ranking
        terms = query_tokens(query, content=ranking.content, stem=ranking.stem)
        if not terms or limit < 1:
            return []
        conn = self._connect()
        try:
            stats = dict(
                conn.execute("SELECT key, value FROM meta WHERE key IN ('docs', 'length')")
            )
            marks = ",".join("?" * len(terms))
            found = {
                str(t): (int(n), int(tf), int(length))
                for t, n, tf, length in conn.execute(
                    "SELECT term, df, tf_max, len_min FROM terms "  # noqa: S608
                    f"WHERE term IN ({marks}) AND df > 0",
                    terms,
                )
            }
        except sqlite3.OperationalError:
            return []
        docs = int(stats.get("docs", 0))
        present = [t for t in terms if t in found]
        if docs < 1 or not present:
            return []
        avgdl = max(int(stats.get("length", 0)) / docs, 1.0)
        flat, slope = K1 * (1 - B), K1 * B / avgdl
        weights: dict[str, float] = {}
        caps: dict[str, float] = {}
        for term in present:
            df, tf, length = found[term]
            weights[term] = max(math.log((docs - df + 0.5) / (df + 0.5)), 1e-6) * (K1 + 1)
            # No entry gets more of the term than its highest frequency in its shortest entry.
            caps[term] = weights[term] * tf / (tf + flat + slope * length)
        share = ranking.neighbours
        pool = max(limit * 3, POOL) if share > 0 else limit
        order = sorted(present, key=lambda term: (found[term][0], term))
        ranked = _max_score(conn, order, weights, caps, avgdl, limit, pool)
        if not ranked:
            return []
        if share > 0:
            ranked = _with_neighbours(conn, ranked, weights, avgdl, share)[:limit]
        rows: dict[int, tuple[str, str, str]] = {}
        for ident, path, key, text in conn.execute(
            "SELECT id, path, key, text FROM entries WHERE id IN "  # noqa: S608
            f"({','.join('?' * len(ranked))})",
            [d for d, _ in ranked],
        ):
            rows[ident] = (path, key, text)
        return [Hit(*rows[d], float(score)) for d, score in ranked if d in rows]

    def counts(self) -> dict[str, int]:
        """Files and entries held, without synchronising (read-only)."""
        if not os.path.isfile(self.db_path):
            return {"files": 0, "entries": 0}
        conn = self._connect()
        if self._version(conn) != self._version_tag:
            return {"files": 0, "entries": 0}
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        return {"files": int(files), "entries": int(entries)}


def _ints(blob: bytes) -> list[int]:
    """A posting block's column (native 4-byte unsigned integers) as a list."""
    return memoryview(blob).cast("I").tolist()


def term_docs(conn: sqlite3.Connection, term: str) -> list[int]:
    """The entries holding ``term``, in id order."""
    out: list[int] = []
    for (docs,) in conn.execute("SELECT docs FROM postings WHERE term = ? ORDER BY first", (term,)):
        out += _ints(docs)
    return out


def _add_scores(
    conn: sqlite3.Connection, term: str, weight: float, avgdl: float, scores: dict[int, float]
) -> None:
    """Add ``term``'s Okapi BM25 share (the form of SQLite FTS5 and rank_bm25) to the ``scores``
    of every entry holding it: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl))."""
    flat, slope = K1 * (1 - B), K1 * B / avgdl
    alone = not scores  # no entry scored yet: the term's blocks (disjoint) fill the dict in C
    get = scores.get
    for docs, tfs, lens in conn.execute(
        "SELECT docs, tfs, lens FROM postings WHERE term = ?", (term,)
    ):
        shares = [
            weight * tf / (tf + flat + slope * length)
            for tf, length in zip(_ints(tfs), _ints(lens), strict=True)
        ]
        if alone:
            scores.update(zip(_ints(docs), shares, strict=True))
        else:
            for doc, share in zip(_ints(docs), shares, strict=True):
                scores[doc] = get(doc, 0.0) + share


def best_scores(scores: dict[int, float], count: int) -> list[tuple[int, float]]:
    """The best ``count`` of ``scores``, best first (ties: the lower id first)."""
    size = len(scores)
    if size > 16 * count > 0:
        # The count-th best of a sample is at most the count-th best of all: a cut that keeps
        # every one of the best and, with a sample of about sqrt(size * count), few others.
        stride = size // max(8 * count, 2 * math.isqrt(size * count))
        cut = sorted(list(scores.values())[::stride], reverse=True)[count - 1]
        ranked = [(-score, doc) for doc, score in scores.items() if score >= cut]
    else:
        ranked = [(-score, doc) for doc, score in scores.items()]
    ranked.sort()
    return [(doc, -score) for score, doc in ranked[:count]]


def _upto(values: Sequence[int], value: int) -> int:
    """How many of the sorted ``values`` are at most ``value``."""
    low, high = 0, len(values)
    while low < high:
        middle = (low + high) // 2
        if values[middle] <= value:
            low = middle + 1
        else:
            high = middle
    return low


def _with_neighbours(
    conn: sqlite3.Connection,
    ranked: list[tuple[int, float]],
    weights: dict[str, float],
    avgdl: float,
    share: float,
) -> list[tuple[int, float]]:
    """The best entries and the entries next to them, rescored: each gains ``share`` of the best
    score ``d`` entries away in its file, divided by ``d`` (up to ``NEIGHBOUR_WINDOW``)."""
    own = {int(d): float(s) for d, s in ranked}
    near = conn.execute(
        "SELECT DISTINCT e.id, e.path, e.pos FROM entries h JOIN entries e "  # noqa: S608
        "ON e.path = h.path AND e.pos BETWEEN h.pos - ? AND h.pos + ? "
        f"WHERE h.id IN ({','.join('?' * len(own))})",
        [NEIGHBOUR_WINDOW, NEIGHBOUR_WINDOW, *own],
    ).fetchall()
    missing = [int(i) for i, _, _ in near if int(i) not in own]
    if missing:
        own.update(_contributions(conn, list(weights), missing, weights, avgdl))
    at = {(str(path), int(pos)): int(i) for i, path, pos in near}
    scored = []
    for ident, path, pos in near:
        best = 0.0
        for d in range(1, NEIGHBOUR_WINDOW + 1):
            for other in (at.get((path, pos - d)), at.get((path, pos + d))):
                if other is not None:
                    best = max(best, own[other] / d)
        scored.append((int(ident), own[int(ident)] + share * best))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored


def _contributions(
    conn: sqlite3.Connection,
    terms: list[str],
    ids: list[int],
    weights: dict[str, float],
    avgdl: float,
) -> dict[int, float]:
    """The BM25 sum of ``terms`` for each of ``ids`` (looked up in the terms' blocks)."""
    out: dict[int, float] = dict.fromkeys(ids, 0.0)
    flat, slope = K1 * (1 - B), K1 * B / avgdl
    wanted = sorted(out)
    for term in terms:
        weight = weights[term]
        firsts: list[int] = []
        blocks: list[tuple[memoryview, ...]] = []
        for first, *columns in conn.execute(
            "SELECT first, docs, tfs, lens FROM postings WHERE term = ? ORDER BY first", (term,)
        ):
            firsts.append(int(first))
            blocks.append(tuple(memoryview(c).cast("I") for c in columns))
        for ident in wanted:
            block = _upto(firsts, ident) - 1
            if block < 0:
                continue
            docs, tfs, lens = blocks[block]
            at = _upto(docs, ident) - 1
            if docs[at] == ident:
                tf = tfs[at]
                out[ident] += weight * tf / (tf + flat + slope * lens[at])
    return out


def _max_score(
    conn: sqlite3.Connection,
    order: list[str],
    weights: dict[str, float],
    caps: dict[str, float],
    avgdl: float,
    limit: int,
    pool: int,
) -> list[tuple[int, float]]:
    """The best ``pool`` entries, the best ``limit`` of them exact (MaxScore): the terms are read
    in full in ``order`` (rarest first); after each, the best candidates' scores are completed
    from the terms not read yet (their blocks holding the candidates only), and the search
    stops when no other entry can reach the ``limit``-th of those (a term adds at most its
    ``caps``)."""
    scores: dict[int, float] = {}
    take = max(pool * 2, CANDIDATES)
    for at, term in enumerate(order):
        _add_scores(conn, term, weights[term], avgdl, scores)
        rest = order[at + 1 :]
        if not rest:
            break
        partial = best_scores(scores, take + 1)
        top = partial[:take]
        # (Widened by far more than the rounding of the sums it bounds.)
        headroom = sum(caps[t] for t in rest) * (1 + 1e-9)
        bound = (partial[take][1] if len(partial) > take else 0.0) + headroom
        if len(top) < limit or top[limit - 1][1] + headroom <= bound:
            continue  # not even the partial scores can tell; read the next term
        extra = _contributions(conn, rest, [d for d, _ in top], weights, avgdl)
        scored = sorted(((d, x + extra[d]) for d, x in top), key=lambda pair: (-pair[1], pair[0]))
        if scored[limit - 1][1] > bound:
            return scored[:pool]
    return best_scores(scores, pool)
