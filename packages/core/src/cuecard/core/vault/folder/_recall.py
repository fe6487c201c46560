"""The vault's recall index and use records, on plain paths (the cold search path).

Standard library only, and neither pathlib nor re until a note must be (re)indexed. ``Vault``
and the search command both go through these functions, so they agree on every location.
"""

from __future__ import annotations

import os

from cuecard.core.base._confined import Tree
from cuecard.core.recall._index import Entry, Ranking, RecallIndex
from cuecard.core.vault._layout import Layout
from cuecard.core.vault._location import cache_home, cache_tree

# Version of what ``extract`` stores (fact parsing, redaction, neutralising): bump it when those
# rules change and every vault index is rebuilt on its next use.
RULES = "vault-3"

__all__ = ["cache_dir", "extract", "last_uses", "note_paths", "notes_index", "record_use"]


def cache_dir(root: str) -> str:
    """The vault's folder of derived data: its name and 64 bits of checksums of its path."""
    import zlib

    resolved = os.path.realpath(root)
    raw = resolved.encode("utf-8", "surrogateescape")
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in os.path.basename(resolved))
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return os.path.join(cache_home(), "vaults", f"{name[:40] or 'vault'}-{key}")


def note_paths(root: str, layout: Layout) -> list[str]:
    """Vault-relative paths of every note holding canonical facts (links skipped; the folders
    on the way walked by descriptor)."""
    tree = Tree(root)
    try:
        entries = tree.entries(layout.notes_dir)
    except OSError:
        entries = []
    found = [
        f"{layout.notes_dir}/{name}"
        for name, kind in entries
        if name.endswith(".md")
        and name != "README.md"
        and not name.startswith(".")
        and kind == "file"
    ]
    if layout.catch_all not in found and tree.is_file(layout.catch_all):
        found.append(layout.catch_all)
    return found


def extract(rel: str, text: str) -> list[Entry]:
    """The live facts of a note, redacted and made safe for ``<memory-data>`` once, here, each
    with its headings as context and the dates they and the fact name as search terms
    (``recall._dates``)."""
    from cuecard.core.engine import _secrets
    from cuecard.core.engine._text import neutral_lines, neutralise
    from cuecard.core.recall._dates import date_terms, dated
    from cuecard.core.vault._facts import fact_id, note_facts

    live = [
        (fact, fact.context)
        for fact in note_facts(text)
        if not (fact.superseded or fact.placeholder)
    ]
    # Most notes hold no credential: one test of all the strings below (joined by line breaks,
    # see ``may_hold_secret``) spares each its own. A fact that ends its line after a space
    # (``- fact``) is tested with it: the space at its edge is seen as its start is.
    probe = "\n".join(
        part
        for f, c in live
        for line in (f.line.strip(),)
        for part in ((line, c) if line.endswith(" " + f.text) else (line, f.text, c))
    )
    redact = _secrets.redact if _secrets.may_hold_secret(probe) else str
    # (Nothing to redact, and a note of printable ASCII naming no wrapper tag: every line is
    # shown as it is.)
    as_is = redact is str and neutral_lines(text)
    entries = []
    # The facts under one heading share their context: redacted once.
    contexts: dict[str, str] = {}
    for fact, context in live:
        line = fact.line.strip()
        shown = line if as_is else neutralise(redact(line))
        safe = contexts.get(context)
        if safe is None:
            safe = redact(context)
            safe = contexts[context] = " ".join((safe, *dated(safe)))
        terms = redact(fact.text)
        dates = date_terms(terms)
        if dates:
            terms = " ".join((terms, *dates))
        entries.append(Entry(fact_id(fact.text), shown, terms, safe))
    return entries


def notes_index(root: str, layout: Layout, ranking: Ranking | None = None) -> RecallIndex:
    return RecallIndex(
        os.path.join(cache_dir(root), "recall.sqlite3"),
        root,
        lambda: note_paths(root, layout),
        extract,
        rules=RULES,
        ranking=ranking,
    )


def record_use(folder: str, ids: list[str], day: str) -> None:
    """Append one use per fact id (an append-only log: concurrent searchers never clash)."""
    if not ids:
        return
    payload = "".join(f"{i}\t{day}\n" for i in dict.fromkeys(ids)).encode()
    try:
        cache_tree(folder).append("usage.log", payload)
    except OSError:
        return


def last_uses(folder: str) -> dict[str, str]:
    """Fact id -> the last day (ISO) it was returned by search or show."""
    last: dict[str, str] = {}
    try:
        data = Tree(folder).read_bytes("usage.log")
    except OSError:
        return last
    for line in data.decode("utf-8", errors="replace").split("\n"):
        ident, _, day = line.partition("\t")
        if len(day) == 10 and day > last.get(ident, ""):
            last[ident] = day
    return last
