"""The durable intake queue: SQLite in WAL mode with ``synchronous=FULL``, committed in groups.

A request is answered only after its commit returned (the WAL was fsync'd). One committer thread
gathers the rows that arrived meanwhile into one transaction, so concurrent requests share the
fsync. Applied rows keep their event id (replay detection) and drop their body.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import sqlite3
import stat
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cuecard.core.fs import crash_point
from cuecard.wp_projection._errors import PathRefused

__all__ = ["QUEUE_NAME", "DurableQueue", "QueuedEvent", "queue_counts", "recent_refusals"]

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


def _connect(path: Path) -> sqlite3.Connection:
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(os.lstat(candidate).st_mode):
                raise PathRefused(
                    f"{candidate} is a symlink; the queue is never opened through one"
                )
    if not path.exists():  # event bodies may hold private layers: owner-only, like the files
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


class DurableQueue:
    """The queue file ``<managed>/.queue.sqlite`` and its committer thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._clock = time.time
        self._conn = _connect(path)
        self._conn.executescript(_SCHEMA)
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
        conn = _connect(self.path)
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

    # -- the worker's side ---------------------------------------------------------------------

    def take(self, limit: int) -> list[QueuedEvent]:
        with self._read_lock:
            rows = self._conn.execute(
                "SELECT id, event_id, body FROM events WHERE applied_at IS NULL "
                "ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
        return [QueuedEvent(int(r[0]), str(r[1]), bytes(r[2])) for r in rows]

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


def queue_counts(path: Path) -> dict[str, int]:
    """Read-only counts for ``cuecard wp status`` (zero when there is no queue yet)."""
    if not path.is_file():
        return {"waiting": 0, "applied": 0}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        waiting, applied = conn.execute(
            "SELECT COUNT(*) - COUNT(applied_at), COUNT(applied_at) FROM events"
        ).fetchone()
    finally:
        conn.close()
    return {"waiting": int(waiting or 0), "applied": int(applied or 0)}


_RECENT = "SELECT at, status, reason, detail FROM refused ORDER BY id DESC LIMIT ?"


def _refusal_rows(rows: list[Any]) -> list[dict[str, Any]]:
    out = []
    for at, status, reason, detail in reversed(rows):
        when = datetime.fromtimestamp(float(at), UTC).isoformat(timespec="seconds")
        out.append({"at": when, "status": int(status), "reason": str(reason), **json.loads(detail)})
    return out


def recent_refusals(path: Path, limit: int = 20) -> list[dict[str, Any]]:
    """The newest refused requests, oldest first (read-only; none when there is no queue)."""
    if not path.is_file():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        try:
            rows = conn.execute(_RECENT, (limit,)).fetchall()
        except sqlite3.OperationalError:  # a queue from before refusals were kept
            return []
    finally:
        conn.close()
    return _refusal_rows(rows)
