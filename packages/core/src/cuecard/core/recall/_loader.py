"""Loading new entries into the recall index in bulk: the build path of ``RecallIndex.sync``.

A first build tokenises every fact of a vault, so this module trades imports for speed (the
cold query path never imports it: ``sync`` does, only when some entry is new):

- ``TokenMemo`` gives ``tokens(text)`` for many texts, finding word runs with one regular
  expression and remembering each distinct run's tokens (the vocabulary of a vault is
  Zipf-distributed: most runs were seen before);
- ``Loader`` gathers the new entries' postings in memory, per term, and writes them in one pass
  sorted by the postings table's key (term, entry), with one upsert per term for the document
  frequencies.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections import Counter
from itertools import chain, repeat

from cuecard.core._fsio import crash_point
from cuecard.core.recall._tokens import finish, plain, run_raw

TYPE_CHECKING = False
if TYPE_CHECKING:  # types only: _index imports this module (lazily, to build)
    from cuecard.core.recall._index import Entry, Ranking

__all__ = ["Loader", "TokenMemo"]

# ``runs`` of cuecard.core.recall._tokens as one pattern: word characters (``str.isalnum`` or
# ``_``, as ``\w``), joined through ``. : / @ -`` when a word character follows.
_RUN = re.compile(r"\w+(?:[.:/@-]+\w+)*")
# Distinct runs remembered at most (a vault's vocabulary is far smaller; this bounds memory on
# text made of ever-new words).
MEMO_LIMIT = 500_000


class TokenMemo:
    """``tokens(text, stem=stem)`` of ``cuecard.core.recall._tokens``, the same list, faster
    over many texts: each distinct run is tokenised once."""

    __slots__ = ("_memo", "_stem")

    def __init__(self, *, stem: bool = True) -> None:
        self._stem = stem
        self._memo: dict[str, tuple[str, ...]] = {}

    def __call__(self, text: str) -> list[str]:
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        memo = self._memo
        out: list[str] = []
        for run in _RUN.findall(text):
            got = memo.get(run)
            if got is None:
                # A plain word (most runs) is its one raw token; anything else, the tokenizer's.
                raw = ["\0" + run.lower()] if run.isascii() and plain(run) else []
                if not raw:
                    run_raw(run, raw)
                got = tuple(finish(raw, self._stem, whole=True))
                if len(memo) < MEMO_LIMIT:
                    memo[run] = got
            out.extend(got)
        return out


class Loader:
    """New entries of one synchronisation, written by ``flush`` in the caller's transaction.

    Entry ids continue after the highest id present, so the postings are known before any row
    is written; per term, the entries holding it and its frequency in each are kept as two
    lists (already in entry order), so that ``flush`` makes the rows without a Python loop."""

    __slots__ = ("_context", "_entries", "_lengths", "_next", "_postings", "_tokens")

    def __init__(self, conn: sqlite3.Connection, ranking: Ranking) -> None:
        top = conn.execute("SELECT max(id) FROM entries").fetchone()[0]
        self._next = int(top or 0) + 1
        self._tokens = TokenMemo(stem=ranking.stem)
        self._context = ranking.context
        self._entries: list[tuple[int, str, str, str, str, str, int, int]] = []
        self._postings: dict[str, tuple[list[int], list[int]]] = {}
        self._lengths: dict[int, int] = {}

    def add(self, path: str, pos: int, digest: str, entry: Entry) -> None:
        """Tokenise one new entry (``pos``: its place in its file) and hold its rows."""
        source = entry.terms or entry.text
        if self._context and entry.context:
            source = f"{source}\n{entry.context}"
        toks = self._tokens(source)
        doc = self._next
        self._next += 1
        size = len(toks)
        self._entries.append((doc, path, entry.key, digest, entry.text, " ".join(toks), size, pos))
        self._lengths[doc] = size
        postings = self._postings
        for term, tf in Counter(toks).items():
            held = postings.get(term)
            if held is None:
                postings[term] = ([doc], [tf])
            else:
                held[0].append(doc)
                held[1].append(tf)

    @property
    def held(self) -> int:
        """New entries held, not yet written."""
        return len(self._entries)

    def flush(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """Write the held rows, the postings in key order; the number of entries written and
        their total length."""
        conn.executemany(
            "INSERT INTO entries (id, path, key, hash, text, terms, len, pos) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            self._entries,
        )
        crash_point("recall-entries-written")
        terms = sorted(self._postings)
        postings, length_of = self._postings, self._lengths.__getitem__
        rows = chain.from_iterable(
            zip(repeat(term), docs, tfs, map(length_of, docs))
            for term in terms
            for docs, tfs in (postings[term],)
        )
        conn.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", rows)
        crash_point("recall-postings-written")
        conn.executemany(
            "INSERT INTO terms VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df",
            [(term, len(postings[term][0])) for term in terms],
        )
        added, length = len(self._entries), sum(self._lengths.values())
        self._entries, self._postings, self._lengths = [], {}, {}
        return added, length
