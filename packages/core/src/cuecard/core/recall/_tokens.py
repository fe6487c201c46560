"""Tokenisation for recall: words, code identifiers, dotted addresses and CJK text.

Standard library only, and no regular expressions: the cold search process tokenises its query
with this module, and compiling patterns (and importing ``re``) would cost it milliseconds. A
token holds only word characters and the joiners ``. : - / @`` (never a space).

- ``snake_case`` gives ``snake_case``, ``snake``, ``case``; ``CamelCase`` gives ``camelcase``,
  ``camel``, ``case``.
- ``127.0.0.1:8080`` gives the whole address, ``127.0.0.1``, ``8080`` and the numbers.
- Chinese, Japanese and Korean runs give every character and every pair of adjacent
  characters, so a query word found inside a longer run still matches.
"""

from __future__ import annotations

import unicodedata

__all__ = ["STOPWORDS", "TOKENIZER_VERSION", "query_tokens", "tokens"]

TOKENIZER_VERSION = "1"

_JOINERS = frozenset(".:/@-")
_OUTER = frozenset(":/@")
_INNER = frozenset("._-")
_MAX = 64

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


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _is_cjk(char: str) -> bool:
    code = ord(char)
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


def _word(part: str, out: list[str]) -> None:
    """One identifier-like part: the whole word and its camel-case humps."""
    out.append(part.lower()[:_MAX])
    if part.isascii():
        pieces = humps(part)
        if len(pieces) > 1:
            out.extend(h.lower()[:_MAX] for h in pieces)


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


def tokens(text: str) -> list[str]:
    """Every token of ``text`` in order, repeated as often as it occurs (term frequency)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for run in runs(text):
        if max(run) >= "\u1100":
            for cjk, piece in _pieces(run):
                if cjk:
                    _cjk(piece, out)
                else:
                    for sub in runs(piece):
                        _latin(sub, out)
        else:
            _latin(run, out)
    return [t for t in out if t not in STOPWORDS]


def query_tokens(text: str) -> list[str]:
    """The distinct tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokens(text)))
