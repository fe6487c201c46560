"""The durable intake queue: SQLite in WAL mode with ``synchronous=FULL``, committed in groups.

A request is answered only after its commit returned (the WAL was fsync'd). One committer thread
gathers the rows that arrived meanwhile into one transaction, so concurrent requests share the
fsync. Applied rows keep their event id (replay detection) and drop their body.
"""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cuecard.core.fs import crash_point

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.wp_projection._safefs import Database

__all__ = [
    "QUEUE_NAME",
    "DurableQueue",
    "QueuedEvent",
    "Retry",
    "queue_counts",
    "recent_refusals",
    "retrying_events",
]

QUEUE_NAME = ".queue.sqlite"
KEEP_APPLIED_S = 7 * 24 * 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  site TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body BLOB,
  received_at REAL NOT NULL,
  applied_at REAL
);
CREATE INDEX IF NOT EXISTS events_waiting ON events (id) WHERE applied_at IS NULL;
CREATE TABLE IF NOT EXISTS refused (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at REAL NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL
);
"""
KEEP_REFUSED = 200
"""Refused requests remembered for ``cuecard wp status`` (the newest)."""


_Item = tuple[str, Any, "Future[bool]"]


@dataclass(frozen=True)
class QueuedEvent:
    id: int
    event_id: str
    body: bytes
    attempts: int = 0
    """Failed attempts to apply it so far."""


_RETRY_COLUMNS = {
    "attempts": "INTEGER NOT NULL DEFAULT 0",
    "next_at": "REAL",
    "last_error": "TEXT",
}
"""Per event: failed attempts to apply it, when the next one is due, and why the last failed
(added to a queue file from before they existed)."""


def _add_retry_columns(conn: sqlite3.Connection) -> None:
    have = {str(row[1]) for row in conn.execute("PRAGMA table_info(events)")}
    for name, kind in _RETRY_COLUMNS.items():
        if name not in have:
            conn.execute(f"ALTER TABLE events ADD COLUMN {name} {kind}")


@dataclass(frozen=True)
class Retry:
    """An event that failed to apply: try again at ``next_at``, or give it up."""

    id: int
    attempts: int
    error: str
    next_at: float | None
    """``None``: the attempts are spent; the event is given up and recorded as refused."""
    detail: dict[str, Any]
    """What the envelope named, for the refusal record."""


def _connect(database: Database) -> sqlite3.Connection:
    """A connection to the queue ``SafeRoot.database`` gave: it made the file owner-only (event
    bodies may hold private layers); the connection is made through the confined layer (no
    link followed at any depth, the file SQLite opened proved the one checked)."""
    conn = database.connect(timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


class DurableQueue:
    """The queue file ``<managed>/.queue.sqlite`` (``SafeRoot.database``) and its committer
    thread."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.path = database.path
        self._clock = time.time
        self._conn = _connect(database)
        self._conn.executescript(_SCHEMA)
        _add_retry_columns(self._conn)
        self._read_lock = threading.Lock()
        self._inbox: queue.Queue[_Item | None] = queue.Queue()
        self.wakeup = threading.Event()
        self._thread: threading.Thread | None = None

    # -- intake --------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._commit_loop, name="cuecard-wp-queue", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._inbox.put(None)
            self._thread.join()
            self._thread = None

    def submit(self, event_id: str, site: str, seq: int, body: bytes) -> Future[bool]:
        """Queue an event; the future says ``True`` once durable, ``False`` for a replayed id."""
        future: Future[bool] = Future()
        self._inbox.put(("insert", (event_id, site, seq, body), future))
        return future

    def note_refusal(self, status: int, reason: str, detail: dict[str, Any]) -> Future[bool]:
        """Remember a refused request (status, reason, what the envelope named) for status."""
        future: Future[bool] = Future()
        self._inbox.put(("refused", (status, reason, json.dumps(detail)), future))
        return future

    def refusals(self, limit: int = 20) -> list[dict[str, Any]]:
        with self._read_lock:
            rows = self._conn.execute(_RECENT, (limit,)).fetchall()
        return _refusal_rows(rows)

    def _commit_loop(self) -> None:
        # One connection writes everything (inserts and applied marks), so writers never wait
        # on SQLite's busy handler; what arrived meanwhile shares one commit and one fsync.
        conn = _connect(self.database)
        try:
            while True:
                first = self._inbox.get()
                if first is None:
                    return
                batch = [first]
                stop = False
                while len(batch) < 512:
                    try:
                        item = self._inbox.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        stop = True
                        break
                    batch.append(item)
                try:
                    results = self._write(conn, batch)
                except Exception as exc:  # the requests see the failure as a 503
                    for _, _, future in batch:
                        future.set_exception(exc)
                else:
                    crash_point("wp-queued")
                    inserted = False
                    for (kind, _, future), result in zip(batch, results, strict=True):
                        inserted = inserted or (kind == "insert" and result)
                        future.set_result(result)
                    if inserted:
                        self.wakeup.set()
                if stop:
                    return
        finally:
            conn.close()

    def _write(self, conn: sqlite3.Connection, batch: list[_Item]) -> list[bool]:
        now = self._clock()
        results = []
        conn.execute("BEGIN IMMEDIATE")
        try:
            for kind, payload, _ in batch:
                if kind == "insert":
                    event_id, site, seq, body = payload
                    cur = conn.execute(
                        "INSERT OR IGNORE INTO events (event_id, site, seq, body, received_at) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (event_id, site, seq, body, now),
                    )
                    results.append(cur.rowcount == 1)
                elif kind == "refused":
                    status, reason, detail = payload
                    conn.execute(
                        "INSERT INTO refused (at, status, reason, detail) VALUES (?, ?, ?, ?)",
                        (now, status, reason, detail),
                    )
                    conn.execute(
                        "DELETE FROM refused WHERE id <= (SELECT MAX(id) FROM refused) - ?",
                        (KEEP_REFUSED,),
                    )
                    results.append(True)
                elif kind == "retry":
                    for item in payload:
                        self._retry(conn, item, now)
                    results.append(True)
                else:
                    conn.executemany(
                        "UPDATE events SET applied_at = ?, body = NULL WHERE id = ?",
                        [(now, i) for i in payload],
                    )
                    conn.execute(
                        "DELETE FROM events WHERE applied_at IS NOT NULL AND applied_at < ?",
                        (now - KEEP_APPLIED_S,),
                    )
                    results.append(True)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return results

    @staticmethod
    def _retry(conn: sqlite3.Connection, item: Retry, now: float) -> None:
        if item.next_at is not None:
            conn.execute(
                "UPDATE events SET attempts = ?, next_at = ?, last_error = ? WHERE id = ?",
                (item.attempts, item.next_at, item.error[:1000], item.id),
            )
            return
        # Given up: it leaves the queue (later events were never held by it) for the refused list.
        conn.execute(
            "UPDATE events SET applied_at = ?, body = NULL, attempts = ?, last_error = ? "
            "WHERE id = ?",
            (now, item.attempts, item.error[:1000], item.id),
        )
        reason = f"not applied after {item.attempts} attempts: {item.error}"[:1000]
        detail = {**item.detail, "stage": "apply", "attempts": item.attempts}
        conn.execute(
            "INSERT INTO refused (at, status, reason, detail) VALUES (?, 0, ?, ?)",
            (now, reason, json.dumps(detail)),
        )
        conn.execute(
            "DELETE FROM refused WHERE id <= (SELECT MAX(id) FROM refused) - ?", (KEEP_REFUSED,)
        )

    # -- the worker's side ---------------------------------------------------------------------

    def take(self, limit: int, now: float | None = None) -> list[QueuedEvent]:
        """The oldest events due (an event waiting for its retry is not, until ``next_at``)."""
        at = self._clock() if now is None else now
        with self._read_lock:
            rows = self._conn.execute(
                "SELECT id, event_id, body, attempts FROM events WHERE applied_at IS NULL "
                "AND (next_at IS NULL OR next_at <= ?) ORDER BY id LIMIT ?",
                (at, limit),
            ).fetchall()
        return [QueuedEvent(int(r[0]), str(r[1]), bytes(r[2]), int(r[3])) for r in rows]

    def retry(self, items: list[Retry]) -> None:
        """Record failed attempts (through the committer's connection); returns once durable."""
        if items:
            future: Future[bool] = Future()
            self._inbox.put(("retry", list(items), future))
            future.result()

    def retrying(self, limit: int = 20) -> list[dict[str, Any]]:
        """Events waiting for another attempt, oldest first."""
        with self._read_lock:
            rows = self._conn.execute(_RETRYING, (limit,)).fetchall()
        return _retrying_rows(rows)

    def done(self, ids: list[int]) -> None:
        """Mark events applied (through the committer's connection); returns once durable."""
        if ids:
            future: Future[bool] = Future()
            self._inbox.put(("done", list(ids), future))
            future.result()

    def counts(self) -> dict[str, int]:
        with self._read_lock:
            waiting, applied = self._conn.execute(
                "SELECT COUNT(*) - COUNT(applied_at), COUNT(applied_at) FROM events"
            ).fetchone()
        return {"waiting": int(waiting), "applied": int(applied)}

    def close(self) -> None:
        self.stop()
        with self._read_lock:
            self._conn.close()


