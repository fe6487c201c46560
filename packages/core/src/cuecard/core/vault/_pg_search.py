"""Search on a PostgreSQL vault: Okapi BM25 over PostgreSQL full-text matches, CJK bigrams and
code identifiers.

A fact is searched together with its note's headings (``context``: a date, a session, a
section), as the folder vault indexes it: their words and CJK bigrams count, and the fact's
length includes them. Words match through the GIN full-text index (``to_tsvector('simple',
...)`` of the fact and its headings). A plain English word is stemmed as the folder vault
stems it (``cuecard.core.engine._words.stem``) and its stem of four letters or more matches as a
prefix (``research`` finds "researching", ``migrations`` finds "migration"); English function
words are dropped from the query, as there. Chinese,
Japanese and Korean text has no spaces, so a query's CJK runs are cut into the bigrams the
folder vault's BM25 uses, each matched as a substring; code identifiers and dotted names match
as substrings through the ``pg_trgm`` index. Every matched word or bigram adds its BM25 idf,
the sum is scaled by BM25's length normalisation (the fact's length in distinct words against
the average), and an identifier match adds a fixed share. As in the folder vault, a fact then
gains ``NEIGHBOUR_SHARE`` of the best score of the active facts next to it in its note (by
position), so the reply after a question that names the topic ranks itself. Reads only:
recording use is the caller's part.

Cost: the facts' count comes from the planner's statistics once the table is large (an exact
count below ``EXACT_BELOW`` facts), the average length from a sample, and each word's document
count from the GIN index. A query with CJK text also scans the table once (no index serves
two-character substrings); its bigrams' document counts are counted among the matches, in the
same statement (every fact holding a bigram is a match).
"""

from __future__ import annotations

from typing import LiteralString

from cuecard.core.recall._index import NEIGHBOUR_SHARE, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._pg import PgVault

__all__ = ["rank"]

_ASCII_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"
K1 = 1.2
B = 0.75
# An identifier's substring match counts as much as a matched word of this idf.
SUBSTRING_IDF = 3.0
# Below this many facts (by the planner's estimate) the count is exact.
EXACT_BELOW = 10_000
# The average length is taken over at most this many facts.
LENGTH_SAMPLE = 2_000


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


def _term(word: str) -> str:
    """One word of the tsquery: a plain word's stem as a prefix from four letters (a stem
    ending in ``i`` for a ``y`` loses it: ``retries`` -> ``retr:*`` finds "retry"), else the
    word itself."""
    from cuecard.core.engine._words import stem
    from cuecard.core.recall._tokens import plain

    if plain(word):
        base = stem(word)
        if base.endswith("i") and word.endswith(("y", "ies", "ied")):
            base = base[:-1]
        if len(base) >= 4:
            return f"'{base}':*"
    return f"'{word}':*" if len(word) >= 4 else f"'{word}'"


def _tsquery(query: str) -> str:
    """An OR of the query's meaningful words for ``to_tsquery('simple', ...)`` (BM25 matches
    any word), stems and words of four letters or more as prefixes."""
    return " | ".join(dict.fromkeys(_term(w) for w in _words(query)))


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


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


_STATS: LiteralString = """
SELECT CASE WHEN c.reltuples >= %(exact_below)s THEN c.reltuples::bigint
            ELSE (SELECT count(*) FROM cuecard_facts WHERE status = 'active') END,
       (SELECT coalesce(avg(length(tsv)), 1)
        FROM (SELECT tsv FROM cuecard_facts WHERE status = 'active' LIMIT %(sample)s) s)
       {words}
FROM pg_class c WHERE c.oid = 'cuecard_facts'::regclass
"""
_WORD_COUNT: LiteralString = (
    ", (SELECT count(*) FROM cuecard_facts WHERE tsv @@ to_tsquery('simple', %(t{i})s))"
)
_SEARCH: LiteralString = """
WITH s AS (
  SELECT note, position,
         ({idf}) * %(k1p1)s / (1 + %(k1)s * (1 - %(b)s + %(b)s * length(tsv) / %(avgdl)s))
         {bonus} AS score
  FROM (SELECT note, id, shown, position, tsv, text{columns}
        FROM (SELECT *, text || E'\\n' || context AS body FROM cuecard_facts) f
        WHERE status = 'active' AND ({match})) c
),
top AS (SELECT note, position FROM s ORDER BY score DESC, note, position LIMIT %(pool)s),
near AS (
  SELECT DISTINCT f.note, f.id, f.shown, f.position
  FROM top t JOIN cuecard_facts f
    ON f.note = t.note AND f.position BETWEEN t.position - 1 AND t.position + 1
  WHERE f.status = 'active'
)
SELECT n.note, n.id, n.shown,
       coalesce(own.score, 0)
       + %(share)s * coalesce(greatest(before.score, after.score), 0) AS score
FROM near n
LEFT JOIN s own ON own.note = n.note AND own.position = n.position
LEFT JOIN s before ON before.note = n.note AND before.position = n.position - 1
LEFT JOIN s after ON after.note = n.note AND after.position = n.position + 1
ORDER BY score DESC, n.note, n.position
LIMIT %(limit)s
"""


