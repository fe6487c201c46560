"""What counts as "the same word" in cuecard: tokens and a light English stemmer. Stdlib only.

``words(text)`` splits text into lowercase words; ``normalise_word(word)`` maps a word to the
form matching compares. Two words are the same when their normal forms are equal:

- case does not matter, and punctuation around a word is not part of it (``Migration.``,
  ``(migration)`` and ``migration`` are one word); ``$`` and an apostrophe inside a word are part
  of it (``$HOME``, ``don't``), while dots and hyphens separate words, so ``node.js`` is ``node``
  ``js`` and a keyword ``pre-commit`` (two words) matches "pre-commit" and "pre commit";
- plain English words lose their inflection: plurals and possessives (``migrations``,
  ``migration's``), ``-ed`` and ``-ing`` (``retried``, ``retrying`` ~ ``retry``), with the
  spelling changes they bring (``policies`` ~ ``policy``, ``running`` ~ ``run``,
  ``caching`` ~ ``cache``). Only inflection: ``migrate`` and ``migration`` stay different;
- identifiers are left as they are: a word holding a digit, an underscore, a dot, ``$``, a
  capital letter after its first letter (``getUsers``) or any letter outside a-z (CJK, accented
  letters) is compared whole, lowercased.

The stemmer follows the first step of the Porter and Snowball English stemmers (plurals, then
``-ed``/``-ing`` with the ``e`` and double consonant repairs, then a final ``y``) and drops a
final ``e``, so ``cache``, ``caches``, ``cached`` and ``caching`` meet. Pure functions.

``stem(word)`` is that stemmer alone, for a lowercase a-z word: vault search stems the plain
words of facts and queries with it, so a keyword trigger and a search agree on what "the same
word" is. Importing this module compiles nothing (``re`` is imported when ``words`` runs), so
the cold search process can use ``stem``.
"""

from __future__ import annotations

__all__ = ["normalise_word", "stem", "words"]

_WORD_PATTERN = r"[\w$]+(?:['’][\w$]+)*"
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_LETTERS = _LOWER | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_VOWELS = frozenset("aeiou")
_DOUBLES = ("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt")
_MIN_STEM = 3


def words(text: str) -> list[str]:
    """The normalised words of ``text``, in order (duplicates kept)."""
    import re

    return [normalise_word(token) for token in re.findall(_WORD_PATTERN, text)]


def normalise_word(word: str) -> str:
    """The form of ``word`` that matching compares (see the module's rules)."""
    word = word.strip(".'’-")
    for suffix in ("'s", "’s"):
        if word.lower().endswith(suffix):
            word = word[: -len(suffix)]
    if not _plain(word):
        return word.lower()
    word = word.lower()
    head, _, last = word.rpartition("-")
    base = stem(last)
    return f"{head}-{base}" if head else base


def stem(word: str) -> str:
    """The inflection-free form of a lowercase a-z ``word`` (see the module's rules)."""
    return _final_e(_step_1c(_step_1b(_step_1a(word))))


def _plain(word: str) -> bool:
    """A plain English word: an a-z letter (either case), then lowercase a-z parts joined by
    single hyphens."""
    if not word or word[0] not in _LETTERS:
        return False
    first, *rest = word[1:].split("-")
    return all(c in _LOWER for c in first) and all(
        part and all(c in _LOWER for c in part) for part in rest
    )


def _has_vowel(text: str) -> bool:
    return any(c in _VOWELS for c in text) or "y" in text[1:]


def _step_1a(word: str) -> str:
    """Plurals: ``sses`` → ``ss``, ``ies`` → ``y``, ``s`` → ``""`` after a vowelled part."""
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ss", "us", "is")) or not word.endswith("s"):
        return word
    stem = word[:-1]
    return stem if len(stem) >= _MIN_STEM and _has_vowel(stem[:-1]) else word


def _step_1b(word: str) -> str:
    """``-eed`` → ``-ee``; ``-ed``/``-ing`` dropped from a vowelled stem, then repaired."""
    if word.endswith("eed"):
        return word[:-1] if len(word) > 4 else word
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if len(stem) < _MIN_STEM or not _has_vowel(stem):
                return word
            if stem.endswith(("at", "bl", "iz")):
                return stem + "e"
            if stem.endswith(_DOUBLES):
                return stem[:-1]
            if _short(stem):
                return stem + "e"
            return stem
    return word


def _short(stem: str) -> bool:
    """A stem ending consonant-vowel-consonant (not w, x or y) after one vowel group."""
    if len(stem) < 3:
        return False
    a, b, c = stem[-3], stem[-2], stem[-1]
    cvc = a not in _VOWELS and b in _VOWELS and c not in _VOWELS and c not in "wxy"
    return cvc and sum(1 for x in stem[:-2] if x in _VOWELS) == 0


def _step_1c(word: str) -> str:
    """A final ``y`` after a consonant becomes ``i`` (``retry`` and ``retries`` meet)."""
    if len(word) > 2 and word.endswith("y") and word[-2] not in _VOWELS:
        return word[:-1] + "i"
    return word


def _final_e(word: str) -> str:
    return word[:-1] if word.endswith("e") and len(word) > _MIN_STEM else word
