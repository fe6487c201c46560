"""Hybrid search on a PostgreSQL vault: the database's own ranking fused with local streams.

The streams, fused by the folder vault's weighted RRF (``recall._fusion``) with the same
``[recall]`` settings and the same output:

- ``bm25`` (the lexical stream): PostgreSQL's full-text ranking with BM25 idf and ``pg_trgm``
  (``_search.rank``), run in the database. Its weight is ``recall.weights.bm25``.
- ``graph`` and ``vectors``: the concept graph and (with ``cuecard-core[vectors]``) local
  vectors, computed on this machine over a *mirror* of the database's active facts: one small
  file per note (JSON lines of fact id, shown line and redacted text) in this machine's cache
  folder for the vault URL, indexed by the same ``RecallIndex`` the folder vault uses. The graph
  reads that index's postings, as on a folder vault; vectors are kept by content hash in
  ``vectors.sqlite3`` beside it, so only facts not embedded before are embedded.

Keeping the mirror cheap: each hybrid search first reads the database's generation number of
the searchable facts (one row: a statement-level trigger bumps it on every insert, delete or
change of a fact's note, id, line, text, shown line or status, whoever writes; recording uses
does not). Only when it differs from the one stored with the mirror are the active facts
fetched (note, id, shown line, text; nothing else) and the notes that changed rewritten; the
index then re-reads only those. The generation is read before the fetch, so the stored one is
never newer than the mirror (a write in between only costs one more fetch).

Plain BM25 mode (without ``--explain``) never comes here: the cold search path stays lean.
"""

from __future__ import annotations

import os

from cuecard.core.recall._index import Entry, RecallIndex
from cuecard.core.vault._results import Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._settings import Settings
    from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["LEXICAL", "mirror_index", "pg_cache_dir", "pg_hybrid_results"]

# Version of the mirror's file format and extraction: a change rebuilds the local index.
RULES = "pg-mirror-1"
LEXICAL = "Okapi BM25 computed in PostgreSQL over full-text matches, CJK bigrams and pg_trgm"

_GENERATION = "SELECT n FROM cuecard_generation"
_ACTIVE = (
    "SELECT note, id, shown, text FROM cuecard_facts WHERE status = 'active' "
    "ORDER BY note, position"
)


def pg_cache_dir(url: str) -> str:
    """This machine's folder of derived data for the vault at ``url`` (keyed as the folder
    vault keys its cache: a readable name and 64 bits of checksums of the URL)."""
    import zlib
    from urllib.parse import urlsplit

    from cuecard.core.vault._location import cache_home

    raw = url.encode("utf-8", "surrogateescape")
    try:
        parts = urlsplit(url)
        label = f"{parts.hostname or 'local'}-{parts.path.lstrip('/')}"
    except ValueError:
        label = "postgresql"
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return os.path.join(cache_home(), "vaults", f"pg-{name[:40]}-{key}")


# -- the mirror ---------------------------------------------------------------------------------


def _file_name(note: str) -> str:
    """A note's mirror file: its name percent-encoded (no ``/``, no leading dot), ``.md``."""
    from urllib.parse import quote

    return quote(note, safe="-_") + ".md"


def _note_path(file_name: str) -> str:
    """The result path (the note's folder file name, as ``_search.rank`` gives) of a mirror
    file."""
    from urllib.parse import unquote

    from cuecard.core.vault.postgres._notes import note_file_name

    return note_file_name(unquote(file_name[:-3]))


def _extract(rel: str, text: str) -> list[Entry]:
    import json

    entries = []
    for line in text.split("\n"):
        try:
            ident, shown, terms = json.loads(line)
        except (ValueError, TypeError):
            continue
        entries.append(Entry(str(ident), str(shown), str(terms)))
    return entries


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _refresh_mirror(vault: PgVault, mirror: str) -> int:
    """Rewrite the notes whose facts changed, drop the notes that have none left; the number
    of active facts fetched."""
    import json
    from pathlib import Path

    from cuecard.core._fsio import atomic_write

    with vault.conn.transaction():
        rows = vault.conn.execute(_ACTIVE).fetchall()
    notes: dict[str, list[str]] = {}
    for note, ident, shown, text in rows:
        notes.setdefault(_file_name(str(note)), []).append(
            json.dumps([str(ident), str(shown), str(text)])
        )
    os.makedirs(mirror, exist_ok=True)
    for name, lines in notes.items():
        data = "\n".join(lines) + "\n"
        path = os.path.join(mirror, name)
        if _read(path) != data:
            atomic_write(Path(path), data)
    for name in os.listdir(mirror):
        if name.endswith(".md") and name not in notes:
            os.remove(os.path.join(mirror, name))
    return len(rows)


