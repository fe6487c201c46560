"""Session history: live session files summarised, rolled up into ``local/telemetry.sqlite``.

The hooks leave, under ``.cuecard/local/``, one folder per session (``sessions/<session>/``: the
footprint and the ledger's claims), one line per delivery in ``ledger.jsonl`` and one line per
ingestion in ``telemetry/inbox.jsonl``. Maintenance rolls them up: each session folder becomes one
row of summary (what it touched, what it asked, its corrections), each JSON line one row, and a
session folder is pruned once it has been idle for ``PRUNE_AFTER`` seconds. ``History`` reads the
database and the files not rolled up yet together, so health sees the whole past either way.

A JSON-lines file is rolled up by renaming it aside first (``<name>.<batch>.rolling``): a hook
appending at the same moment opens the new file, so no line is lost, and rows are keyed by batch
and line number, so an interrupted roll-up repeated later inserts nothing twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import Tree, settled
from cuecard.core.base._database import connect_database
from cuecard.core.base._fsio import crash_point

__all__ = [
    "PRUNE_AFTER",
    "History",
    "Telemetry",
    "delivery_history",
    "read_history",
    "session_folders",
    "summarise_session",
]

PRUNE_AFTER = 7 * 24 * 3600
_MAX_PATHS = 5_000
_MAX_TIMES = 32
_MAX_WORDS = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    name TEXT PRIMARY KEY, first_t REAL, last_t REAL, summary TEXT NOT NULL, rolled_at REAL
);
CREATE TABLE IF NOT EXISTS deliveries (
    hash TEXT PRIMARY KEY, t REAL, session TEXT, line TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ingestions (
    hash TEXT PRIMARY KEY, t REAL, line TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (t REAL PRIMARY KEY, report TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS deliveries_t ON deliveries (t);
"""


def _local(local_dir: Path) -> tuple[Tree, str]:
    """The tree ``local_dir`` (a store's ``.cuecard/local``) is reached through, based at the
    project root, and its path in it: no folder from the root down is followed as a link."""
    return Tree(local_dir.parent.parent), f"{local_dir.parent.name}/{local_dir.name}"


