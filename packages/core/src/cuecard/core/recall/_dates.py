"""Calendar dates in text, as search terms: "8 May 2023", "May 8, 2023", "2023-05-08", "May 2023".

Standard library only, and no regular expressions (the cold search reads its query with this).
A date gives a term for its day (``20230508``), one for its month (``202305``) and one for the
day in any year (``0508``); a day and a month without a year the last alone, a month and a year
the month's term alone: plain numbers, which the tokenizer keeps whole. A question that
names a date ("what did she say in May 2023?") then reaches the entries dated so, in whatever
form the note wrote the date, although "may" is a function word that a query drops and "2023"
is in every heading of the year.

A month name counts as a date only next to a day or a year ("the May release" is not one; "may"
and "march" are also words).
"""

from __future__ import annotations

from cuecard.core.recall._tokens import runs

__all__ = ["MONTHS", "date_terms", "dated"]

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_SUFFIXES = ("st", "nd", "rd", "th")
# The first three letters of every month's name (each name and abbreviation starts so).
_STEMS = tuple(dict.fromkeys(name[:3] for name in MONTHS))
# Month names that are no other word: a date in lower case may use them.
_UNAMBIGUOUS = frozenset(
    "january february april june july august september october november december".split()
)


def _day(word: str) -> int | None:
    """1-31 from ``8``, ``08``, ``8th``; else ``None``."""
    if word[-2:].lower() in _SUFFIXES:
        word = word[:-2]
    if 0 < len(word) <= 2 and word.isascii() and word.isdigit() and 1 <= int(word) <= 31:
        return int(word)
    return None


def _year(word: str) -> int | None:
    if len(word) == 4 and word.isascii() and word.isdigit() and 1900 <= int(word) <= 2199:
        return int(word)
    return None


def _iso(word: str) -> tuple[int, int, int | None] | None:
    """``2023-05-08`` or ``2023-05`` as (year, month, day or None)."""
    parts = word.split("-")
    if len(parts) not in (2, 3) or _year(parts[0]) is None:
        return None
    if not all(len(p) == 2 and p.isascii() and p.isdigit() for p in parts[1:]):
        return None
    month = int(parts[1])
    day = int(parts[2]) if len(parts) == 3 else None
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    return int(parts[0]), month, day


def _terms(year: int | None, month: int, day: int | None) -> list[str]:
    if year is None:
        return [f"{month:02d}{day:02d}"] if day is not None else []
    if day is None:
        return [f"{year}{month:02d}"]
    return [f"{year}{month:02d}{day:02d}", f"{year}{month:02d}", f"{month:02d}{day:02d}"]


def date_terms(text: str) -> list[str]:
    """The distinct date terms of ``text``, in first-seen order."""
    # Most text holds no date: a date has a digit, and a month's name or an ISO dash (a few
    # substring searches in C spare the index build a word-by-word pass over every fact).
    if not any(map(text.__contains__, "0123456789")):
        return []
    if "-" not in text and not any(map(text.lower().__contains__, _STEMS)):
        return []
    words = runs(text)
    out: list[str] = []
    for at, word in enumerate(words):
        if "-" in word:
            iso = _iso(word)
            if iso is not None:
                out += _terms(*iso)
            continue
        month = MONTHS.get(word.lower()) if word.isalpha() else None
        if month is None or (word.islower() and word not in _UNAMBIGUOUS):
            continue  # ("I may 8 things": a short or ambiguous name is capitalised in a date)
        before = _day(words[at - 1]) if at else None
        if before is None and at > 1 and words[at - 1].lower() == "of":  # "8th of May"
            before = _day(words[at - 2])
        after = words[at + 1 : at + 3]
        day, year = before, None
        if after:
            year = _year(after[0])
            if year is None and day is None:
                day = _day(after[0])
                year = _year(after[1]) if day is not None and len(after) > 1 else None
        out += _terms(year, month, day)
    return list(dict.fromkeys(out))


def dated(context: str) -> list[str]:
    """The date terms of an entry's headings (``context``, outermost first, joined by
    `` / ``): the innermost heading that names a date dates the entry ("# May and June 2023"
    over "## Session 3: 8 June 2023" is the 8th of June)."""
    for heading in reversed(context.split(" / ")):
        found = date_terms(heading)
        if found:
            return found
    return []
