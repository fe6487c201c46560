"""A synchronisation's changes written into the recall index (``RecallIndex.sync``'s write path).

Imported only when some file changed (the cold query path never imports it). Each changed file
is re-read and hashed; its entries that are new go to a ``Loader`` (written in batches), those
gone leave the entries table and their terms' posting blocks (each block touched rewritten once
per file), all in the caller's one transaction.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import sqlite3
from array import array
from collections.abc import Callable, Iterator

from cuecard.core.base._confined import Tree
from cuecard.core.recall._scoring import ints

TYPE_CHECKING = False
if TYPE_CHECKING:  # types only: this module imports the loader lazily
    from typing import Protocol

    from cuecard.core.recall._loader import Loader
    from cuecard.core.recall._values import Entry, Ranking

    class Indexed(Protocol):
        """What a synchronisation reads of the index it writes (a ``RecallIndex``, which
        imports this module: naming it here would close a circle)."""

        root: str
        ranking: Ranking
        _extract: Callable[[str, str], list[Entry]]
        _now_ns: Callable[[], int]

    # What ``_prepare`` gives: a file's stat signature and SHA-256 and, when its content is not
    # the one known, its entries, each with its hash.
    Prepared = tuple[tuple[int, int, int, int], str, list[tuple[Entry, str]] | None]

__all__ = ["apply_changes", "encode"]

FileRow = tuple[str, int, int, int, int, int]
Signature = Callable[[os.stat_result], tuple[int, int, int, int]]
# ``_index``'s BATCH, BLOCK and POSTINGS_HELD, read when it syncs (tests set them).
Limits = tuple[int, int, int]
# The blocks' items: native unsigned ints (4 bytes wherever CPython runs; ``_scoring.ints``
# decodes them, ``_loader`` writes them).
TYPECODE = "I"


def encode(values: list[int]) -> bytes:
    """``values`` as a posting block's column (native 4-byte unsigned integers)."""
    return array(TYPECODE, values).tobytes()


def apply_changes(
    index: Indexed,
    w: sqlite3.Connection,
    rows: dict[str, FileRow],
    todo: list[str],
    stale: list[str],
    signature: Signature,
    limits: Limits,
) -> tuple[int, int, int]:
    """Re-read ``todo`` and drop ``stale`` in ``w``'s transaction: the files changed, the
    entries added and the entries removed (``signature``: what of a file's stat tells a change;
    ``limits``: see ``Limits``)."""
    changed = added = removed = 0
    loader: Loader | None = None
    batch, block, held = limits
    with _collector_paused():
        for rel, read_ns, got in _prepared(index, rows, todo, signature):
            fresh: list[tuple[str, int, str, Entry]] = []
            result = _apply(w, rel, rows.get(rel), read_ns, got, fresh)
            if result is not None:
                changed += 1
                removed += result
            if not fresh:
                continue
            if loader is None:
                from cuecard.core.recall._loader import Loader

                loader = Loader(w, index.ranking, block=block, held=held)
            loader.add(fresh)
            if loader.held >= batch:
                added += _flush(w, loader, last=False)
        for rel in stale:
            removed += _drop(w, rel)
        if loader is not None:
            added += _flush(w, loader, last=True)
    return changed, added, removed


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off, then as it was (a caller that turned it off keeps it
    off). A build allocates millions of objects and keeps most of them to its end, none in a
    cycle: the collector, run every few hundred allocations, would walk them again and again
    for nothing (0.4-0.6 s of a 100,000-line first build)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _prepared(
    index: Indexed, rows: dict[str, FileRow], todo: list[str], signature: Signature
) -> Iterator[tuple[str, int, Prepared | None]]:
    """Each of ``todo`` read (and extracted, when changed), in order, with the time taken just
    before it was read."""
    tree = Tree(index.root)
    for rel in todo:
        read_ns = index._now_ns()
        known = rows[rel][0] if rel in rows else None
        yield rel, read_ns, _prepare(tree, rel, known, index._extract, signature)


