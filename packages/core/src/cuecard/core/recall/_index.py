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
import time
from collections.abc import Callable, Iterator, Sequence

from cuecard.core.recall._tokens import TOKENIZER_VERSION, query_tokens

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._loader import Loader

__all__ = ["SCHEMA_VERSION", "Entry", "Hit", "Ranking", "RecallIndex", "SyncReport"]

SCHEMA_VERSION = f"4.{TOKENIZER_VERSION}"
K1 = 1.2
B = 0.75
RACY_NS = 2_000_000_000
# An entry gains this share of the best score among the entries next to it (up to this many
# entries away, the share divided by the distance); tuned on tools/bench/recall_quality.py.
NEIGHBOUR_SHARE = 0.5
NEIGHBOUR_WINDOW = 1
# The best entries whose neighbours are looked at (at least; three times the limit if more).
POOL = 24
# A query term in more than 1/COMMON of the entries is scored only on the rarer terms' best
# entries when that provably leaves the top results unchanged (``_rare_first``).
COMMON = 50
# New entries written per batch while a sync loads many (bounds the memory of a first build;
# the batches of one sync share its transaction).
BATCH = 20_000


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
CREATE TABLE entries (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, key TEXT NOT NULL, hash TEXT NOT NULL,
  text TEXT NOT NULL, terms TEXT NOT NULL, len INTEGER NOT NULL, pos INTEGER NOT NULL
);
CREATE INDEX entries_path ON entries(path, pos);
CREATE TABLE postings (
  term TEXT NOT NULL, doc INTEGER NOT NULL, tf INTEGER NOT NULL, len INTEGER NOT NULL,
  PRIMARY KEY (term, doc)
) WITHOUT ROWID;
CREATE TABLE terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
"""


def _counts(joined: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for term in joined.split(" "):
        if term:
            counts[term] = counts.get(term, 0) + 1
    return counts


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _entry_hash(entry: Entry) -> str:
    import hashlib

    raw = f"{entry.key}\0{entry.text}\0{entry.terms}\0{entry.context}".encode(
        "utf-8", "surrogatepass"
    )
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest()


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
        changed = added = removed = 0
        with self._write() as w:
            rows = self._rows(w)
            todo, stale = self._needs(rows, self._stats())
            loader: Loader | None = None
            for rel in todo:
                fresh: list[tuple[str, int, str, Entry]] = []
                result = self._refresh(w, rel, rows.get(rel), fresh)
                if result is not None:
                    changed += 1
                    removed += result
                if not fresh:
                    continue
                if loader is None:
                    # Only now the build path's imports (the cold query path never gets here).
                    from cuecard.core.recall._loader import Loader

                    loader = Loader(w, self.ranking)
                for item in fresh:
                    loader.add(*item)
                if loader.held >= BATCH:
                    added += self._flush(w, loader)
            for rel in stale:
                removed += self._drop(w, rel)
            if loader is not None:
                added += self._flush(w, loader)
        return SyncReport(changed, len(stale), added, removed, rebuilt)

    def _flush(self, w: sqlite3.Connection, loader: Loader) -> int:
        added, length = loader.flush(w)
        if added:
            self._add_stats(w, added, length)
        return added

    def _drop(self, w: sqlite3.Connection, rel: str) -> int:
        ids = [r[0] for r in w.execute("SELECT id FROM entries WHERE path = ?", (rel,))]
        self._remove(w, ids)
        w.execute("DELETE FROM files WHERE path = ?", (rel,))
        return len(ids)

    def _remove(self, w: sqlite3.Connection, ids: list[int]) -> None:
        docs = length = 0
        for ident in ids:
            row = w.execute("SELECT terms, len FROM entries WHERE id = ?", (ident,)).fetchone()
            if row is None:
                continue
            counts = _counts(row[0])
            w.executemany(
                "DELETE FROM postings WHERE term = ? AND doc = ?", [(t, ident) for t in counts]
            )
            w.executemany("UPDATE terms SET df = df - 1 WHERE term = ?", [(t,) for t in counts])
            w.execute("DELETE FROM entries WHERE id = ?", (ident,))
            docs += 1
            length += int(row[1])
        if docs:
            self._add_stats(w, -docs, -length)

    def _add_stats(self, w: sqlite3.Connection, docs: int, length: int) -> None:
        w.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'docs'", (docs,))
        w.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'length'", (length,)
        )

    def _refresh(
        self,
        w: sqlite3.Connection,
        rel: str,
        row: tuple[str, int, int, int, int, int] | None,
        fresh: list[tuple[str, int, str, Entry]],
    ) -> int | None:
        """Re-read one file: its entries that are new go to ``fresh`` (path, position, hash,
        entry), those gone are removed now; the number removed, ``None`` if unchanged."""
        path = os.path.join(self.root, rel)
        read_ns = self._now_ns()
        try:
            st = os.stat(path)
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return self._drop(w, rel) if row is not None else None
        import hashlib

        sha = hashlib.sha256(data).hexdigest()
        w.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rel, sha, *_signature(st), read_ns),
        )
        if row is not None and row[0] == sha:
            return None
        entries = self._extract(rel, data.decode("utf-8", "replace"))
        old: dict[str, list[int]] = {}
        for ident, digest in w.execute("SELECT id, hash FROM entries WHERE path = ?", (rel,)):
            old.setdefault(digest, []).append(ident)
        gone: list[int] = []
        moved: list[tuple[int, int]] = []
        for pos, entry in enumerate(entries):
            digest = _entry_hash(entry)
            kept = old.get(digest)
            if kept:
                moved.append((pos, kept.pop()))
            else:
                fresh.append((rel, pos, digest, entry))
        for ids in old.values():
            gone.extend(ids)
        self._remove(w, gone)
        w.executemany(
            "UPDATE entries SET pos = ? WHERE id = ? AND pos <> ?",
            [(pos, ident, pos) for pos, ident in moved],
        )
        return len(gone)

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
            dfs = {
                str(t): int(n)
                for t, n in conn.execute(
                    f"SELECT term, df FROM terms WHERE term IN ({marks})",  # noqa: S608
                    terms,
                )
            }
        except sqlite3.OperationalError:
            return []
        docs = int(stats.get("docs", 0))
        present = [t for t in terms if dfs.get(t, 0) > 0]
        if docs < 1 or not present:
            return []
        avgdl = max(int(stats.get("length", 0)) / docs, 1.0)
        # Okapi BM25 (the form of SQLite FTS5 and rank_bm25): per term
        # idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl)), summed in SQLite.
        part = "SELECT doc, ? * tf / (tf + ? + ? * len) AS w FROM postings WHERE term = ?"
        params: list[object] = []
        weights: dict[str, float] = {}
        for term in present:
            df = dfs[term]
            weight = max(math.log((docs - df + 0.5) / (df + 0.5)), 1e-6) * (K1 + 1)
            weights[term] = weight
            params += [weight, K1 * (1 - B), K1 * B / avgdl, term]
        share = ranking.neighbours
        pool = max(limit * 3, POOL) if share > 0 else limit
        ranked = _rare_first(conn, present, dfs, docs, weights, avgdl, limit, pool)
        if ranked is None:
            ranked = conn.execute(
                f"SELECT doc, SUM(w) AS score FROM ({' UNION ALL '.join([part] * len(present))}) "  # noqa: S608
                "GROUP BY doc ORDER BY score DESC, doc LIMIT ?",
                [*params, pool],
            ).fetchall()
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
        for doc in missing:
            own[doc] = 0.0
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            terms = list(weights)
            rows = conn.execute(
                "SELECT term, doc, tf, len FROM postings WHERE term IN "  # noqa: S608
                f"({','.join('?' * len(terms))}) AND doc IN ({','.join('?' * len(chunk))})",
                [*terms, *chunk],
            )
            for term, doc, tf, length in rows:
                own[int(doc)] += (
                    weights[str(term)] * tf / (tf + K1 * (1 - B) + K1 * B / avgdl * length)
                )
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
    """The BM25 sum of ``terms`` for each of ``ids`` (read through the postings' primary key)."""
    out: dict[int, float] = dict.fromkeys(ids, 0.0)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT term, doc, tf, len FROM postings WHERE term IN "  # noqa: S608
            f"({','.join('?' * len(terms))}) AND doc IN ({','.join('?' * len(chunk))})",
            [*terms, *chunk],
        )
        for term, doc, tf, length in rows:
            out[int(doc)] += weights[str(term)] * tf / (tf + K1 * (1 - B) + K1 * B / avgdl * length)
    return out


