"""Tokenisation for recall: words, code identifiers, dotted addresses and CJK text.

Standard library only (the cold search path imports it). A token holds only word characters and
the joiners ``. : - / @``, so it survives SQLite FTS5's ``unicode61`` tokenizer when that is told
the joiners are token characters.

- ``snake_case`` gives ``snake_case``, ``snake``, ``case``; ``CamelCase`` gives ``camelcase``,
  ``camel``, ``case``.
- ``127.0.0.1:8080`` gives the whole address, ``127.0.0.1``, ``8080`` and the numbers.
- Chinese, Japanese and Korean runs give every character and every pair of adjacent
  characters, so a query word found inside a longer run still matches.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["FTS_TOKENIZER", "TOKENIZER_VERSION", "query_tokens", "tokens"]

TOKENIZER_VERSION = "1"
FTS_TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '._:-/@'"

_RUN = re.compile(r"\w+(?:[.:/@-]+\w+)*")
_CJK = re.compile(
    "([\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]+)"
)
_OUTER = re.compile(r"[:/@]+")
_INNER = re.compile(r"[._-]+")
_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_A-Za-z]+")
_MAX = 64

# Words so common that they carry no signal; neither indexed nor searched.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
    ]
)


def _word(part: str, out: list[str]) -> None:
    """One identifier-like part: the whole word and its camel-case humps."""
    if not part:
        return
    out.append(part.lower()[:_MAX])
    humps = _HUMPS.findall(part)
    if len(humps) > 1:
        out.extend(h.lower()[:_MAX] for h in humps)


def _latin(run: str, out: list[str]) -> None:
    compound = bool(_OUTER.search(run) or _INNER.search(run))
    if compound:
        out.append(run.lower()[:_MAX])
    outer = [p for p in _OUTER.split(run) if p]
    for piece in outer:
        if len(outer) > 1 and _INNER.search(piece):
            out.append(piece.lower()[:_MAX])
        parts = [p for p in _INNER.split(piece) if p]
        if len(parts) == 1 and compound and len(outer) == 1:
            _word(parts[0], out)
            continue
        for part in parts:
            _word(part, out)


def _cjk(run: str, out: list[str]) -> None:
    out.extend(run)
    out.extend(run[i : i + 2] for i in range(len(run) - 1))


def tokens(text: str) -> list[str]:
    """Every token of ``text`` in order, repeated as often as it occurs (term frequency)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for run in _RUN.findall(text):
        if _CJK.search(run):
            for i, piece in enumerate(_CJK.split(run)):
                if i % 2:
                    _cjk(piece, out)
                else:
                    for sub in _RUN.findall(piece):
                        _latin(sub, out)
        else:
            _latin(run, out)
    return [t for t in out if t not in STOPWORDS]


def query_tokens(text: str) -> list[str]:
    """The distinct tokens of a query, in first-seen order."""
    return list(dict.fromkeys(tokens(text)))
