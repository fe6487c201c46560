"""Which words of a message name something the vault holds: the gate's second rule in ``auto``
mode, so that "the billing retries again?" recalls when the vault has facts about billing
retries, whatever the configured topic list says.

Cheap by construction: one read-only lookup of the message's distinctive words in the term table
of the vault's own recall index (the index ``cuecard vault search`` keeps, synchronised first,
which costs a few ``stat`` calls when nothing changed). A word counts when at least one fact and
at most 2 % of them hold it (a word most facts share names nothing in particular); words shorter
than four letters, numbers and the search's stop words are never looked up. A vault in
PostgreSQL, or one whose index cannot be read, holds no topics here (the configured topics
still apply).
"""

from __future__ import annotations

import os

__all__ = ["MAX_SHARE", "candidate_words", "held_topics"]

MAX_SHARE = 50
"""A word held by more than one fact in MAX_SHARE (2 %) names nothing in particular."""
MAX_WORDS = 64
_EXTRA_STOPWORDS = frozenset(
    "about after again also been before being could does done have here into just like make "
    "many more most much must need only other over same should some such than them then there "
    "these they what when where which while will would your yours please thanks".split()
)


def candidate_words(text: str) -> list[str]:
    """The message's words worth looking up: the search's tokens of four letters or more (or a
    CJK pair), not numbers, not stop words; at most MAX_WORDS."""
    from cuecard.core.recall import query_tokens

    found = []
    for token in query_tokens(text):
        cjk = not token.isascii()
        if cjk and len(token) < 2:
            continue
        if not cjk and (len(token) < 4 or token.replace(".", "").isdigit()):
            continue
        if token in _EXTRA_STOPWORDS:
            continue
        found.append(token)
    return found[:MAX_WORDS]


def _index_path(vault: str) -> str | None:
    from cuecard.core.vault import detect_layout
    from cuecard.core.vault.folder import cache_dir, notes_index

    if "://" in vault or not os.path.isdir(vault):
        return None
    layout = detect_layout(vault)
    if layout is None:
        return None
    index = notes_index(vault, layout)
    try:
        index.sync()
    finally:
        index.close()
    return os.path.join(cache_dir(vault), "recall.sqlite3")


def held_topics(text: str, vault: str | None) -> list[str]:
    """The words of ``text`` that name something the vault at ``vault`` holds (never raises)."""
    words = candidate_words(text)
    if not words or not vault:
        return []
    try:
        path = _index_path(vault)
        if path is None:
            return []
        from cuecard.core.fs import Tree, connect_database

        # through the confined layer: a link in the index's place is refused, and the file
        # SQLite opened is the one the layer proved
        folder, name = os.path.split(path)
        conn = connect_database(Tree(folder), name, readonly=True)
        try:
            docs = int(conn.execute("SELECT value FROM meta WHERE key = 'docs'").fetchone()[0])
            marks = ",".join("?" * len(words))
            rows = dict(
                conn.execute(f"SELECT term, df FROM terms WHERE term IN ({marks})", words)  # noqa: S608
            )
        finally:
            conn.close()
    except Exception:  # the gate never fails a turn: no lookup, no vault topics
        return []
    ceiling = max(2, docs // MAX_SHARE)
    held = [w for w in words if 1 <= int(rows.get(w, 0)) <= ceiling]
    # one word in two forms (the search may index a stem beside the word): name the word once
    return [w for w in held if not any(o != w and o.startswith(w) for o in held)]