def mirror_index(vault: PgVault) -> tuple[RecallIndex, dict[str, object]]:
    """The local recall index over the vault's active facts, brought up to date (see the module
    docstring), and what that took (facts held, whether they were fetched now)."""
    from pathlib import Path

    from cuecard.core._fsio import atomic_write, locked

    base = pg_cache_dir(vault.url)
    mirror = os.path.join(base, "mirror")
    stamp = os.path.join(base, "mirror.fingerprint")
    os.makedirs(base, exist_ok=True)
    with vault.conn.transaction():
        row = vault.conn.execute(_GENERATION).fetchone()
    assert row is not None
    generation = f"{RULES} {vault.url} generation {row[0]}"
    fetched = False
    held = _read(stamp) or ""
    if not os.path.isdir(mirror) or not held.startswith(generation + " facts "):
        with locked(Path(base) / "mirror.lock"):
            held = _read(stamp) or ""
            if not os.path.isdir(mirror) or not held.startswith(generation + " facts "):
                count = _refresh_mirror(vault, mirror)
                held = f"{generation} facts {count}"
                atomic_write(Path(stamp), held)
                fetched = True

    def files() -> list[str]:
        try:
            return sorted(n for n in os.listdir(mirror) if n.endswith(".md"))
        except OSError:
            return []

    index = RecallIndex(os.path.join(base, "recall.sqlite3"), mirror, files, _extract, rules=RULES)
    index.sync()
    return index, {"facts": int(held.rsplit(" ", 1)[1]), "fetched": fetched}


# -- search -------------------------------------------------------------------------------------


def pg_hybrid_results(
    vault: PgVault, query: str, limit: int, settings: Settings, *, vectors: bool
) -> tuple[list[Result], dict[str, object]]:
    """The fused results for ``query`` on a PostgreSQL vault, and what each stream contributed
    (the same shape as ``folder._hybrid.hybrid_results``, plus ``lexical`` and ``mirror``)."""
    from cuecard.core.recall._fusion import fuse
    from cuecard.core.vault._render import clean
    from cuecard.core.vault._settings import vectors_state
    from cuecard.core.vault.postgres._search import rank

    pool = max(limit * 4, 40)
    weights = settings.weights
    texts: dict[tuple[str, str], str] = {}
    streams: dict[str, list[tuple[str, str]]] = {}
    info: dict[str, object] = {"lexical": LEXICAL}
    if weights["bm25"] > 0:
        hits = rank(vault, query, pool)
        streams["bm25"] = [(h.path, h.key) for h in hits]
        texts.update({(h.path, h.key): h.text for h in hits})
    why = vectors_state() if vectors else "not asked"
    run_vectors = vectors and why is None and weights["vectors"] > 0
    if weights["graph"] > 0 or run_vectors:
        index, info["mirror"] = mirror_index(vault)
        if weights["graph"] > 0:
            from cuecard.core.recall._graph import graph_search

            graph, expansion = graph_search(index._connect(), query, pool)
            streams["graph"] = [(_note_path(h.path), h.key) for h in graph]
            texts.update({(_note_path(h.path), h.key): h.text for h in graph})
            info["expansion"] = {c: [t for t, _ in near] for c, near in expansion.items()}
        if run_vectors:
            from cuecard.core.recall._vectors import vector_search

            found = vector_search(index, query, pool)
            streams["vectors"] = [(_note_path(h.path), h.key) for h in found]
            texts.update({(_note_path(h.path), h.key): h.text for h in found})
    if vectors and not run_vectors:
        info["vectors_off"] = why or "weight 0"
    fused = fuse(streams, weights, limit=limit, per_note=settings.per_note, k=settings.rrf_k)
    info["streams"] = {name: len(items) for name, items in streams.items()}
    # The database is shared: text is redacted and made safe again here, whoever wrote it.
    results = [Result(f.item[0], f.item[1], clean(texts[f.item]), f.score, f.ranks) for f in fused]
    return results, info