def _lines(tree: Tree, rel: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` per JSON object line of ``rel``; other lines are skipped."""
    try:
        fd = tree.open_read(rel)  # never a link, and never blocks on a FIFO
    except OSError:
        return
    try:
        with os.fdopen(fd, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield number, record
    except OSError:
        return


def _rolling(tree: Tree, rel: str) -> list[tuple[str, str]]:
    """The renamed-aside batches of ``rel``: ``(batch id, file)``, oldest name first (regular
    files only)."""
    folder, _, name = rel.rpartition("/")
    prefix, suffix = name + ".", ".rolling"
    try:
        entries = tree.entries(folder)
    except OSError:
        return []
    return sorted(
        (entry[len(prefix) : -len(suffix)], f"{folder}/{entry}")
        for entry, kind in entries
        if kind == "file"
        and entry.startswith(prefix)
        and entry.endswith(suffix)
        and len(entry) >= len(prefix) + len(suffix)
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def session_folders(local_dir: Path) -> list[Path]:
    """The session folders under ``local_dir/sessions`` (a link, at any depth, is not
    followed: none when a folder on the way is one)."""
    tree, rel = _local(local_dir)
    try:
        entries = tree.entries(f"{rel}/sessions")
    except OSError:
        return []
    return [local_dir / "sessions" / name for name, kind in entries if kind == "dir"]


def _last_activity(tree: Tree, rel: str, depth: int = 0) -> float:
    """The latest modification time of the entries under folder ``rel``, by descriptor. A file
    with more than one name (the marker and the claims: each a name of the one file
    ``MARK_SOURCE``) is left aside: its time is that file's; the time of the folder it was
    added to says when."""
    latest = 0.0
    if depth > 32:  # deeper than cuecard makes a folder
        return latest
    try:
        entries = tree.entries(rel)
        with tree.folder(rel) as fd:
            for name, _kind in entries:
                with contextlib.suppress(OSError):
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if not (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
                        latest = max(latest, st.st_mtime)
    except OSError:
        return latest
    for name, kind in entries:
        if kind == "dir":
            latest = max(latest, _last_activity(tree, f"{rel}/{name}", depth + 1))
    return latest


def summarise_session(folder: Path) -> dict[str, Any]:
    """One session folder as a summary: times, touched paths by kind, writes, asks, corrections."""
    touched: dict[str, set[str]] = {}
    writes: dict[str, list[float]] = {}
    commands: list[str] = []
    symbols: list[str] = []
    times: list[float] = []
    asks = corrections = calls = 0
    tree, local = _local(folder.parent.parent)
    rel = f"{local}/sessions/{folder.name}"
    for _key, record in _lines(tree, f"{rel}/footprint.jsonl"):
        t = _number(record.get("t"))
        if t is not None:
            times.append(t)
        kind = record.get("e")
        if kind == "prompt" and record.get("correction"):
            corrections += 1
        elif kind == "stop" and record.get("asked"):
            asks += 1
        elif kind == "tool":
            calls += 1
            event = str(record.get("kind", ""))[:10]
            for path in record.get("paths") or []:
                if isinstance(path, str) and (path in touched or len(touched) < _MAX_PATHS):
                    touched.setdefault(path, set()).add(event)
                    if event in ("edit", "write") and t is not None:
                        writes.setdefault(path, []).append(t)
            command = record.get("command")
            if isinstance(command, str) and command.strip() and len(commands) < _MAX_WORDS:
                words = " ".join(command.split()[:3])
                if words not in commands:
                    commands.append(words)
            for symbol in record.get("symbols") or []:
                if isinstance(symbol, str) and symbol not in symbols and len(symbols) < _MAX_WORDS:
                    symbols.append(symbol)
    last = max([*times, _last_activity(tree, rel)], default=0.0)
    return {
        "session": folder.name,
        "first_t": min(times) if times else None,
        "last_t": last,
        "touched": {p: sorted(k) for p, k in sorted(touched.items())},
        "writes": {p: ts[-_MAX_TIMES:] for p, ts in sorted(writes.items())},
        "commands": commands,
        "symbols": symbols,
        "asks": asks,
        "corrections": corrections,
        "tool_calls": calls,
    }


class Telemetry:
    """The roll-up database ``local/telemetry.sqlite`` (its folder reached through the
    project's tree, the files beside it too)."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.tree, self.local = _local(path.parent)
        rel = f"{self.local}/{path.name}"
        # opened through the layer: no link at any depth, and the file SQLite opens is the one
        # the layer proved
        self.conn = connect_database(self.tree, rel, readonly=readonly, timeout=30)
        if not readonly:
            try:
                self.conn.executescript(_SCHEMA)
            except sqlite3.DatabaseError:
                # A damaged database is set aside (kept, never deleted) and a new one begun.
                self.conn.close()
                self.tree.move(rel, f"{rel}.damaged-{uuid.uuid4().hex[:8]}")
                self.conn = connect_database(self.tree, rel, timeout=30)
                self.conn.executescript(_SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Telemetry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ----------------------------------------------------------------------------------

    def put_session(self, summary: dict[str, Any], rolled_at: float) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO sessions (name, first_t, last_t, summary, rolled_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                summary["session"],
                summary["first_t"],
                summary["last_t"],
                json.dumps(summary, separators=(",", ":")),
                rolled_at,
            ),
        )

    def commit(self) -> None:
        self.conn.commit()

    def drain(self, name: str, table: str) -> int:
        """Move the lines of ``name`` (``ledger.jsonl`` or ``telemetry/inbox.jsonl``, in the
        database's folder) into ``table``.

        The file is first renamed to ``<name>.<batch>.rolling``; rows are keyed by batch and
        line number, so a batch left behind by an interrupted run is inserted once, later.
        """
        tree, rel = self.tree, f"{self.local}/{name}"
        if tree.is_file(rel):
            tree.move(rel, f"{rel}.{uuid.uuid4().hex}.rolling")
        moved = 0
        for batch, rolling in _rolling(tree, rel):
            settled(tree, rolling)  # every append that began before the rename has written
            rows: list[tuple[Any, ...]] = []
            for number, record in _lines(tree, rolling):
                key = f"{batch}:{number}"
                t = _number(record.get("t"))
                line = json.dumps(record, separators=(",", ":"))
                if table == "deliveries":
                    rows.append((key, t, str(record.get("session", "")), line))
                else:
                    rows.append((key, t, line))
            marks = "?, ?, ?, ?" if table == "deliveries" else "?, ?, ?"
            cursor = self.conn.executemany(
                f"INSERT OR IGNORE INTO {table} VALUES ({marks})",  # noqa: S608 - fixed names
                rows,
            )
            self.conn.commit()
            moved += max(cursor.rowcount, 0)
            crash_point("telemetry-drained")
            tree.remove(rolling)
        return moved

    def record_run(self, t: float, report: dict[str, Any]) -> None:
        self.conn.execute("INSERT OR REPLACE INTO runs VALUES (?, ?)", (t, json.dumps(report)))
        self.conn.commit()

    # -- reading ----------------------------------------------------------------------------------

    def sessions(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, summary in self.conn.execute("SELECT name, summary FROM sessions"):
            with contextlib.suppress(ValueError):
                out[str(name)] = json.loads(summary)
        return out

    def lines(self, table: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        query = f"SELECT hash, line FROM {table}"  # noqa: S608 - fixed names
        for digest, line in self.conn.execute(query):
            with contextlib.suppress(ValueError):
                out[str(digest)] = json.loads(line)
        return out


@dataclass
class History:
    """Everything recorded about past sessions, rolled up or not."""

    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Session summaries by folder name (see ``summarise_session``)."""
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    """Ledger lines, oldest first."""
    ingestions: list[dict[str, Any]] = field(default_factory=list)
    """Ingestion telemetry lines, oldest first."""
    unreadable: list[str] = field(default_factory=list)
    """What could not be read (a damaged ``telemetry.sqlite``), one sentence each: the history
    above lacks it until ``cuecard maintain`` sets the file aside."""


def _jsonl_records(tree: Tree, rel: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for batch, rolling in _rolling(tree, rel):
        for number, record in _lines(tree, rolling):
            out[f"{batch}:{number}"] = record
    for number, record in _lines(tree, rel):
        out[f"live:{number}"] = record
    return out


def _when(record: dict[str, Any]) -> float:
    return _number(record.get("t")) or 0.0


def _rolled_up(
    local_dir: Path, tables: tuple[str, ...], *, sessions: History | None = None
) -> list[dict[str, dict[str, Any]]]:
    """Each table's rows in ``local_dir/telemetry.sqlite`` (and its sessions into ``sessions``)."""
    out: list[dict[str, dict[str, Any]]] = [{} for _ in tables]
    database = local_dir / "telemetry.sqlite"
    tree, local = _local(local_dir)
    if tree.is_file(f"{local}/telemetry.sqlite"):
        try:
            with Telemetry(database, readonly=True) as db:
                if sessions is not None:
                    sessions.sessions.update(db.sessions())
                for rows, table in zip(out, tables, strict=True):
                    rows.update(db.lines(table))
        except sqlite3.Error as exc:
            if sessions is not None:
                sessions.unreadable.append(
                    f"{database.name} is unreadable ({exc}): the rolled-up history is left out; "
                    "`cuecard maintain` sets the file aside and starts a new one"
                )
    return out


def delivery_history(local_dir: Path) -> list[dict[str, Any]]:
    """Every delivery recorded in ``local_dir`` (``.cuecard/local``), oldest first: what
    maintenance rolled up into ``telemetry.sqlite`` and the ledger lines since. The one source of
    delivery history for health, doctor and the review UI; creates nothing."""
    (rows,) = _rolled_up(local_dir, ("deliveries",))
    tree, local = _local(local_dir)
    rows.update(_jsonl_records(tree, f"{local}/ledger.jsonl"))
    return sorted(rows.values(), key=_when)


def read_history(local_dir: Path) -> History:
    """The database and the files not rolled up yet, merged (the deliveries are
    ``delivery_history``'s); creates nothing."""
    history = History()
    (ingestions,) = _rolled_up(local_dir, ("ingestions",), sessions=history)
    for folder in session_folders(local_dir):
        history.sessions[folder.name] = summarise_session(folder)
    tree, local = _local(local_dir)
    ingestions.update(_jsonl_records(tree, f"{local}/telemetry/inbox.jsonl"))
    history.deliveries = delivery_history(local_dir)
    history.ingestions = sorted(ingestions.values(), key=_when)
    return history
