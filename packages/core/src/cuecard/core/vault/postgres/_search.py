"""Ranking in the database: Okapi BM25 over the postings of words, CJK characters and bigrams,
plus code identifiers. Search ranks on this machine's mirror of the facts instead (``_mirror``);
this ranking serves a machine whose cache folder cannot be written.

A fact is searched together with its note's headings (``context``: a date, a session, a
section), as the folder vault indexes it: their words and CJK bigrams count, and the fact's
length includes them. A fact's terms are the lexemes of ``to_tsvector('simple', ...)`` of the
fact, its headings and its dates, and the CJK characters and bigrams of the fact and its
headings (``cuecard_postings``, kept in line by triggers in the transaction that writes the
facts; schema 6). A fact's dates (``dates``, schema 8) are the day's and month's terms of the
dates its text and its innermost dated heading name (``recall._dates``, as the folder vault's
index and the mirror give an entry), and a date the query names is searched as the same terms
("in May 2023" finds a fact under "## Session 2: 8 May 2023"). A plain English word
is stemmed as the folder vault stems it (``cuecard.core.engine._words.stem``) and its stem of four
letters or more matches as a prefix (``research`` finds "researching", ``migrations`` finds
"migration"); English function words are dropped from the query, as there. Chinese, Japanese
and Korean text has no spaces, so a query's CJK runs are cut into the bigrams the folder
vault's BM25 uses (a lone CJK character stands for itself); code identifiers and dotted names
match as substrings through the ``pg_trgm`` index. Every matched word or bigram adds its BM25
idf, the sum is scaled by BM25's length normalisation (the fact's length in distinct lexemes
against the average), and an identifier match adds a fixed share. As in the folder vault, a
fact then gains ``NEIGHBOUR_SHARE`` of the best score of the active facts next to it in its
note (by position), so the reply after a question that names the topic ranks itself. The
best facts and their neighbours (``recall._order.pool_size``) are then ordered as the folder
vault's index orders its own (``recall._order.settle``, the same code): exact forms first, or,
when none of the best names every query word, the length prior. Reads only: recording use is
the caller's part.

Where this ranking and the mirror's may still differ (the same questions over the same facts;
tests/core/vault/test_pg_search.py shows both): each word counts once per fact (no term
frequency), a fact's length is its distinct lexemes (stopwords too) rather than its tokens, a
stem of four letters or more matches as a prefix ("build" finds "buildkite"), and facts of
equal score come in the database's order (note, position). On the held-out split of
tools/bench/recall_conversation_set.json the two put the same fact first for 82 % of the
questions (``tools/bench/fleet.py --conversations``; BENCHMARKS.md).

Cost: the facts' count, their total length and each term's document count are read from
``cuecard_search_stats`` and ``cuecard_terms`` (a prefix's count is the sum of its lexemes'
counts: a fact holding two words of one prefix counts twice, as it did not before schema
6); the best facts are found from the postings' primary key alone (term, fact, length: an
index-only scan per term and one aggregate over them, never the facts), and only those and
their neighbours are read from ``cuecard_facts`` (by ``fid`` and by (note, position)). Every
posting of every query term is read: skipping common terms' postings (MaxScore) needs each
candidate looked up in them, which cost more than it saved here (see BENCHMARKS.md). A query
word the ``simple`` parser would split (``parse_config`` becomes a phrase) or that is
not ASCII is matched through the GIN full-text index instead, as before schema 6.
"""

from __future__ import annotations

from typing import LiteralString

from cuecard.core.recall._index import Hit
from cuecard.core.recall._values import NEIGHBOUR_SHARE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault.postgres._conn import Connected

__all__ = ["Pooled", "pool", "rank"]

_ASCII_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"
K1 = 1.2
B = 0.75
# An identifier's substring match counts as much as a matched word of this idf.
SUBSTRING_IDF = 3.0


def _is_cjk(char: str) -> bool:
    from cuecard.core.recall._tokens import _is_cjk as is_cjk

    return is_cjk(char)


def _words(query: str) -> list[str]:
    """The query's words that carry meaning: no stopwords nor English function words, and no
    CJK runs (those are matched by their bigrams)."""
    import re

    from cuecard.core.recall._graph import FUNCTION_WORDS
    from cuecard.core.recall._tokens import STOPWORDS

    words = dict.fromkeys(
        w.lower() for w in re.findall(r"\w+", query) if not any(_is_cjk(ch) for ch in w)
    )
    kept = [w for w in words if w not in STOPWORDS and w not in FUNCTION_WORDS]
    return kept or list(words)


