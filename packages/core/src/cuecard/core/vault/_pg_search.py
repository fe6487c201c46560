"""Search on a PostgreSQL vault: full-text ranking weighted by BM25 idf, plus trigrams.

Words match through the GIN full-text index (``to_tsvector('simple', ...)``); CJK runs and code
identifiers match as substrings through the ``pg_trgm`` index. Reads only: recording use is the
caller's part.
"""

from __future__ import annotations

from typing import LiteralString

from cuecard.core.recall._index import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._pg import PgVault

__all__ = ["rank"]

_ASCII_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _words(query: str) -> list[str]:
    """The query's words that carry meaning: no stopwords nor English function words."""
    import re

    from cuecard.core.recall._graph import FUNCTION_WORDS
    from cuecard.core.recall._tokens import STOPWORDS

    words = dict.fromkeys(w.lower() for w in re.findall(r"\w+", query))
    kept = [w for w in words if w not in STOPWORDS and w not in FUNCTION_WORDS]
    return kept or list(words)


def _tsquery(query: str) -> str:
    """An OR of the query's meaningful words for ``to_tsquery('simple', ...)`` (BM25 matches
    any word); words of four letters or more also match as prefixes (a cheap stemmer)."""
    return " | ".join(f"'{w}':*" if len(w) >= 4 else f"'{w}'" for w in _words(query))


def _identifiers(query: str) -> list[str]:
    """Code identifiers and dotted names (``parse_config``, ``a.b.c``): trigram-matched."""
    import re

    return [w for w in re.findall(r"[\w.]+", query) if ("_" in w or "." in w) and len(w) >= 3]


def _fragments(query: str) -> list[str]:
    """LIKE patterns: runs of non-ASCII word characters (CJK text has no spaces) and code
    identifiers, matched as substrings through the trigram index."""
    import re

    runs = [
        run
        for run in dict.fromkeys(re.findall(r"\w+", query))
        if any(ch.lower() not in _ASCII_WORD for ch in run) and len(run) >= 2
    ]
    return [f"%{run}%" for run in [*runs, *_identifiers(query)]]


_SEARCH = """
SELECT note, id, shown, text,
       ts_rank_cd(tsv, to_tsquery('simple', %(tsq)s), 1) * 2
       + CASE WHEN text ILIKE ANY(%(frags)s) THEN 0.5 ELSE 0 END AS score
FROM cuecard_facts
WHERE status = 'active'
  AND (tsv @@ to_tsquery('simple', %(tsq)s)
       OR text ILIKE ANY(%(frags)s))
ORDER BY score DESC, note, position
LIMIT %(limit)s
"""
# Without CJK text or identifiers in the query: the full-text index alone.
_SEARCH_WORDS = """
SELECT note, id, shown, text, ts_rank_cd(tsv, to_tsquery('simple', %(tsq)s), 1) * 2 AS score
FROM cuecard_facts
WHERE status = 'active' AND tsv @@ to_tsquery('simple', %(tsq)s)
ORDER BY score DESC, note, position
LIMIT %(limit)s
"""


def rank(vault: PgVault, query: str, limit: int) -> list[Hit]:
    """Facts matching any meaningful word (prefixes from four letters), scored by the sum of
    the matched words' BM25 idf plus PostgreSQL's cover-density rank, plus substring matches,
    through the trigram index, of CJK runs and code identifiers. Unlike BM25 there is no
    term-frequency saturation nor length normalisation."""
    import math

    frags = _fragments(query)
    terms = [t for t in _tsquery(query).split(" | ") if t]
    with vault.conn.transaction():
        # Inverse document frequency per word (BM25's idf), counted through the GIN index.
        counts: LiteralString = ", ".join(
            ["(SELECT count(*) FROM cuecard_facts WHERE tsv @@ to_tsquery('simple', %s))"]
            * len(terms)
        )
        # Only constant SQL pieces are joined; every word goes in as a parameter.
        found = vault.conn.execute(
            "SELECT (SELECT count(*) FROM cuecard_facts)"  # noqa: S608
            + (", " + counts if terms else ""),
            terms,
        ).fetchone()
        total, *docs = (int(v) for v in found) if found else (0,)
        weights = [math.log((total - n + 0.5) / (n + 0.5) + 1.0) for n in docs]
        idf: LiteralString = (
            " + ".join(["%s * (tsv @@ to_tsquery('simple', %s))::int"] * len(terms)) or "0"
        )
        sql: LiteralString = (_SEARCH if frags else _SEARCH_WORDS).replace(
            "ts_rank_cd(tsv, to_tsquery('simple', %(tsq)s), 1) * 2",
            "(" + idf + ") + ts_rank_cd(tsv, to_tsquery('simple', %(tsq)s), 1)",
        )
        named: dict[str, object] = {f"w{i}": w for i, w in enumerate(weights)}
        named |= {f"t{i}": t for i, t in enumerate(terms)}
        for i in range(len(terms)):
            sql = sql.replace("%s * (tsv", f"%(w{i})s * (tsv", 1).replace(
                "to_tsquery('simple', %s)", f"to_tsquery('simple', %(t{i})s)", 1
            )
        params = {"tsq": _tsquery(query) or "''", "frags": frags, "limit": limit, **named}
        rows = vault.conn.execute(sql, params).fetchall()
    from cuecard.core.vault._pg_notes import note_file_name

    hits = [
        Hit(note_file_name(note), ident, shown, float(score))
        for note, ident, shown, _, score in rows
    ]
    return hits
