"""A persisted BM25 recall index over a folder of text files (SQLite tables of postings).

Standard library only: the cold ``search`` process imports this and nothing heavier. The index
lives outside the indexed folder. Each file yields entries (a fact line, a memory); entries are
keyed by a content hash, so a changed file costs only its changed entries. A file is re-read when
its stat signature changed or when it was modified within ``RACY_NS`` of the last read (the
timestamps cannot tell two writes in one clock tick apart); its SHA-256 then decides. Rows of
files that disappeared are removed, and a schema or tokenizer change rebuilds the whole index.

The index is a cache: a file that SQLite cannot read (overwritten, truncated, a disk error) is
deleted and built again from the folder once, with one line saying so (``notify``, the standard
error by default); a second failure raises ``CacheError`` naming the file and the fix.

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

from cuecard.core.base._confined import Tree
from cuecard.core.base._database import connect_database
from cuecard.core.recall._dates import date_terms
from cuecard.core.recall._order import pool_size, settle
from cuecard.core.recall._scoring import K1, B, max_score, with_neighbours
from cuecard.core.recall._tokens import TOKENIZER_VERSION, query_tokens
from cuecard.core.recall._values import Entry, Ranking

TYPE_CHECKING = False  # the cold search imports no typing
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

__all__ = [
    "SCHEMA_VERSION",
    "Entry",
    "Hit",
    "Ranking",
    "RecallIndex",
    "SyncReport",
    "collect_notices",
]

# The postings' blocks hold native integers: the byte order is part of the version.
SCHEMA_VERSION = f"7{sys.byteorder[0]}.{TOKENIZER_VERSION}"
RACY_NS = 2_000_000_000
# The idf of a term that half the entries or more hold (BM25's would be 0 or below).
FLOOR = 1e-6
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


def _reader(
    conn: sqlite3.Connection, rows: dict[int, tuple[str, str, str]], terms: list[str] | None
) -> Callable[[list[int]], dict[int, tuple[str, int]]]:
    """``_order.settle``'s reader: each entry's text and how many of ``terms`` (when given) it
    holds; the path, key and text of each entry read are kept in ``rows``."""
    wanted = set(terms or ())
    column = "terms" if wanted else "''"

    def read(ids: list[int]) -> dict[int, tuple[str, int]]:
        out: dict[int, tuple[str, int]] = {}
        if ids:
            for ident, path, key, text, held in conn.execute(
                f"SELECT id, path, key, text, {column} FROM entries WHERE id IN "  # noqa: S608
                f"({','.join('?' * len(ids))})",
                ids,
            ):
                rows[int(ident)] = (str(path), str(key), str(text))
                matched = len(wanted.intersection(str(held).split(" "))) if wanted else 0
                out[int(ident)] = (str(text), matched)
        return out

    return read


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
-- frequency in each and their lengths, as native 4-byte unsigned integers. The term's last
-- block (the highest first) also holds its counts, NULL in the others: df, the entries holding
-- it, tf_max and len_min, its highest frequency in an entry and the shortest entry holding it
-- (bounds that stay true when entries leave). They come before the blocks: reading them never
-- reads a block. (A table of their own cost a first build a second row per term.)
CREATE TABLE postings (
  term TEXT NOT NULL, first INTEGER NOT NULL, df INTEGER, tf_max INTEGER, len_min INTEGER,
  docs BLOB NOT NULL, tfs BLOB NOT NULL, lens BLOB NOT NULL, PRIMARY KEY (term, first)
) WITHOUT ROWID;
-- Each term's counts, as the searches and the concept graph read them
CREATE VIEW terms AS SELECT term, df, tf_max, len_min FROM postings WHERE df IS NOT NULL;
"""


# SQLite's result codes for a file that cannot be opened, is damaged or is not a database.
_UNREADABLE = frozenset({11, 14, 26})  # SQLITE_CORRUPT, SQLITE_CANTOPEN, SQLITE_NOTADB