def _term(word: str) -> tuple[str, bool]:
    """One query word as a lexeme and whether it matches as a prefix: a plain word's stem
    from four letters (a stem ending in ``i`` for a ``y`` loses it: ``retries`` -> ``retr:*``
    finds "retry"), else the word itself, a prefix from four letters unless it is a number
    (``2023`` is not the start of ``20230508``, a date's term)."""
    from cuecard.core.engine._words import stem
    from cuecard.core.recall._tokens import plain

    if plain(word):
        base = stem(word)
        if base.endswith("i") and word.endswith(("y", "ies", "ied")):
            base = base[:-1]
        if len(base) >= 4:
            return (base, True)
    return (word, len(word) >= 4 and not word.isdigit())


def _terms(query: str) -> list[tuple[str, bool]]:
    """The query's meaningful words as distinct (lexeme, prefix) terms (BM25 matches any), then
    the dates it names as their day's and month's terms (``recall._dates``; a fact holds them
    in ``dates``), each whole."""
    from cuecard.core.recall._dates import date_terms

    words = [_term(w) for w in _words(query)]
    return list(dict.fromkeys([*words, *((term, False) for term in date_terms(query))]))


def _tsquery(term: tuple[str, bool]) -> str:
    """A term for ``to_tsquery('simple', ...)``."""
    return f"'{term[0]}':*" if term[1] else f"'{term[0]}'"


def _postable(lexeme: str) -> bool:
    """Whether the ``simple`` parser keeps the word whole, so its postings are under it: ASCII
    letters and digits (``parse_config`` would be a phrase of two lexemes)."""
    return lexeme.isascii() and lexeme.isalnum()


def _range(lexeme: str, prefix: bool) -> tuple[str, str]:
    """The postings' terms (in byte order, ``COLLATE "C"``) ``lexeme`` matches: from it up to
    the next string that does not start with it, or the lexeme alone."""
    if prefix:
        return (lexeme, lexeme[:-1] + chr(ord(lexeme[-1]) + 1))
    return (lexeme, lexeme + "\x01")


def _bigrams(query: str) -> list[str]:
    """The distinct CJK bigrams of the query (a lone CJK character stands for itself)."""
    import re
    import unicodedata

    found: dict[str, None] = {}
    for run in re.findall(r"\w+", unicodedata.normalize("NFKC", query)):
        piece = ""
        for ch in [*run, ""]:
            if ch and _is_cjk(ch):
                piece += ch
                continue
            if len(piece) == 1:
                found[piece] = None
            found.update(dict.fromkeys(piece[i : i + 2] for i in range(len(piece) - 1)))
            piece = ""
    return list(found)


def _identifiers(query: str) -> list[str]:
    """Code identifiers and dotted names (``parse_config``, ``a.b.c``): trigram-matched."""
    import re

    return [w for w in re.findall(r"[\w.]+", query) if ("_" in w or "." in w) and len(w) >= 3]


def _fragments(query: str) -> list[str]:
    """ILIKE patterns: runs of non-ASCII, non-CJK word characters and code identifiers,
    matched as substrings through the trigram index."""
    import re

    runs = [
        run
        for run in dict.fromkeys(re.findall(r"\w+", query))
        if any(ch.lower() not in _ASCII_WORD for ch in run)
        and not any(_is_cjk(ch) for ch in run)
        and len(run) >= 2
    ]
    return [f"%{run}%" for run in [*runs, *_identifiers(query)]]


class _Key:
    """One query term: its postings range, or (``gin``) its tsquery through the GIN index, or
    (``gram``) a CJK character or bigram."""

    __slots__ = ("gin", "gram", "hi", "lo", "prefix", "tsquery")

    def __init__(self, lexeme: str, prefix: bool, *, gram: bool = False) -> None:
        self.gram = gram
        self.prefix = prefix
        self.tsquery = _tsquery((lexeme, prefix))
        self.gin = not gram and not _postable(lexeme)
        self.lo, self.hi = _range(lexeme, prefix)