def rank(vault: PgVault, query: str, limit: int) -> list[Hit]:
    """Active facts matching any meaningful word (prefixes from four letters), any CJK bigram,
    or (through the trigram index) a code identifier, best first by BM25 (see the module
    docstring). Unlike the folder vault's BM25 each word counts once per fact (no term
    frequency: fact lines rarely repeat a word), length is counted in distinct words, and
    prefixes match."""
    import math

    terms = [t for t in _tsquery(query).split(" | ") if t]
    grams = _bigrams(query)
    frags = _fragments(query)
    if (not terms and not grams and not frags) or limit < 1:
        return []
    params: dict[str, object] = {
        "exact_below": EXACT_BELOW,
        "sample": LENGTH_SAMPLE,
        "tsq": " | ".join(terms),
        "frags": frags,
        "grams": [_like(g) for g in grams],
        "limit": limit,
        "pool": max(limit * 4, 40),
        "share": NEIGHBOUR_SHARE,
        "k1": K1,
        "k1p1": K1 + 1,
        "b": B,
        "bonus": SUBSTRING_IDF * (K1 + 1) / (1 + K1),
        **{f"t{i}": t for i, t in enumerate(terms)},
        **{f"g{i}": g for i, g in enumerate(grams)},
    }
    # Only constant SQL pieces are put together; every word, bigram and weight is a parameter.
    stats = _STATS.replace(
        "{words}", "".join(_WORD_COUNT.replace("{i}", str(i)) for i in range(len(terms)))
    )
    parts: list[LiteralString] = [
        "%(w{i})s * (tsv @@ to_tsquery('simple', %(t{i})s))::int".replace("{i}", str(i))
        for i in range(len(terms))
    ]
    # A bigram's document count is its count among the matches (every fact holding it is one).
    gram_idf: LiteralString = (
        "greatest(ln((greatest(%(total)s, d{i}) - d{i} + 0.5) / (d{i} + 0.5)), 1e-6) * m{i}"
    )
    parts += [gram_idf.replace("{i}", str(i)) for i in range(len(grams))]
    columns: LiteralString = "".join(
        ", (strpos(body, %(g{i})s) > 0)::int AS m{i}, "
        "sum((strpos(body, %(g{i})s) > 0)::int) OVER () AS d{i}".replace("{i}", str(i))
        for i in range(len(grams))
    )
    match: list[LiteralString] = []
    if terms:
        match.append("tsv @@ to_tsquery('simple', %(tsq)s)")
    if grams:
        match.append("body LIKE ANY(%(grams)s)")
    if frags:
        match.append("text ILIKE ANY(%(frags)s)")
    bonus: LiteralString = (
        "+ CASE WHEN text ILIKE ANY(%(frags)s) THEN %(bonus)s ELSE 0 END" if frags else ""
    )
    sql = (
        _SEARCH.replace("{idf}", " + ".join(parts) or "0")
        .replace("{bonus}", bonus)
        .replace("{match}", " OR ".join(match))
        .replace("{columns}", columns)
    )
    with vault.conn.transaction():
        found = vault.conn.execute(stats, params).fetchone()
        assert found is not None
        counts = [int(n) for n in found[2 : 2 + len(terms)]]
        # The planner's estimate may lag behind a word's exact count.
        total = max(int(found[0]), *counts, 1)
        avgdl = max(float(found[1]), 1.0)

        def idf(n: int) -> float:
            return max(math.log((total - n + 0.5) / (n + 0.5)), 1e-6)

        params |= {f"w{i}": idf(n) for i, n in enumerate(counts)}
        params["avgdl"] = avgdl
        params["total"] = total
        rows = vault.conn.execute(sql, params).fetchall()
    from cuecard.core.vault._pg_notes import note_file_name

    return [
        Hit(note_file_name(note), ident, shown, float(score)) for note, ident, shown, score in rows
    ]