def _prepare(
    tree: Tree,
    rel: str,
    known: str | None,
    extract: Callable[[str, str], list[Entry]],
    signature: Signature,
) -> Prepared | None:
    """Read ``rel`` of ``tree`` (by descriptor: no link followed, no FIFO or device opened) and,
    unless its SHA-256 is ``known``, extract its entries; ``None`` if it cannot be read."""
    try:
        handle = tree.open_read(rel)
    except OSError:
        return None
    try:
        st = os.fstat(handle)
        chunks = []
        while chunk := os.read(handle, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(handle)
    sha = hashlib.sha256(data).hexdigest()
    if sha == known:
        return signature(st), sha, None
    entries = extract(rel, data.decode("utf-8", "replace"))
    return signature(st), sha, [(e, _entry_hash(e)) for e in entries]


def _entry_hash(entry: Entry) -> str:
    raw = f"{entry.key}\0{entry.text}\0{entry.terms}\0{entry.context}".encode(
        "utf-8", "surrogatepass"
    )
    return hashlib.sha1(raw, usedforsecurity=False).hexdigest()


def _flush(w: sqlite3.Connection, loader: Loader, *, last: bool) -> int:
    added, length = loader.flush(w, last=last)
    if added:
        _add_stats(w, added, length)
    return added


def _drop(w: sqlite3.Connection, rel: str) -> int:
    ids = [r[0] for r in w.execute("SELECT id FROM entries WHERE path = ?", (rel,))]
    _remove(w, ids)
    w.execute("DELETE FROM files WHERE path = ?", (rel,))
    return len(ids)


def _remove(w: sqlite3.Connection, ids: list[int]) -> None:
    """Remove entries ``ids``: their rows, their document frequencies and their postings (each
    block they are in rewritten once, or deleted when nothing is left in it)."""
    docs = length = 0
    terms: dict[str, list[int]] = {}
    for ident in ids:
        row = w.execute("SELECT terms, len FROM entries WHERE id = ?", (ident,)).fetchone()
        if row is None:
            continue
        for term in set(str(row[0]).split(" ")):
            if term:
                terms.setdefault(term, []).append(ident)
        w.execute("DELETE FROM entries WHERE id = ?", (ident,))
        docs += 1
        length += int(row[1])
    # Each term's counts (its last block's), read before any block changes: written again in
    # the last block left, whichever that is then.
    counts: dict[str, tuple[int, int, int]] = {}
    for term in terms:
        row = w.execute(
            "SELECT df, tf_max, len_min FROM postings WHERE term = ? AND df IS NOT NULL", (term,)
        ).fetchone()
        if row is not None:
            counts[term] = (int(row[0]), int(row[1]), int(row[2]))
    blocks: dict[tuple[str, int], set[int]] = {}
    for term, held in terms.items():
        for ident in held:
            found = w.execute(
                "SELECT first FROM postings WHERE term = ? AND first <= ? "
                "ORDER BY first DESC LIMIT 1",
                (term, ident),
            ).fetchone()
            if found is not None:
                blocks.setdefault((term, int(found[0])), set()).add(ident)
    for (term, first), gone in sorted(blocks.items()):
        columns = [
            ints(column)
            for column in w.execute(
                "SELECT docs, tfs, lens FROM postings WHERE term = ? AND first = ?", (term, first)
            ).fetchone()
        ]
        keep = [i for i, doc in enumerate(columns[0]) if doc not in gone]
        if keep:
            # A block's key is its first entry: it moves up when that one left.
            w.execute(
                "UPDATE postings SET first = ?, docs = ?, tfs = ?, lens = ? "
                "WHERE term = ? AND first = ?",
                (
                    columns[0][keep[0]],
                    *(encode([column[i] for i in keep]) for column in columns),
                    term,
                    first,
                ),
            )
        else:
            w.execute("DELETE FROM postings WHERE term = ? AND first = ?", (term, first))
    w.executemany(
        "UPDATE postings SET df = ?, tf_max = ?, len_min = ? WHERE term = ? AND first = "
        "(SELECT max(first) FROM postings WHERE term = ?)",
        [(counts[t][0] - len(n), *counts[t][1:], t, t) for t, n in terms.items() if t in counts],
    )
    if docs:
        _add_stats(w, -docs, -length)


def _add_stats(w: sqlite3.Connection, docs: int, length: int) -> None:
    w.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'docs'", (docs,))
    w.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'length'", (length,))


def _apply(
    w: sqlite3.Connection,
    rel: str,
    row: FileRow | None,
    read_ns: int,
    got: Prepared | None,
    fresh: list[tuple[str, int, str, Entry]],
) -> int | None:
    """Apply one file as ``_prepare`` read it: its entries that are new go to ``fresh`` (path,
    position, hash, entry), those gone are removed now; the number removed, ``None`` if
    unchanged."""
    if got is None:
        return _drop(w, rel) if row is not None else None
    signature, sha, entries = got
    w.execute(
        "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)", (rel, sha, *signature, read_ns)
    )
    if entries is None or (row is not None and row[0] == sha):
        return None
    old: dict[str, list[int]] = {}
    for ident, digest in w.execute("SELECT id, hash FROM entries WHERE path = ?", (rel,)):
        old.setdefault(digest, []).append(ident)
    gone: list[int] = []
    moved: list[tuple[int, int]] = []
    for pos, (entry, digest) in enumerate(entries):
        kept = old.get(digest)
        if kept:
            moved.append((pos, kept.pop()))
        else:
            fresh.append((rel, pos, digest, entry))
    for ids in old.values():
        gone.extend(ids)
    _remove(w, gone)
    w.executemany(
        "UPDATE entries SET pos = ? WHERE id = ? AND pos <> ?",
        [(pos, ident, pos) for pos, ident in moved],
    )
    return len(gone)