# One statement, one snapshot: the statistics and each key's document count (st), the keys'
# idf weights (wt), every fact holding a key with a flag per key (m, one aggregate over the
# postings' rows, so a fact counts a key once however many of a prefix's words it holds), the
# best of them (top), the keys' tsqueries parsed once (q), the best facts and the active facts
# next to them read from the table and scored (around; a fact next to a best one gains at most
# a share of a best one's score, which no fact outside the best exceeds, so its other side
# is not read), and each with a share of its best neighbour's score (whether every key is
# common, cw, and the keys each holds, matched, are for ``recall._order``).
_SEARCH: LiteralString = """
WITH st AS MATERIALIZED (
  SELECT docs, greatest(length::float8 / greatest(docs, 1), 1) AS avgdl,
         ARRAY(SELECT coalesce((SELECT sum(t.df) FROM cuecard_terms t
                                WHERE t.term >= q.lo COLLATE "C" AND t.term < q.hi COLLATE "C"), 0)
               FROM unnest(%(los)s::text[], %(his)s::text[]) WITH ORDINALITY AS q(lo, hi, i)
               ORDER BY q.i) AS dfs
         {gin}
  FROM cuecard_search_stats LIMIT 1  -- one row, as the planner is told
),
wt AS MATERIALIZED (SELECT docs, avgdl {weights} FROM st),
-- whether every key some fact holds is in half the facts or more (BM25 weighs it nothing)
cw AS MATERIALIZED (SELECT coalesce(greatest({live}), 0) <= 1e-6 AS common FROM wt),
m AS (SELECT fid, max(len) AS len {flags} FROM ({union}) u GROUP BY fid),
top AS (  -- the weights as InitPlans: read once, no join
  SELECT m.fid FROM m
  ORDER BY ({sum}) * %(k1p1)s / (1 + %(k1)s * (1 - %(b)s + %(b)s * m.len
                                                 / (SELECT avgdl FROM wt)))
           {bonus} DESC, m.fid
  LIMIT %(pool)s
),
q AS MATERIALIZED (SELECT {tsqueries}),
around AS (
  SELECT f.note, f.id, f.shown, f.position, f.score, f.matched
  FROM top JOIN cuecard_facts t USING (fid) CROSS JOIN generate_series(-1, 1) AS d(o)
  -- OFFSET 0 keeps the lookup per best fact, through the (note, position) index.
  CROSS JOIN LATERAL (SELECT f.note, f.id, f.shown, f.position, {score} AS score,
                             {matched} AS matched
                      FROM cuecard_facts f, q, wt
                      WHERE f.note = t.note AND f.position = t.position + d.o
                        AND f.status = 'active' OFFSET 0) f
  GROUP BY f.note, f.id, f.shown, f.position, f.score, f.matched
)
SELECT note, id, shown, score, matched, (SELECT common FROM cw) FROM (
  SELECT note, id, shown, position, matched,
         score + %(share)s * coalesce(greatest(
           CASE WHEN lag(position) OVER w = position - 1 THEN lag(score) OVER w END,
           CASE WHEN lead(position) OVER w = position + 1 THEN lead(score) OVER w END
         ), 0) AS score
  FROM around WINDOW w AS (PARTITION BY note ORDER BY position)
) n
ORDER BY score DESC, note, position
LIMIT %(limit)s
"""
_GIN_COUNT: LiteralString = (
    ", (SELECT count(*) FROM cuecard_facts "
    "WHERE status = 'active' AND tsv @@ to_tsquery('simple', %(q{i})s)) AS n{i}"
)
# BM25's idf of a key held by {n} of the docs facts.
_WEIGHT: LiteralString = (
    ", greatest(ln((docs - least({n}, docs) + 0.5) / (least({n}, docs) + 0.5)), 1e-6)::float8"
    " AS w{i}"
)
# One row (fact, length, key) per fact holding key {i}, or (key -1) matching an identifier.
_POSTINGS: LiteralString = (
    "SELECT fid, len, {i} AS k FROM cuecard_postings "
    'WHERE term >= %(lo{i})s COLLATE "C" AND term < %(hi{i})s COLLATE "C"'
)
_GIN: LiteralString = (
    "SELECT fid, length(tsv) AS len, {i} AS k FROM cuecard_facts "
    "WHERE status = 'active' AND tsv @@ to_tsquery('simple', %(q{i})s)"
)
_FRAGS: LiteralString = (
    "SELECT fid, length(tsv) AS len, -1 AS k FROM cuecard_facts "
    "WHERE status = 'active' AND text ILIKE ANY(%(frags)s)"
)


