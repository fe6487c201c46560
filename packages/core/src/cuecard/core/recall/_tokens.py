"""Tokenisation for recall: words, code identifiers, dotted addresses and CJK text.

Standard library only, and no regular expressions: the cold search process tokenises its query
with this module, and compiling patterns (and importing ``re``) would cost it milliseconds. A
token holds only word characters and the joiners ``. : - / @`` (never a space).

- ``snake_case`` gives ``snake_case``, ``snake``, ``case``; ``CamelCase`` gives ``camelcase``,
  ``camel``, ``case``.
- ``127.0.0.1:8080`` gives the whole address, ``127.0.0.1``, ``8080`` and the numbers.
- Chinese, Japanese and Korean runs give every character and every pair of adjacent
  characters, so a query word found inside a longer run still matches.
- Plain English words (an a-z word, or one capitalised) lose their inflection through
  ``cuecard.core.engine._words.stem``, the stemmer keyword triggers use (``Researching`` and
  ``research``, ``migrations`` and ``migration`` meet); identifiers, numbers and CJK text are
  kept as written (lowercased), and the pieces of an identifier are stemmed as words. An
  inflected word also gives itself as written, so the form a query names ranks above the
  word's other forms (a known-item query loses almost nothing to stemming).
- A query may drop its English function words (``FUNCTION_WORDS``: how a question is asked,
  never what it is about); what is left is searched, or the whole query when nothing is.
"""

from __future__ import annotations

import unicodedata

from cuecard.core.engine._words import stem as _stem

__all__ = [
    "FUNCTION_WORDS",
    "STOPWORDS",
    "TOKENIZER_VERSION",
    "exact_words",
    "has_word",
    "query_tokens",
    "tokens",
]

TOKENIZER_VERSION = "3"

_JOINERS = frozenset(".:/@-")
_OUTER = frozenset(":/@")
_INNER = frozenset("._-")
# A token's length at most (longer ones are cut).
MAX_TOKEN = _MAX = 64

# Chinese, Japanese and Korean letters, by code point.
_CJK_RANGES = (
    (0x1100, 0x11FF),
    (0x3040, 0x30FF),
    (0x3130, 0x318F),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
    (0x20000, 0x2FFFF),
)

# Words so common that they carry no signal; neither indexed nor searched.
STOPWORDS = frozenset(
    "a an and are as at be by for from in is it of on or that the this to was were with".split()
)


# English function words: how a question is asked, never what it is about. A content query
# drops them (a question otherwise matches every fact that says "what" or "did").
FUNCTION_WORDS = frozenset(
    """about above after again all also any because been before being below between both but
    can cannot could did does doing done down during each either else ever every few get gets
    got had has have having her here hers him his how however into its itself just least less
    let like made make may might more most much must near need needs neither nor not now off
    once only other ought our ours out over own per quite rather really said same say says
    shall she should since some still such than their theirs them then there these they
    those though through thus too under until upon use used uses using very via want wants
    was way ways well were what whatever when whenever where whether which while who whom
    whose why will within without would yes yet you your yours am do he i if me my no so
    us we""".split()
)
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_cjk(char: str) -> bool:
    code = ord(char)
    if code < 0x1100:  # Latin, Greek, Cyrillic and the rest below the first range: most text
        return False
    return any(low <= code <= high for low, high in _CJK_RANGES)