def _unreadable(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the database file itself is damaged (not busy, not locked)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _UNREADABLE
    return type(exc) is sqlite3.DatabaseError


_COLLECTING: list[list[str]] = []


@contextlib.contextmanager
def collect_notices() -> Iterator[list[str]]:
    """Collect the lines the indexes have for the user (a rebuild) while the block runs, for a
    long-lived process that shows them its own way; they still go to the standard error."""
    lines: list[str] = []
    _COLLECTING.append(lines)
    try:
        yield lines
    finally:
        _COLLECTING.remove(lines)


def _say(line: str) -> None:
    for lines in _COLLECTING:
        lines.append(line)
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


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
        notify: Callable[[str], None] | None = None,
        db_tree: Tree | None = None,
    ) -> None:
        self.db_path = os.fspath(db_path)
        self._db_tree = db_tree
        """The folder the database lies under when it is not cuecard's own (a project's
        ``.cuecard/``): its folders are made, and the database checked and removed, through it;
        else the database's own folder is the tree's base."""
        self.notify = notify or _say
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
        self._fresh = False
        """The database was new when connected, and is still in the rollback journal."""
        self._schema_ok = False
        self._seen: tuple[int, dict[str, tuple[str, int, int, int, int, int]]] | None = None

    # -- connection ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        # through the layer: a link, FIFO or device is never opened, at any depth (a folder
        # SQLite cannot open: healed)
        conn = connect_database(*self._db_place(), timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.execute("PRAGMA cache_size = -32768")
        self._conn = conn
        # A new (empty) database is first built in SQLite's rollback journal, which copies no
        # page the file did not hold when the transaction began: each page of a first build is
        # written once (in WAL, twice: to the log, then checkpointed), and a build killed
        # midway is still rolled back (the journal restores the file as it was, empty or the
        # bare schema). ``_sync`` turns it to WAL when done, for readers beside a writer.
        self._fresh = conn.execute("PRAGMA page_count").fetchone()[0] == 0
        if not self._fresh:
            self._to_wal(conn)
        return conn

    def _to_wal(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        self._fresh = False

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
            for kind, name in w.execute(
                "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'fts_%' ORDER BY type = 'table'"
            ).fetchall():
                w.execute(f'DROP {"VIEW" if kind == "view" else "TABLE"} IF EXISTS "{name}"')
            for statement in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                w.execute(statement)
            w.execute("INSERT INTO meta VALUES ('schema', ?)", (self._version_tag,))
            w.execute("INSERT INTO meta VALUES ('docs', '0'), ('length', '0')")
        self._schema_ok = True
        return True

    # -- healing --------------------------------------------------------------------------------

    def _heal(self, exc: sqlite3.DatabaseError) -> None:
        """Delete the unreadable database (the link itself if it is one, never what it names)
        and say so; the caller builds it again from the folder."""
        self.close()
        try:
            self._remove()
        except OSError:
            raise self._unfixable(exc) from None
        self.notify(
            f"cuecard: the recall index {self.db_path} could not be read ({exc}); "
            f"rebuilding it from {self.root}"
        )

    def _db_place(self) -> tuple[Tree, str]:
        """The tree the database lies in and its path there (``/``-separated)."""
        if self._db_tree is None:
            folder = os.path.dirname(self.db_path) or "."
            os.makedirs(folder, exist_ok=True)  # cuecard's own cache folder, named by the caller
            return Tree(folder), os.path.basename(self.db_path)
        base = self._db_tree.base
        return self._db_tree, os.path.relpath(self.db_path, base).replace(os.sep, "/")

    def _remove(self) -> None:
        """Delete the database's files (a link itself, never what it names)."""
        tree, rel = self._db_place()
        for suffix in ("", "-wal", "-shm", "-journal"):
            tree.remove(rel + suffix)

    def _unfixable(self, exc: sqlite3.DatabaseError) -> Exception:
        from cuecard.core.base._errors import CacheError

        return CacheError(
            f"the recall index {self.db_path} cannot be read ({exc}) and rebuilding it from "
            f"{self.root} failed: check the disk and that its folder is writable, then delete "
            "the file; the next search builds it again (`cuecard vault reindex` builds a "
            "vault's at once)"
        )

    def _healing(self, run: Callable[[], _T]) -> _T:
        """``run()``; if the database cannot be read, rebuild it once and run again."""
        try:
            return run()
        except sqlite3.DatabaseError as exc:
            if not _unreadable(exc):
                raise
            self._heal(exc)
        try:
            self._sync()
            return run()
        except sqlite3.DatabaseError as exc:
            if not _unreadable(exc):
                raise
            raise self._unfixable(exc) from None

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
        return self._healing(self._sync)

    def rebuild(self) -> SyncReport:
        """Delete the index and build it again from the files."""
        self.close()
        try:
            self._remove()
        except OSError as exc:
            from cuecard.core.base._errors import CacheError

            raise CacheError(
                f"the recall index {self.db_path} cannot be deleted ({exc.strerror}): "
                "remove it by hand, then run `cuecard vault reindex` again"
            ) from None
        report = self._healing(self._sync)
        return SyncReport(
            report.files_changed, report.files_removed, report.entries_added,
            report.entries_removed, True,
        )  # fmt: skip

    def _sync(self) -> SyncReport:
        report = self._sync_files()
        if self._fresh and self._conn is not None:
            self._to_wal(self._conn)
        return report

    def _sync_files(self) -> SyncReport:
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
            if added or removed:  # (a new token: a process that holds what it read of the
                # entries, the vector stream's matrix, compares it, whoever changed them)
                w.execute("INSERT OR REPLACE INTO meta VALUES ('generation', hex(randomblob(8)))")
        return SyncReport(changed, len(stale), added, removed, rebuilt)

    # -- queries ------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 8) -> list[Hit]:
        """The best ``limit`` entries for ``query`` by BM25 (any query term may match), each with
        its share of its neighbours' scores (see ``Ranking``)."""
        return self._healing(lambda: self._search(query, limit))

    def _search(self, query: str, limit: int) -> list[Hit]:
        ranking = self.ranking
        terms = query_tokens(query, content=ranking.content, stem=ranking.stem)
        if ranking.dates:
            terms = list(dict.fromkeys(terms + date_terms(query)))
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
            weights[term] = max(math.log((docs - df + 0.5) / (df + 0.5)), FLOOR) * (K1 + 1)
            # No entry gets more of the term than its highest frequency in its shortest entry.
            caps[term] = weights[term] * tf / (tf + flat + slope * length)
        order = sorted(present, key=lambda term: (found[term][0], term))
        ranked = max_score(conn, order, weights, caps, avgdl, limit, pool_size(limit, ranking))
        if not ranked:
            return []
        if ranking.neighbours > 0:
            ranked = with_neighbours(conn, ranked, weights, avgdl, ranking.neighbours)
        # Exact forms first, or the length prior (``_order``). When every query term is in
        # half the entries or more (a person's name in their conversation, every term of a
        # tiny vault), BM25 weighs nothing: the prior counts the terms an entry holds.
        common = max(weights.values()) <= FLOOR * (K1 + 1)
        rows: dict[int, tuple[str, str, str]] = {}
        best = settle(
            ranked, limit, query, ranking, _reader(conn, rows, present if common else None)
        )
        return [Hit(*rows[d], float(score)) for d, score in best if d in rows]

    def counts(self) -> dict[str, int]:
        """Files and entries held, without synchronising (read-only)."""
        return self._healing(self._counts)

    def check(self) -> str | None:
        """Why the index file cannot be read, or ``None`` (also when there is none yet);
        read-only: it changes nothing."""
        if not os.path.lexists(self.db_path):
            return None
        try:
            conn = connect_database(*self._db_place(), readonly=True, timeout=5.0)
        except FileNotFoundError:
            return None
        except OSError as exc:  # a link, FIFO or device in its place (or on its path)
            return str(exc)
        try:
            try:
                row = conn.execute("PRAGMA quick_check").fetchone()
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            return str(exc) if _unreadable(exc) else None
        return None if row is None or row[0] == "ok" else str(row[0])

    def _counts(self) -> dict[str, int]:
        if not os.path.isfile(self.db_path):
            return {"files": 0, "entries": 0}
        conn = self._connect()
        if self._version(conn) != self._version_tag:
            return {"files": 0, "entries": 0}
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        return {"files": int(files), "entries": int(entries)}
