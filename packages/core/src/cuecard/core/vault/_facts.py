"""Fact lines: parsing inbox files and notes, stamps, ids, similarity. Pure functions.

Standard library only (the cold search path uses ``note_facts`` and ``fact_id``).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date

__all__ = [
    "NoteFact",
    "bare",
    "classify_against",
    "fact_id",
    "inbox_facts",
    "note_facts",
    "similarity",
    "stamp_date",
    "usage_tag",
]

_BULLET = re.compile(r"^(?:[-*•+])\s+")
# The characters a bullet starts with (a line starting otherwise needs no match).
_MARKS = frozenset("-*•+")
# Stamps of both layouts, and the older spellings the other system accepts.
STAMP = re.compile(
    r"\s*（写入 (\d{4}-\d{2}-\d{2})｜来源：[^）]*）"
    r"|\s*\(written (\d{4}-\d{2}-\d{2}) ?[｜|] ?source: ?[^)]*\)"
)
_USAGE = re.compile(r"｜使用 (\d+) 次(?:·最近 (\d{4}-\d{2}-\d{2}))?")
PLACEHOLDER = re.compile(r"^示例[:：]|（示例，替换为|（示例）|^example[:：]|\(example\)$", re.I)
_HEADING = re.compile(r"^(#{1,6})\s*(.*?)\s*$")
# A heading line: its ``#`` marks and its title (search indexes a fact with its headings).
HEADING = _HEADING
_SUPERSEDED = re.compile(r"已取代|已失效|已废弃|superseded|obsolete", re.IGNORECASE)


class NoteFact:
    """One fact line of a canonical note: ``line`` as written (no line break), ``text`` the bare
    fact, ``superseded`` (under a superseded heading), ``placeholder`` (a template example),
    ``context`` the headings it sits under, outermost first, joined by `` / `` (``""`` under
    none: what search indexes it with)."""

    __slots__ = ("context", "line", "placeholder", "superseded", "text")

    def __init__(
        self, line: str, text: str, superseded: bool, placeholder: bool, context: str = ""
    ) -> None:
        self.line = line
        self.text = text
        self.superseded = superseded
        self.placeholder = placeholder
        self.context = context


def bare(line: str) -> str:
    """A fact line reduced to the fact: the comparison key for dedup and conflicts."""
    return _unstamped(_BULLET.sub("", line.strip(), count=1))


def _unstamped(text: str) -> str:
    """``text`` without its stamp and usage tag, stripped."""
    # (Each pattern only where its literal part is: most lines hold neither.)
    if "（写入 " in text or "(written " in text:
        text = STAMP.sub("", text)
    if "｜使用 " in text:
        text = _USAGE.sub("", text)
    return text.strip()


def _placeholder(fact: str) -> bool:
    """``PLACEHOLDER`` finds something in ``fact`` (an ASCII fact naming no "example" cannot
    match: no other ASCII text matches those letters ignoring case)."""
    if fact.isascii() and "example" not in fact.lower() and "示例" not in fact:
        return False
    return PLACEHOLDER.search(fact) is not None


def fact_id(text: str) -> str:
    """A stable short id of a bare fact."""
    import hashlib

    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:12]


def stamp_date(line: str) -> date | None:
    """The promotion date in a line's stamp, if it has one."""
    from datetime import date

    match = STAMP.search(line)
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1) or match.group(2))
    except ValueError:
        return None


def usage_tag(line: str) -> tuple[int, date | None]:
    """Uses recorded in the line itself (``｜使用 N 次·最近 D``), as the other system writes."""
    from datetime import date

    match = _USAGE.search(line)
    if match is None:
        return (0, None)
    last = None
    if match.group(2):
        try:
            last = date.fromisoformat(match.group(2))
        except ValueError:
            last = None
    return (int(match.group(1)), last)


def inbox_facts(text: str) -> list[str]:
    """The facts of a submission file: every non-blank line that is not a heading."""
    facts = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("<!--"):
            continue
        line = _BULLET.sub("", line, count=1).strip()
        if line:
            facts.append(line)
    return facts


def note_facts(text: str) -> list[NoteFact]:
    """The bullet lines of a note, each marked superseded (by its heading) or placeholder, with
    the headings it sits under (``context``)."""
    facts = []
    superseded = False
    path: list[tuple[int, str]] = []
    context = ""
    for raw in text.splitlines():
        heading = _HEADING.match(raw) if raw.startswith("#") else None
        if heading:
            title = heading.group(2)
            superseded = bool(_SUPERSEDED.search(title))
            level = len(heading.group(1))
            path = [(lv, t) for lv, t in path if lv < level]
            if title:
                path.append((level, title))
            context = " / ".join(t for _, t in path)
            continue
        line = raw.strip()
        if line[:2] == "- " and not line[2:3].isspace():  # (most bullets: the pattern's end)
            start = 2
        else:
            bullet = _BULLET.match(line) if line[:1] in _MARKS else None
            if bullet is None:
                continue
            start = bullet.end()
        if line.startswith("- [ ]"):
            continue
        fact = _unstamped(line[start:])  # (``bare(raw)``: the bullet found once)
        if not fact:
            continue
        facts.append(NoteFact(raw.rstrip(), fact, superseded, _placeholder(fact), context))
    return facts


def _bigrams(text: str) -> set[str]:
    text = text.strip()
    return {text[i : i + 2] for i in range(len(text) - 1)}


def similarity(a: str, b: str) -> float:
    """Shared adjacent-character pairs over the larger pair set (the other system's measure)."""
    a, b = a.strip(), b.strip()
    if not a or not b:
        return 1.0 if a == b else 0.0
    ga, gb = _bigrams(a), _bigrams(b)
    if not ga or not gb:
        return 1.0 if a == b else 0.0
    return len(ga & gb) / max(len(ga), len(gb))


def classify_against(fact: str, existing: list[str]) -> tuple[str, str | None]:
    """``duplicate`` (an equal line exists), ``conflict`` (the most similar line at ≥ 0.5) or
    ``new``. An exact duplicate anywhere wins over an earlier similar line."""
    key = " ".join(fact.split()).casefold()
    for line in existing:
        if " ".join(line.split()).casefold() == key:
            return ("duplicate", line)
    best, best_score = None, 0.0
    for line in existing:
        score = similarity(fact, line)
        if score > best_score:
            best, best_score = line, score
    if best is not None and best_score >= 0.5:
        return ("conflict", best)
    return ("new", None)


def best_overlap(fact: str, existing: list[str], floor: float) -> str | None:
    """The most similar existing line at or above ``floor``."""
    best, best_score = None, 0.0
    for line in existing:
        score = similarity(fact, line)
        if score > best_score:
            best, best_score = line, score
    return best if best_score >= floor else None