def _statement(keys: list[_Key], frags: bool) -> LiteralString:
    """``_SEARCH`` for these keys (only constant pieces put together; every word, bigram and
    number is a parameter)."""
    gin: list[LiteralString] = []
    weights: list[LiteralString] = []
    live: list[LiteralString] = []
    flags: list[LiteralString] = []
    union: list[LiteralString] = []
    total: list[LiteralString] = []
    tsqueries: list[LiteralString] = []
    tests: list[LiteralString] = []
    held: list[LiteralString] = []
    posted = 0
    for n, key in enumerate(keys):
        i = str(n)
        if key.gin:
            gin.append(_GIN_COUNT.replace("{i}", i))
            count: LiteralString = "n{i}".replace("{i}", i)
        else:
            posted += 1
            count = "dfs[" + str(posted) + "]"
        weights.append(_WEIGHT.replace("{n}", count).replace("{i}", i))
        weights.append((", " + count + " > 0 AS l{i}").replace("{i}", i))
        live.append("CASE WHEN l{i} THEN w{i} END".replace("{i}", i))
        union.append((_GIN if key.gin else _POSTINGS).replace("{i}", i))
        flags.append(", bool_or(k = {i}) AS h{i}".replace("{i}", i))
        total.append("(SELECT w{i} FROM wt) * m.h{i}::int".replace("{i}", i))
        if key.gram:
            test: LiteralString = "strpos(f.text || E'\\n' || f.context, %(g{i})s) > 0"
        else:
            tsqueries.append("to_tsquery('simple', %(q{i})s) AS q{i}".replace("{i}", i))
            test = "f.tsv @@ q.q{i}"
        tests.append(("wt.w{i} * (" + test + ")::int").replace("{i}", i))
        held.append(("(" + test + ")::int").replace("{i}", i))
    bonus: LiteralString = ""
    score: LiteralString = (
        "(" + (" + ".join(tests) or "0") + ") * %(k1p1)s / (1 + %(k1)s * (1 - %(b)s + %(b)s "
        "* length(f.tsv) / wt.avgdl))"
    )
    if frags:
        union.append(_FRAGS)
        flags.append(", bool_or(k = -1) AS hf")
        bonus = "+ %(bonus)s * m.hf::int"
        score += " + CASE WHEN f.text ILIKE ANY(%(frags)s) THEN %(bonus)s ELSE 0 END"
    return (
        _SEARCH.replace("{gin}", "".join(gin))
        .replace("{weights}", "".join(weights))
        .replace("{live}", ", ".join(live) or "NULL")
        .replace("{matched}", " + ".join(held) or "0")
        .replace("{flags}", "".join(flags))
        .replace("{union}", " UNION ALL ".join(union))
        .replace("{sum}", " + ".join(total) or "0")
        .replace("{bonus}", bonus)
        .replace("{tsqueries}", ", ".join(tsqueries) or "1 AS none")
        .replace("{score}", score)
    )


class Pooled:
    """The facts ``pool`` ranks in SQL, best first by BM25 with the neighbours' share: each
    row (note, id, shown, score, keys held), and whether every query key some fact holds is in
    half the facts or more (``common``: BM25 weighs them all nothing)."""

    __slots__ = ("common", "rows")

    def __init__(self, rows: list[tuple[str, str, str, float, int]], common: bool) -> None:
        self.rows = rows
        self.common = common


def pool(vault: Connected, query: str, size: int) -> Pooled:
    """The best ``size`` active facts by BM25 for ``query`` and the active facts next to them,
    rescored with their neighbours' share (see the module docstring)."""
    keys = [_Key(lexeme, prefix) for lexeme, prefix in _terms(query)]
    keys += [_Key(gram, False, gram=True) for gram in _bigrams(query)]
    frags = _fragments(query)
    if (not keys and not frags) or size < 1:
        return Pooled([], False)
    posted = [k for k in keys if not k.gin]
    params: dict[str, object] = {
        "los": [k.lo for k in posted],
        "his": [k.hi for k in posted],
        "frags": frags,
        "limit": 3 * size,  # the best and the facts next to them
        "pool": size,
        "share": NEIGHBOUR_SHARE,
        "k1": K1,
        "k1p1": K1 + 1,
        "b": B,
        "bonus": SUBSTRING_IDF * (K1 + 1) / (1 + K1),
    }
    for i, key in enumerate(keys):
        params |= {f"q{i}": key.tsquery, f"lo{i}": key.lo, f"hi{i}": key.hi, f"g{i}": key.lo}
    rows = vault.alone(_statement(keys, bool(frags)), params)
    return Pooled(
        [(str(n), str(i), str(t), float(s), int(m)) for n, i, t, s, m, _ in rows],
        bool(rows and rows[0][5]),
    )


def rank(vault: Connected, query: str, limit: int) -> list[Hit]:
    """Active facts matching any meaningful word (prefixes from four letters), any date the
    query names, any CJK bigram, or (through the trigram index) a code identifier, best first
    by BM25 with the neighbours' share (``pool``), then ordered as the folder vault's index
    orders its best (``recall._order``: exact forms first, or the length prior). Unlike the
    folder vault's BM25 each word counts once per fact (no term frequency: fact lines rarely
    repeat a word), length is counted in distinct words, and prefixes match."""
    from cuecard.core.recall._order import pool_size, settle
    from cuecard.core.recall._values import Ranking
    from cuecard.core.vault.postgres._notes import note_file_name

    if limit < 1:
        return []
    ranking = Ranking()
    pooled = pool(vault, query, pool_size(limit, ranking))
    rows = pooled.rows

    def read(numbers: list[int]) -> dict[int, tuple[str, int]]:
        return {n: (rows[n][2], rows[n][4] if pooled.common else 0) for n in numbers}

    # (a fact's number is its row's: SQL's order, best first, breaks ties)
    ranked = [(n, row[3]) for n, row in enumerate(rows)]
    return [
        Hit(note_file_name(rows[n][0]), rows[n][1], rows[n][2], score)
        for n, score in settle(ranked, limit, query, ranking, read)
    ]
