"""This machine's mirror of a PostgreSQL vault's active facts, and search over it.

The mirror is one small file per note (JSON lines of fact id, shown line, redacted text and
headings) in this machine's cache folder for the vault URL, indexed by the folder vault's
``RecallIndex``: search ranks there with the folder vault's BM25 (the same tokenizer, stemming,
headings and neighbour share), and the hybrid mode's concept graph and vectors read the same
index. A stamp file beside it names the generation of the database's searchable facts it holds
(``cuecard_generation``: a statement trigger bumps it on every change to the facts' note, id,
line, text, shown line, headings or status, whoever writes; recording uses does not).

Freshness is exact. A search sends the read of the generation when it starts (without waiting:
``_inflight``) and ranks on the mirror it holds while the server answers; if the answer is the
generation the mirror holds, the ranking stands. When it is not (a fact changed, in any
process, since the mirror was fetched), the notes whose facts changed after the mirror's
generation are fetched again (``cuecard_note_generations``, schema 7; the generation is read
with that list, before the facts, so the stamp is never newer than the files), their files
rewritten (the index re-reads only their changed lines) and the query ranked again. A fact
retired or forgotten before a search starts therefore never appears: its change committed
before the generation read, sent after the search started, whose snapshot then reads a newer
generation. Then the uses of the results are sent, their answer read at the next use of the
connection or when the vault is closed (an error in it is raised there).

The first search on a machine fetches every active fact and builds the index (as a folder
vault's first search builds its index); a machine whose cache folder cannot be written keeps
no mirror and ranks in the database instead (``_search.rank``).
"""

from __future__ import annotations

import os
import sqlite3

from cuecard.core.recall._index import Entry, Hit, RecallIndex
from cuecard.core.vault._location import cache_tree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from cuecard.core.base._confined import Tree
    from cuecard.core.vault.postgres._conn import Connected

    class PgVault(Connected, Protocol):
        """What the mirror needs of a ``PgVault`` (structurally: ``_vault`` imports this)."""

        def send(self, sql: str, params: Sequence[str | None] = ()) -> bool: ...

        def answer(self) -> list[tuple[str | None, ...]]: ...

        def record_use(self, ids: list[str], *, wait: bool = True) -> None: ...


__all__ = ["MIRROR_ERRORS", "RULES", "Mirror", "pg_cache_dir"]


# Version of the mirror's file format and extraction: a change rebuilds the local index.
RULES = "pg-mirror-3"
# What a cache folder that cannot be written (or read) raises on the way.
MIRROR_ERRORS = (OSError, sqlite3.Error)

