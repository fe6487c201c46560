"""Loading new entries into the recall index in bulk: the build path of ``RecallIndex.sync``.

A first build tokenises every fact of a vault, so this module trades imports for speed (the
cold query path never imports it: ``sync`` does, only when some entry is new):

- ``TokenMemo`` gives ``tokens(text)`` for many texts, finding word runs with one regular
  expression (ASCII text with a translation and a split) and remembering each distinct run's
  tokens (the vocabulary of a vault is Zipf-distributed: most runs were seen before);
- ``Loader`` gathers the new entries' postings in memory, per term (each entry's terms counted
  once, in C), and writes them in one pass sorted by the postings table's key (term, block):
  one row per term and block of entry ids, its columns packed integers, the term's counts in
  its last block.
"""

from __future__ import annotations

import collections
import re
import sqlite3
import unicodedata
from array import array
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from itertools import chain, repeat
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
# The same, keeping line breaks (``TokenMemo.many``'s separator).
_ASCII_LINES = _ASCII_CHUNKS[:10] + b"\n" + _ASCII_CHUNKS[11:]
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
_extend = list.extend
# Runs an iterator to its end, in C (the postings' appends of ``Loader.add``).
_consume: Callable[[Iterable[object]], None] = deque[object](maxlen=0).extend
# ``Counter.update``'s counting into a plain dict (in C; a ``Counter`` per entry costs the build
# its Python-level construction, a microsecond an entry).
_count_elements: Callable[[dict[str, int], Iterable[str]], None]
_count_elements = collections._count_elements  # type: ignore[attr-defined]
_pack = Struct("@" + TYPECODE).pack
# The blocks' columns are bound as ``bytearray``: the sqlite3 module binds it (as it binds str,
# int and float) without first asking the adapter registry, which for ``bytes`` costs more than
# the insert of a short row (0.3 s of a 100,000-line build, on CPython 3.11). The same BLOB.
_blob = bytearray
_ONE_BLOB = _blob(_ONE)
# A postings row: term, first entry, the term's counts (its last block only) and the blocks.
Row = tuple[str, int, int | None, int | None, int | None, bytearray, bytearray, bytearray]


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
        return list(chain.from_iterable(self.parts(text)))

    def parts(self, text: str) -> list[tuple[str, ...]]:
        """The tokens of ``text``, a tuple per run (``__call__``'s list, not yet joined)."""
        if text.isascii():
            # (An ASCII run is a chunk of word characters and joiners without the joiners at
            # its ends: the same runs as the pattern's, in half the time. The memo is keyed by
            # the chunk: its joiners are stripped only when it is first tokenised.)
            return self._known(text.encode().translate(_ASCII_CHUNKS).decode().split())
        return self._known(_RUN.findall(unicodedata.normalize("NFKC", text)))

    def many(self, texts: list[str]) -> list[list[tuple[str, ...]]]:
        """``parts`` of each of ``texts``: ASCII lines (a note's facts) found in one pass over
        them all."""
        joined = "\n".join(texts)
        if not joined.isascii() or joined.count("\n") != len(texts) - 1:
            return list(map(self.parts, texts))
        chunks = joined.encode().translate(_ASCII_LINES).decode().split("\n")
        return list(map(self._known, map(str.split, chunks)))

    def _known(self, runs: list[str]) -> list[tuple[str, ...]]:
        memo = self._memo
        known = list(map(memo.get, runs))
        if not all(known):  # some run not seen before (``None``): tokenised in Python
            for at, got in enumerate(known):
                if got is None:
                    run = runs[at]
                    got = known[at] = self._run(run)
                    if len(memo) < MEMO_LIMIT:
                        memo[run] = got
        return known  # type: ignore[return-value]

    def _run(self, run: str) -> tuple[str, ...]:
        bare = run.strip(_JOINERS)  # (a pattern's run is stripped already)
        if not bare:  # (a chunk of joiners alone)
            return ()
        if bare != run:  # ("word." ends a sentence: "word"'s tokens, when known)
            known = self._memo.get(bare)
            if known is not None:
                return known
            run = bare
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
    is written: per term, the entries holding it in entry order, each followed by the term's
    frequency there and the entry's length. Entries are written in batches; their postings are
    held longer (up to ``held``), so that a term's postings of many batches make one row per
    block."""

    __slots__ = (
        "_block",
        "_context",
        "_entries",
        "_fresh",
        "_headings",
        "_held",
        "_held_limit",
        "_length",
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
        self._headings: dict[str, tuple[str, ...]] = {}
        self._entries: list[tuple[int, str, str, str, str, str, int, int]] = []
        self._length = 0
        self._postings: defaultdict[str, list[int]] = defaultdict(list)
        self._held = 0
        self._block, self._held_limit = block, held

    def add(self, items: list[tuple[str, int, str, Entry]]) -> None:
        """Tokenise new entries (each: its file, its place there, its hash, the entry; a
        file's entries at a time) and hold their rows."""
        parts = self._tokens.many([entry.terms or entry.text for *_, entry in items])
        context, heading = self._context, self._heading
        rows, term_list = self._entries, self._postings.__getitem__
        doc, length, held = self._next, self._length, self._held
        for (path, pos, digest, entry), known in zip(items, parts, strict=True):
            if context and entry.context:  # (its note's headings: many entries share them)
                known.append(heading(entry.context))
            counts: dict[str, int] = {}  # each distinct term, in order, and its frequency
            _count_elements(counts, chain.from_iterable(known))
            size = sum(counts.values())
            # (The entry's distinct terms: what a removal and the concept graph read.)
            rows.append((doc, path, entry.key, digest, entry.text, " ".join(counts), size, pos))
            # Each term's list gets the entry, its frequency there and the entry's length (one
            # pass in C: three passes of appends cost the build 8 % more instructions).
            triples = zip(repeat(doc), counts.values(), repeat(size))
            _consume(map(_extend, map(term_list, counts), triples))
            length += size
            held += len(counts)
            doc += 1
        self._next, self._length, self._held = doc, length, held

    def _heading(self, context: str) -> tuple[str, ...]:
        """The tokens of an entry's ``context``, as ``tokens`` gives them after its text and a
        line break (no run crosses one, and normalisation composes nothing across it)."""
        got = self._headings.get(context)
        if got is None:
            got = tuple(self._tokens(context))
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
        """The postings in key order, in blocks of ``block`` (ids only grow: a term's last
        block, when not full, gets the new ones appended), the term's counts in its last block:
        its entry count, highest frequency and shortest entry (``_scoring.max_score``'s
        bounds)."""
        size = self._block
        rows: list[Row] = []
        full: list[tuple[str, int]] = []  # a term's last block when full, which a new one follows
        postings = self._postings
        fresh = self._fresh
        for term in sorted(postings):
            held = postings[term]  # (each entry holding it, its frequency there, its length)
            if len(held) == 3:  # (most terms: in one entry)
                doc, tf, length = held
                if fresh:  # (nothing stored to extend: the row at once)
                    tf_blob = _ONE_BLOB if tf == 1 else _blob(_pack(tf))
                    rows.append(
                        (term, doc, 1, tf, length, _blob(_pack(doc)), tf_blob, _blob(_pack(length)))
                    )
                    continue
                docs, tfs = array(TYPECODE, (doc,)), array(TYPECODE, (tf,))
                lens = array(TYPECODE, (length,))
                df, tf_max, len_min = 1, tf, length
            else:
                triples = array(TYPECODE, held)
                docs, tfs, lens = triples[0::3], triples[1::3], triples[2::3]
                df, tf_max, len_min = len(docs), max(tfs), min(lens)
            last = (
                None
                if fresh
                else conn.execute(
                    "SELECT first, df, tf_max, len_min, docs, tfs, lens FROM postings "
                    "WHERE term = ? ORDER BY first DESC LIMIT 1",
                    (term,),
                ).fetchone()
            )
            if last is not None:  # (the term's counts so far, in its last block)
                first, old_df, old_tf, old_len = last[:4]
                if old_df is not None:
                    df += old_df
                    tf_max, len_min = max(tf_max, old_tf), min(len_min, old_len)
                if len(last[4]) >= size * docs.itemsize:  # (full: it stays, without them)
                    full.append((term, first))
                else:  # (the new entries appended to it)
                    joined = []
                    for old, new in zip(last[4:], (docs, tfs, lens), strict=True):
                        both = array(TYPECODE, old)
                        both.extend(new)
                        joined.append(both)
                    docs, tfs, lens = joined
            if len(docs) <= size:  # (most terms: one block, nothing to cut)
                rows.append(
                    (term, docs[0], df, tf_max, len_min, _blob(docs), _blob(tfs), _blob(lens))
                )
                continue
            final = (len(docs) - 1) // size * size  # (where the last block starts)
            for start in range(0, len(docs), size):
                end = start + size
                counts = (df, tf_max, len_min) if start == final else (None, None, None)
                rows.append(
                    (
                        term,
                        docs[start],
                        *counts,
                        _blob(docs[start:end]),
                        _blob(tfs[start:end]),
                        _blob(lens[start:end]),
                    )
                )
        # (A term's last block, when extended, is replaced: its key, its first entry, stays.)
        conn.executemany("INSERT OR REPLACE INTO postings VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany(
            "UPDATE postings SET df = NULL, tf_max = NULL, len_min = NULL "
            "WHERE term = ? AND first = ?",
            full,
        )
        crash_point("recall-postings-written")
        self._postings = defaultdict(list)
        self._held, self._fresh = 0, False
