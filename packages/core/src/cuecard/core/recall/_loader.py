"""Loading new entries into the recall index in bulk: the build path of ``RecallIndex.sync``.

A first build tokenises every fact of a vault, so this module trades imports for speed (the
cold query path never imports it: ``sync`` does, only when some entry is new):

- ``TokenMemo`` gives ``tokens(text)`` for many texts, finding word runs with one regular
  expression (ASCII text with a translation and a split) and remembering each distinct run's
  tokens (the vocabulary of a vault is Zipf-distributed: most runs were seen before);
- ``Loader`` gathers the new entries' postings in memory, per term, and writes them in one pass
  sorted by the postings table's key (term, block): one row per term and block of entry ids,
  its columns packed integers, with one upsert per term for the document frequencies.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from array import array
from collections import Counter, defaultdict
from itertools import chain
from struct import Struct

from cuecard.core.base._fsio import crash_point
from cuecard.core.recall._tokens import MAX_TOKEN as _MAX
from cuecard.core.recall._tokens import finish, run_raw

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.recall._values import Entry, Ranking

__all__ = ["Loader", "TokenMemo"]

# The posting blocks' items (``recall._changes.TYPECODE``): native 4-byte unsigned ints.
TYPECODE = "I"

# ``runs`` of cuecard.core.recall._tokens as one pattern: word characters (``str.isalnum`` or
# ``_``, as ``\w``), joined through ``. : / @ -`` when a word character follows.
_RUN = re.compile(r"\w+(?:[.:/@-]+\w+)*")
_JOINERS = ".:/@-"
# A byte table: ASCII text with every character that is neither a word character nor a joiner a
# space (``bytes.translate`` looks each byte up in C; ``str.translate``, nine times slower).
_ASCII_CHUNKS = bytes(
    c if c < 128 and (chr(c).isalnum() or chr(c) == "_" or chr(c) in _JOINERS) else 32
    for c in range(256)
)
# Distinct runs remembered at most (a vault's vocabulary is far smaller; this bounds memory on
# text made of ever-new words).
MEMO_LIMIT = 500_000
# Runs whose raw tokens need no tokenizer (``_tokens.plain`` words, ASCII numbers, and plain
# words joined by the joiners that keep a run whole), and the joiners that cut those.
_PLAIN = re.compile(r"[A-Za-z][a-z]{2,}")
_NUMBER = re.compile(r"[0-9]+")
_JOINED = re.compile(r"[A-Za-z][a-z]{2,}(?:[._-]+[A-Za-z][a-z]{2,})+")
_INNER = re.compile(r"[._-]+")
_ONE = array(TYPECODE, (1,))
_pack = Struct("@" + TYPECODE).pack
# The blocks' columns are bound as ``bytearray``: the sqlite3 module binds it (as it binds str,
# int and float) without first asking the adapter registry, which for ``bytes`` costs more than
# the insert of a short row (0.3 s of a 100,000-line build, on CPython 3.11). The same BLOB.
_blob = bytearray
_ONE_BLOB = _blob(_ONE)


class TokenMemo:
    """``tokens(text, stem=stem)`` of ``cuecard.core.recall._tokens``, the same list, faster
    over many texts: each distinct run is tokenised once, and each distinct raw token (a word
    in any case, an identifier's piece) finished (stemmed) once."""

    __slots__ = ("_finished", "_memo", "_stem")

    def __init__(self, *, stem: bool = True) -> None:
        self._stem = stem
        self._memo: dict[str, tuple[str, ...]] = {}
        self._finished: dict[str, tuple[str, ...]] = {}

    def __call__(self, text: str) -> list[str]:
        if text.isascii():
            # (An ASCII run is a chunk of word characters and joiners without the joiners at
            # its ends: the same runs as the pattern's, in half the time. The memo is keyed by
            # the chunk: its joiners are stripped only when it is first tokenised.)
            runs = text.encode().translate(_ASCII_CHUNKS).decode().split()
        else:
            runs = _RUN.findall(unicodedata.normalize("NFKC", text))
        memo = self._memo
        known = list(map(memo.get, runs))
        if None in known:  # some run not seen before: only those tokenised in Python
            for at, got in enumerate(known):
                if got is None:
                    run = runs[at]
                    got = known[at] = self._run(run)
                    if len(memo) < MEMO_LIMIT:
                        memo[run] = got
        return list(chain.from_iterable(known))  # type: ignore[arg-type]

    def _run(self, run: str) -> tuple[str, ...]:
        run = run.strip(_JOINERS)  # (a pattern's run is stripped already)
        if not run:  # (a chunk of joiners alone)
            return ()
        # The raw tokens (see ``_tokens.run_raw``) of the common shapes found by patterns: a
        # plain word is itself; a number, itself; plain words joined by ``._-`` the whole and
        # each word. Anything else, the tokenizer's.
        if _PLAIN.fullmatch(run):
            raw = ["\0" + run.lower()]
        elif _NUMBER.fullmatch(run):
            raw = [run[:_MAX]]
        elif _JOINED.fullmatch(run):
            raw = [run.lower()[:_MAX], *["\0" + w for w in _INNER.split(run.lower()) if w]]
        else:
            raw = []
            run_raw(run, raw)
        finished = self._finished
        out: list[str] = []
        for token in raw:
            done = finished.get(token)
            if done is None:
                done = tuple(finish([token], self._stem, whole=True))
                if len(finished) < MEMO_LIMIT:
                    finished[token] = done
            out.extend(done)
        return tuple(out)


class Loader:
    """New entries of one synchronisation, written by ``flush`` in the caller's transaction.

    Entry ids continue after the highest id present, so the postings are known before any row
    is written: per term, the entries holding it, once per occurrence and in entry order (its
    frequencies and the entries' lengths are counted and looked up when written). Entries are
    written in batches; their postings are held longer (up to ``held``), so that a term's
    postings of many batches make one row per block."""

    __slots__ = (
        "_block",
        "_context",
        "_entries",
        "_fresh",
        "_headings",
        "_held",
        "_held_limit",
        "_length",
        "_lengths",
        "_next",
        "_postings",
        "_tokens",
    )

    def __init__(
        self, conn: sqlite3.Connection, ranking: Ranking, *, block: int, held: int
    ) -> None:
        top = conn.execute("SELECT max(id) FROM entries").fetchone()[0]
        self._next = int(top or 0) + 1
        # No posting stored yet (a first build): no term has a block to extend.
        self._fresh = conn.execute("SELECT 1 FROM postings LIMIT 1").fetchone() is None
        self._tokens = TokenMemo(stem=ranking.stem)
        self._context = ranking.context
        self._headings: dict[str, list[str]] = {}
        self._entries: list[tuple[int, str, str, str, str, str, int, int]] = []
        self._length = 0
        self._postings: defaultdict[str, list[int]] = defaultdict(list)
        self._lengths: dict[int, int] = {}
        self._held = 0
        self._block, self._held_limit = block, held

    def add(self, path: str, pos: int, digest: str, entry: Entry) -> None:
        """Tokenise one new entry (``pos``: its place in its file) and hold its rows."""
        toks = self._tokens(entry.terms or entry.text)
        if self._context and entry.context:  # (its note's headings: many entries share them)
            toks += self._heading(entry.context)
        doc = self._next
        self._next += 1
        size = len(toks)
        distinct = dict.fromkeys(toks)
        # (The entry's distinct terms: what a removal and the concept graph read.)
        self._entries.append(
            (doc, path, entry.key, digest, entry.text, " ".join(distinct), size, pos)
        )
        self._length += size
        self._lengths[doc] = size
        # Each occurrence of a term appends the entry to the term's list (its frequency there is
        # how often the entry follows itself: counted when written).
        postings = self._postings
        for term in toks:
            postings[term].append(doc)
        self._held += len(distinct)

    def _heading(self, context: str) -> list[str]:
        """The tokens of an entry's ``context``, as ``tokens`` gives them after its text and a
        line break (no run crosses one, and normalisation composes nothing across it)."""
        got = self._headings.get(context)
        if got is None:
            got = self._tokens(context)
            if len(self._headings) < MEMO_LIMIT:
                self._headings[context] = got
        return got

    @property
    def held(self) -> int:
        """New entries held, not yet written."""
        return len(self._entries)

    def flush(self, conn: sqlite3.Connection, *, last: bool) -> tuple[int, int]:
        """Write the held entries, and their postings when ``last`` or when over
        ``held``; the number of entries written and their total length."""
        conn.executemany(
            "INSERT INTO entries (id, path, key, hash, text, terms, len, pos) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            self._entries,
        )
        crash_point("recall-entries-written")
        added, length = len(self._entries), self._length
        self._entries, self._length = [], 0
        if last or self._held >= self._held_limit:
            self._write_postings(conn)
        return added, length

    def _write_postings(self, conn: sqlite3.Connection) -> None:
        """The postings in key order, in blocks of ``block`` (ids only grow: a term's
        last block, when not full, gets the new ones appended), and per term its entry count,
        highest frequency and shortest entry (``_scoring.max_score``'s bounds)."""
        size = self._block
        length_of = self._lengths.__getitem__
        rows: list[tuple[str, int, bytearray, bytearray, bytearray]] = []
        stats: list[tuple[str, int, int, int]] = []
        postings = self._postings
        for term in sorted(postings):
            held = postings[term]
            if len(held) == 1:  # (about half the terms: once, in one entry)
                doc = held[0]
                length = length_of(doc)
                stats.append((term, 1, 1, length))
                if self._fresh:  # (nothing stored to extend: the row at once)
                    rows.append((term, doc, _blob(_pack(doc)), _ONE_BLOB, _blob(_pack(length))))
                    continue
                docs, tfs = array(TYPECODE, held), _ONE
                lens = array(TYPECODE, (length,))
            else:  # (a dict keeps its keys in the order first seen: the entries')
                counts = Counter(held)
                docs, tfs = array(TYPECODE, counts), array(TYPECODE, counts.values())
                lens = array(TYPECODE, map(length_of, docs))
                stats.append((term, len(docs), max(tfs), min(lens)))
            last = (
                None
                if self._fresh
                else conn.execute(
                    "SELECT first, docs, tfs, lens FROM postings WHERE term = ? "
                    "ORDER BY first DESC LIMIT 1",
                    (term,),
                ).fetchone()
            )
            if last is not None and len(last[1]) < size * docs.itemsize:
                joined = []
                for old, new in zip(last[1:], (docs, tfs, lens), strict=True):
                    both = array(TYPECODE, old)
                    both.extend(new)
                    joined.append(both)
                docs, tfs, lens = joined
            if len(docs) <= size:  # (most terms: one block, nothing to cut)
                rows.append((term, docs[0], _blob(docs), _blob(tfs), _blob(lens)))
                continue
            for start in range(0, len(docs), size):
                end = start + size
                rows.append(
                    (
                        term,
                        docs[start],
                        _blob(docs[start:end]),
                        _blob(tfs[start:end]),
                        _blob(lens[start:end]),
                    )
                )
        # (A term's last block, when extended, is replaced: its key, its first entry, stays.)
        conn.executemany("INSERT OR REPLACE INTO postings VALUES (?, ?, ?, ?, ?)", rows)
        crash_point("recall-postings-written")
        conn.executemany(
            "INSERT INTO terms VALUES (?, ?, ?, ?) ON CONFLICT (term) DO UPDATE SET "
            "df = df + excluded.df, tf_max = max(tf_max, excluded.tf_max), "
            "len_min = min(len_min, excluded.len_min)",
            stats,
        )
        self._postings, self._lengths = defaultdict(list), {}
        self._held, self._fresh = 0, False