def runs(text: str) -> list[str]:
    """Maximal runs of word characters, joined through ``.:/@-`` when a word follows."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if not _is_word(text[i]):
            i += 1
            continue
        j = i
        while True:
            while j < n and _is_word(text[j]):
                j += 1
            k = j
            while k < n and text[k] in _JOINERS:
                k += 1
            if k > j and k < n and _is_word(text[k]):
                j = k
                continue
            break
        found.append(text[i:j])
        i = j
    return found


def _split(text: str, separators: frozenset[str]) -> list[str]:
    parts: list[str] = []
    start = 0
    for i, char in enumerate(text):
        if char in separators:
            if i > start:
                parts.append(text[start:i])
            start = i + 1
    if start < len(text):
        parts.append(text[start:])
    return parts


def humps(word: str) -> list[str]:
    """Camel-case pieces of an ASCII word: ``parseHTTPResponse`` -> parse, HTTP, Response."""
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        char = word[i]
        if char.isdigit():
            j = i
            while j < n and word[j].isdigit():
                j += 1
            out.append(word[i:j])
            i = j
        elif char.isupper():
            j = i
            while j < n and word[j].isupper():
                j += 1
            if j < n and word[j].islower():
                if j - i > 1:
                    out.append(word[i : j - 1])
                    i = j - 1
                k = i + 1
                while k < n and word[k].islower():
                    k += 1
                out.append(word[i:k])
                i = k
            else:
                out.append(word[i:j])
                i = j
        elif char.islower():
            k = i
            while k < n and word[k].islower():
                k += 1
            out.append(word[i:k])
            i = k
        else:
            i += 1
    return out


def plain(word: str) -> bool:
    """An English word as written in prose: a-z letters, the first of either case."""
    return (
        len(word) > 2
        and (word[0] in _LOWER or word[0] in _UPPER)
        and all(c in _LOWER for c in word[1:])
    )


def _word(part: str, out: list[str]) -> None:
    """One identifier-like part: the whole word and its camel-case humps (words unstemmed; the
    caller stems what is plain)."""
    out.append(part.lower()[:_MAX] if not plain(part) else "\0" + part.lower())
    if part.isascii():
        pieces = humps(part)
        if len(pieces) > 1:
            out.extend(("\0" + h.lower()) if plain(h) else h.lower()[:_MAX] for h in pieces)


def _latin(run: str, out: list[str]) -> None:
    compound = any(c in _JOINERS or c == "_" for c in run)
    if compound:
        out.append(run.lower()[:_MAX])
    outer = _split(run, _OUTER)
    for piece in outer:
        inner = _split(piece, _INNER)
        if len(outer) > 1 and any(c in _INNER for c in piece):
            out.append(piece.lower()[:_MAX])
        if len(inner) == 1 and compound and len(outer) == 1:
            _word(inner[0], out)
            continue
        for part in inner:
            _word(part, out)


def _cjk(run: str, out: list[str]) -> None:
    out.extend(run)
    out.extend(run[i : i + 2] for i in range(len(run) - 1))


def _pieces(run: str) -> list[tuple[bool, str]]:
    """A run cut into pieces, each marked CJK or not."""
    pieces: list[tuple[bool, str]] = []
    for char in run:
        cjk = _is_cjk(char)
        if pieces and pieces[-1][0] == cjk:
            pieces[-1] = (cjk, pieces[-1][1] + char)
        else:
            pieces.append((cjk, char))
    return pieces


def run_raw(run: str, out: list[str]) -> None:
    """The tokens of one run (of ``runs``, NFKC-normalised text), plain words marked by a
    leading NUL and not yet stemmed, appended to ``out``."""
    if max(run) >= "\u1100":
        for cjk, piece in _pieces(run):
            if cjk:
                _cjk(piece, out)
            else:
                for sub in runs(piece):
                    _latin(sub, out)
    else:
        _latin(run, out)


def _raw(text: str) -> list[str]:
    """Every token of ``text``, plain words marked by a leading NUL and not yet stemmed."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for run in runs(text):
        run_raw(run, out)
    return out


def finish(raw: list[str], stem: bool, whole: bool = False) -> list[str]:
    """Tokens without stopwords, plain words stemmed (with ``whole``, each followed by the word
    as typed, which an identifier spelled in one case may be: ``getusers``). A word that is its
    own stem is then counted twice: as an inflected word's typed form does, the exact form a
    query names ranks above the word's inflections (counted once, MRR@10 of
    ``tools/bench/recall.py`` drops from 0.907 to 0.897)."""
    out = []
    for token in raw:
        if token[0] == "\0":
            token = token[1:]
            if token in STOPWORDS:
                continue
            if stem:
                out.append(_stem(token)[:_MAX])
                if not whole:
                    continue
            token = token[:_MAX]
        elif token in STOPWORDS:
            continue
        out.append(token)
    return out


def tokens(text: str, *, stem: bool = True) -> list[str]:
    """Every token of ``text`` in order, repeated as often as it occurs (term frequency);
    plain words stemmed unless ``stem`` is false, an inflected word followed by itself as
    written (so the form a query names ranks above its other forms)."""
    return finish(_raw(text), stem, whole=True)


def exact_words(text: str, *, content: bool = False) -> list[str]:
    """The distinct plain words of a query as typed (lower-cased), without stopwords and, with
    ``content``, without function words (unless nothing else is left): the forms an entry that
    names them exactly holds."""
    words = [t[1:] for t in _raw(text) if t[0] == "\0" and t[1:] not in STOPWORDS]
    if content:
        kept = [w for w in words if w not in FUNCTION_WORDS]
        words = kept or words
    return list(dict.fromkeys(words))


def has_word(text: str, word: str) -> bool:
    """Whether lower-cased ``text`` holds ``word`` whole (no letter, digit nor ``_`` either
    side)."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        before = text[at - 1] if at else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        at = text.find(word, at + 1)
    return False


def query_tokens(text: str, *, content: bool = False, stem: bool = True) -> list[str]:
    """The distinct tokens of a query, in first-seen order; with ``content``, without its
    function words (unless nothing else is left). A stemmed word is followed by the word as
    typed when they differ (an identifier typed in lowercase matches itself)."""
    raw = _raw(text)
    if content:
        kept = [t for t in raw if (t[1:] if t[0] == "\0" else t) not in FUNCTION_WORDS]
        raw = kept if finish(kept, stem) else raw
    return list(dict.fromkeys(finish(raw, stem, whole=True)))