def _rare_first(
    conn: sqlite3.Connection,
    present: list[str],
    dfs: dict[str, int],
    docs: int,
    weights: dict[str, float],
    avgdl: float,
    limit: int,
    pool: int,
) -> list[tuple[int, float]] | None:
    """The best ``pool`` entries scored from the rare terms' postings alone, the common terms
    (in more than 1/``COMMON`` of the entries) added to the candidates only; ``None`` (scan
    everything) unless that provably gives the exact best ``limit``: no entry left out can reach
    the ``limit``-th score, since a term adds less than its weight (MaxScore)."""
    common = [t for t in present if dfs[t] * COMMON > docs]
    rare = [t for t in present if t not in common]
    if not common or not rare:
        return None
    part = "SELECT doc, ? * tf / (tf + ? + ? * len) AS w FROM postings WHERE term = ?"
    params: list[object] = []
    for term in rare:
        params += [weights[term], K1 * (1 - B), K1 * B / avgdl, term]
    take = max(pool * 2, 2 * limit)
    partial = conn.execute(
        f"SELECT doc, SUM(w) AS score FROM ({' UNION ALL '.join([part] * len(rare))}) "  # noqa: S608
        "GROUP BY doc ORDER BY score DESC, doc LIMIT ?",
        [*params, take + 1],
    ).fetchall()
    top = [(int(d), float(x)) for d, x in partial[:take]]
    beyond = float(partial[take][1]) if len(partial) > take else 0.0
    extra = _contributions(conn, common, [d for d, _ in top], weights, avgdl)
    scored = sorted(((d, x + extra[d]) for d, x in top), key=lambda pair: (-pair[1], pair[0]))
    bound = beyond + sum(weights[t] for t in common)
    if len(scored) < limit or scored[limit - 1][1] <= bound:
        return None
    return scored[:pool]