_GENERATION = "SELECT n FROM cuecard_generation"
# The generation, the active facts' count, and the notes whose facts changed after ``held``
# (schema 7), in one snapshot.
_CHANGED = (
    "SELECT (SELECT n FROM cuecard_generation), (SELECT docs FROM cuecard_search_stats), "
    "ARRAY(SELECT note FROM cuecard_note_generations WHERE n > %(held)s)"
)
_ACTIVE = (
    "SELECT note, id, shown, text, context FROM cuecard_facts WHERE status = 'active' "
    "AND (%(every)s OR note = ANY(%(notes)s)) ORDER BY note, position"
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


def _file_name(note: str) -> str:
    """A note's mirror file: its name percent-encoded (no ``/``, no leading dot), ``.md``."""
    from urllib.parse import quote

    return quote(note, safe="-_") + ".md"


def note_path(file_name: str) -> str:
    """The result path (the note's folder file name, as ``_search.rank`` gives) of a mirror
    file."""
    from urllib.parse import unquote

    from cuecard.core.vault.postgres._notes import note_file_name

    return note_file_name(unquote(file_name[:-3]))


def _extract(rel: str, text: str) -> list[Entry]:
    """The mirror file's entries, with the dates their text and headings name as search terms
    (as the folder vault's ``extract`` gives them)."""
    import json

    from cuecard.core.recall._dates import date_terms, dated

    entries = []
    for line in text.split("\n"):
        try:
            ident, shown, terms, context = json.loads(line)
        except (ValueError, TypeError):
            continue
        terms, context = str(terms), str(context)
        terms = " ".join((terms, *date_terms(terms)))
        context = " ".join((context, *dated(context)))
        entries.append(Entry(str(ident), str(shown), terms, context))
    return entries


def _read(tree: Tree, rel: str) -> str | None:
    try:
        return tree.read_bytes(rel).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


class Mirror:
    """One process's handle on this machine's mirror of a vault: its index and the generation
    the mirror holds (``None``: no mirror on this machine yet)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.base = pg_cache_dir(url)
        self.folder = os.path.join(self.base, "mirror")
        self._stamp = "mirror.fingerprint"
        self.tree = cache_tree(self.base)
        """This machine's cache folder of the vault: the mirror is reached through it."""
        db = os.path.join(self.base, "recall.sqlite3")
        self.index = RecallIndex(db, self.folder, self._files, _extract, rules=RULES)
        self.held: int | None = None
        self.facts = 0
        self._load()

    def close(self) -> None:
        self.index.close()

    def _files(self) -> list[str]:
        try:
            return [n for n, kind in self.tree.entries("mirror") if n.endswith(".md")]
        except OSError:
            return []

    def _stamped(self) -> tuple[int, int] | None:
        """(generation, facts) the stamp names, if it is this vault's and of these rules."""
        held = _read(self.tree, self._stamp) or ""
        head = f"{RULES} {self.url} generation "
        if not held.startswith(head) or not self.tree.is_dir("mirror"):
            return None
        generation, _, facts = held[len(head) :].partition(" facts ")
        if not generation.isdigit() or not facts.isdigit():
            return None
        return int(generation), int(facts)

    def _load(self) -> None:
        """Take the generation the stamp names and bring the index up to the files."""
        stamped = self._stamped()
        if stamped is None:
            self.held = None
            return
        self.index.sync()
        self.held, self.facts = stamped

    def refresh(self, vault: PgVault) -> bool:
        """Bring the mirror and its index up to the database's generation; whether facts were
        fetched now (another process may have fetched them already). Only the notes changed
        since the generation the mirror holds are fetched; every note when it holds none."""
        generation = int(vault.alone(_GENERATION)[0][0])
        fetched = False
        stamped = self._stamped()
        if stamped is None or stamped[0] != generation:
            with self.tree.locked("mirror.lock"):
                stamped = self._stamped()
                if stamped is None or stamped[0] != generation:
                    held = -1 if stamped is None else stamped[0]
                    now, count, notes = vault.alone(_CHANGED, {"held": held})[0]
                    self._fetch(vault, None if stamped is None else list(notes))
                    stamp = f"{RULES} {self.url} generation {int(now)} facts {int(count)}"
                    self.tree.write(self._stamp, stamp)
                    fetched = True
        self._load()
        return fetched

    def _fetch(self, vault: PgVault, changed: list[str] | None) -> None:
        """Rewrite the files of the ``changed`` notes (every note when ``None``) from their
        active facts; a note left without any loses its file."""
        import json

        rows = vault.alone(_ACTIVE, {"every": changed is None, "notes": changed or []})
        notes: dict[str, list[str]] = {_file_name(note): [] for note in changed or []}
        for note, ident, shown, text, context in rows:
            notes.setdefault(_file_name(str(note)), []).append(
                json.dumps([str(ident), str(shown), str(text), str(context)])
            )
        tree = self.tree
        tree.mkdirs("mirror")
        for name, lines in notes.items():
            if not lines:
                tree.remove(f"mirror/{name}")
                continue
            data = "\n".join(lines) + "\n"
            if _read(tree, f"mirror/{name}") != data:
                tree.write(f"mirror/{name}", data)
        if changed is None:
            for name, _kind in tree.entries("mirror"):
                if name.endswith(".md") and name not in notes:
                    tree.remove(f"mirror/{name}")

    def current(self, vault: PgVault) -> bool:
        """Make sure the mirror exists on this machine (the first search builds it); whether the
        facts were fetched now. Freshness is checked when uses are recorded (``search``)."""
        if self.held is None:
            return self.refresh(vault)
        return False

    def rank(self, query: str, limit: int) -> list[Hit]:
        """The best facts for ``query`` by the folder vault's BM25 over the mirror."""
        return [
            Hit(note_path(h.path), h.key, h.text, h.score) for h in self.index.search(query, limit)
        ]

    def search(self, vault: PgVault, query: str, limit: int) -> list[Hit]:
        """The best facts for ``query`` as of the database's current facts; their uses recorded
        (see the module docstring)."""
        fetched = self.current(vault)
        asked = not fetched and vault.send(_GENERATION)
        hits = self.rank(query, limit)
        if fetched:  # the mirror was fetched in this search: it is current
            held = self.held
        elif asked:
            held = int(str(vault.answer()[0][0]))
        else:  # inside an open transaction: read now, after the ranking
            held = int(vault.alone(_GENERATION)[0][0])
        if held != self.held:
            self.refresh(vault)
            hits = self.rank(query, limit)
        vault.record_use([h.key for h in hits], wait=False)
        return hits