def queue_counts(database: Database | None) -> dict[str, int]:
    """Read-only counts for ``cuecard wp status`` (zero when there is no queue yet) of the
    queue ``database`` (``SafeRoot.existing_database``)."""
    if database is None:
        return {"waiting": 0, "applied": 0}
    conn = database.connect(readonly=True, timeout=10)
    try:
        waiting, applied = conn.execute(
            "SELECT COUNT(*) - COUNT(applied_at), COUNT(applied_at) FROM events"
        ).fetchone()
    finally:
        conn.close()
    return {"waiting": int(waiting or 0), "applied": int(applied or 0)}


_RECENT = "SELECT at, status, reason, detail FROM refused ORDER BY id DESC LIMIT ?"
_RETRYING = (
    "SELECT event_id, seq, attempts, next_at, last_error FROM events "
    "WHERE applied_at IS NULL AND attempts > 0 ORDER BY id LIMIT ?"
)


def _retrying_rows(rows: list[Any]) -> list[dict[str, Any]]:
    out = []
    for event_id, seq, attempts, next_at, error in rows:
        due = datetime.fromtimestamp(float(next_at or 0), UTC).isoformat(timespec="seconds")
        out.append(
            {
                "event_id": str(event_id),
                "seq": int(seq),
                "attempts": int(attempts),
                "next_attempt_at": due,
                "last_error": str(error or ""),
            }
        )
    return out


def _read_only(database: Database | None, query: str, limit: int) -> list[Any]:
    """The rows of ``query`` over the queue ``database`` (``SafeRoot.existing_database``),
    opened read-only; none when there is no queue, or when it is from a version that did not
    keep that table."""
    if database is None:
        return []
    conn = database.connect(readonly=True, timeout=10)
    try:
        return conn.execute(query, (limit,)).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def retrying_events(database: Database | None, limit: int = 20) -> list[dict[str, Any]]:
    """Events waiting for another attempt (read-only; none when there is no queue)."""
    return _retrying_rows(_read_only(database, _RETRYING, limit))


def _refusal_rows(rows: list[Any]) -> list[dict[str, Any]]:
    out = []
    for at, status, reason, detail in reversed(rows):
        when = datetime.fromtimestamp(float(at), UTC).isoformat(timespec="seconds")
        out.append({"at": when, "status": int(status), "reason": str(reason), **json.loads(detail)})
    return out


def recent_refusals(database: Database | None, limit: int = 20) -> list[dict[str, Any]]:
    """The newest refused requests, oldest first (read-only; none when there is no queue)."""
    return _refusal_rows(_read_only(database, _RECENT, limit))
