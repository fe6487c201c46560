"""Matching trigger globs in time linear in the path's length. Standard library only.

A brace-free glob (see ``_globs.expand_braces``) has gitignore semantics: ``*`` and ``?`` stay
within one path segment, ``**`` spans segments, ``[...]`` is a character class (``!`` or ``^``
negates), a glob without a ``/`` inside matches a name at any depth, a trailing ``/`` means
"everything under", and a glob that names a folder also covers the files under it. These are
the rules of pathspec's ``GitIgnoreSpecPattern``, which the compiler used to turn every glob into
a backtracking regular expression; ``*a*a*a*a*b`` against a long path then took seconds per
match. Here the glob becomes a small automaton (Thompson's construction) that is run over the
path once, keeping the set of states it may be in: each character costs at most the glob's
length, never more, so a match is linear in the path's length for every glob. The state sets
met are cached as the transitions of a lazily built deterministic automaton, so a glob matched
against many paths pays one dictionary lookup per character. A glob without wildcards (most of
them) is answered by string searches instead. ``backtracks_linearly`` tells the globs whose
regular expression Python's own engine also runs in linear time, which the cold paths use to
match long file lists at C speed (``_repofiles.GlobSet``).
"""

from __future__ import annotations

import re

__all__ = ["Wildmatch", "backtracks_linearly", "glob_matches", "wildmatch"]

_CACHE_LIMIT = 4_096
_DFA_LIMIT = 20_000
_ANY = 0  # any character but a newline (a regular expression's ``.``)
_NOT_SLASH = 1  # any character but ``/``
_CHAR = 2  # one given character
_CLASS = 3  # a ``[...]`` class
_SPLIT = 4  # epsilon to two states
_END = 6  # the path ends here (or only a final newline follows, as ``$`` allows)
_MATCH = 7


class _Builder:
    """Thompson's construction for the few shapes a gitignore glob translates to."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, object, int, int]] = []

    def add(self, op: int, arg: object = None, a: int = -1, b: int = -1) -> int:
        self.ops.append((op, arg, a, b))
        return len(self.ops) - 1

    def patch(self, state: int, a: int, b: int = -1) -> None:
        op, arg, _, _ = self.ops[state]
        self.ops[state] = (op, arg, a, b)

    def char(self, op: int, arg: object = None) -> None:
        """One character step, chained to the state added next."""
        here = len(self.ops)
        self.add(op, arg, here + 1)

    def star(self, op: int) -> None:
        """Zero or more characters of one kind."""
        split = self.add(_SPLIT)
        step = self.add(op, None, split)
        self.patch(split, step, step + 1)

    def optional(self, steps: list[int]) -> None:
        """Optionally the character steps ``steps`` (``-1``: any characters, a loop)."""
        split = self.add(_SPLIT)
        for op in steps:
            if op == -1:
                self.star(_ANY)
            else:
                self.char(op, "/" if op == _CHAR else None)
        self.patch(split, split + 1, len(self.ops))


def _segment(builder: _Builder, segment: str) -> None:
    """A segment glob: ``*``, ``?``, classes and literal characters (pathspec's translation)."""
    i, end = 0, len(segment)
    while i < end:
        char = segment[i]
        i += 1
        if char == "\\":
            if i >= end:
                raise ValueError("ends with an escape character")
            builder.char(_CHAR, segment[i])
            i += 1
        elif char == "*":
            builder.star(_NOT_SLASH)
        elif char == "?":
            builder.char(_NOT_SLASH)
        elif char == "[":
            j = i
            if j < end and segment[j] in "!^":
                j += 1
            if j < end and segment[j] == "]":
                j += 1
            while j < end and segment[j] != "]":
                j += 1
            if j >= end:
                raise ValueError("has a [ that is never closed")
            body = segment[i:j]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            import warnings  # here, not at the top: most globs have no class (0.3 ms a hook)

            try:  # a one-character class: the regular expression engine cannot backtrack on it
                with warnings.catch_warnings():  # re warns of "[[" and "&&" inside a class
                    warnings.simplefilter("ignore")
                    builder.char(_CLASS, re.compile("[" + body.replace("\\", "\\\\") + "]"))
            except re.error:
                raise ValueError(f"has an invalid character class [{segment[i:j]}]") from None
            i = j + 1
        else:
            builder.char(_CHAR, char)


def _normalised(glob: str) -> tuple[list[str], bool] | None:
    """The glob's segments as gitignore reads them and whether it names a folder; ``None``
    for a glob that matches nothing."""
    text = glob if glob.endswith("\\ ") else glob.rstrip()
    if not text or text.startswith("#") or text == "/":
        return None
    if text.startswith("!"):
        text = text[1:]
    segments = text.split("/")
    folder = not segments[-1]
    if not segments[0]:
        del segments[0]
    elif (len(segments) == 1 or (len(segments) == 2 and not segments[1])) and segments[0] != "**":
        segments.insert(0, "**")
    if not segments:
        raise ValueError("is empty once normalised")
    if not segments[-1]:
        segments[-1] = "**"
    for i in range(len(segments) - 1, 0, -1):
        if segments[i - 1] == "**" and segments[i] == "**":
            del segments[i]
    return segments, folder


def _program(glob: str) -> list[tuple[int, object, int, int]] | None:
    """The automaton of one brace-free glob, or ``None`` when it matches nothing."""
    normal = _normalised(glob)
    if normal is None:
        return None
    segments, folder = normal
    builder = _Builder()
    count = len(segments)
    if segments == ["**"] or segments == ["**", "*"]:
        if segments == ["**"] and folder:
            builder.char(_CHAR, "/")
        else:
            builder.char(_ANY)  # "**" and "*": any path at all
    elif segments == ["**", "*", "**"]:
        builder.char(_CHAR, "/")
    else:
        need_slash = False
        for i, segment in enumerate(segments):
            if segment == "**":
                if i == 0:  # (?:.+/)?
                    builder.optional([_ANY, -1, _CHAR])
                elif i < count - 1:  # (?:/.+)?
                    builder.optional([_CHAR, _ANY, -1])
                    need_slash = True
                else:
                    builder.char(_CHAR, "/")
                continue
            if need_slash:
                builder.char(_CHAR, "/")
            if segment == "*":
                builder.char(_NOT_SLASH)
                builder.star(_NOT_SLASH)
            else:
                _segment(builder, segment)
            if i == count - 1:
                split = builder.add(_SPLIT)
                slash = builder.add(_CHAR, "/", split + 3)
                end = builder.add(_END, None, split + 3)
                builder.patch(split, slash, end)
            need_slash = True
    builder.add(_MATCH)
    return builder.ops


def _literal(glob: str) -> tuple[bool, str, bool] | None:
    """For a glob without wildcards: (floating, the literal, a folder's contents only), which
    ``_literal_match`` answers with string searches; ``None`` for any other glob."""
    if any(c in glob for c in "*?[\\\n") or glob != glob.rstrip() or glob.startswith(("#", "!")):
        return None
    normal = _normalised(glob)
    if normal is None:
        return None
    segments, _folder = normal
    floating = segments[0] == "**"
    inner = segments[1:] if floating else segments
    under = bool(inner) and inner[-1] == "**"
    inner = inner[:-1] if under else inner
    if not inner or "**" in inner:
        return None
    return floating, "/".join(inner), under


def _literal_match(floating: bool, literal: str, under: bool, path: str) -> bool:
    """``^(?:.+/)?LITERAL(?:/|$)`` (floating) or ``^LITERAL(?:/|$)``, ``/`` for ``(?:/|$)``
    when ``under``; for a path without a newline."""

    def ends_at(end: int) -> bool:
        return (
            end < len(path) and path[end] == "/" if under else end == len(path) or path[end] == "/"
        )

    if path.startswith(literal) and ends_at(len(literal)):
        return True
    if not floating:
        return False
    needle = "/" + literal
    at = path.find(needle, 1)
    while at != -1:
        if ends_at(at + len(needle)):
            return True
        at = path.find(needle, at + 1)
    return False


def backtracks_linearly(glob: str) -> bool:
    """Whether the regular expression pathspec makes of ``glob`` (``_compiler.glob_regex``)
    runs in linear time on Python's backtracking engine too: at most one ``**`` that is not
    the last segment, and at most one ``*`` in any other segment. Each ``*`` then stays inside
    one path segment, whose ends are fixed by ``/``, so no two quantifiers compete for the same
    characters; ``*a*a*b`` or ``a/**/b/**/c`` are left to ``Wildmatch``."""
    try:
        normal = _normalised(glob)
    except ValueError:
        return False
    if normal is None:
        return False
    segments = normal[0]
    crossing = sum(1 for s in segments[:-1] if s == "**")
    return crossing <= 1 and all(s == "**" or s.count("*") <= 1 for s in segments)


class Wildmatch:
    """One brace-free glob, compiled; ``match(path)`` tells whether it covers ``path``.

    ``ValueError`` when the glob cannot be read (an unclosed ``[``, an invalid class).
    """

    __slots__ = ("_accept", "_closures", "_dfa", "_literal", "_ops", "glob")

    def __init__(self, glob: str) -> None:
        self.glob = glob
        self._literal = _literal(glob)
        self._ops = _program(glob) or []
        self._closures: dict[int, frozenset[int]] = {}  # filled as states are reached
        self._dfa: dict[tuple[frozenset[int], str], frozenset[int]] = {}
        self._accept: dict[frozenset[int], int] = {}

    def _closure(self, start: int) -> frozenset[int]:
        """The character and end states reachable from ``start`` without reading."""
        found = self._closures.get(start)
        if found is not None:
            return found
        seen: set[int] = set()
        stack = [start]
        while stack:
            state = stack.pop()
            if state not in seen:
                seen.add(state)
                op, _arg, a, b = self._ops[state]
                if op == _SPLIT:
                    stack += (a, b)
        found = self._closures[start] = frozenset(s for s in seen if self._ops[s][0] != _SPLIT)
        return found

    def _step(self, states: frozenset[int], char: str) -> frozenset[int]:
        out: set[int] = set()
        for state in states:
            op, arg, a, _b = self._ops[state]
            if (
                (op == _CHAR and char == arg)
                or (op == _NOT_SLASH and char != "/")
                or (op == _ANY and char != "\n")
                or (op == _CLASS and arg.fullmatch(char) is not None)  # type: ignore[attr-defined]
            ):
                out |= self._closure(a)
        return frozenset(out)

    def _acceptance(self, states: frozenset[int]) -> int:
        """1: the glob matched already; 2: it matches if the path ends here; 0: neither."""
        found = self._accept.get(states)
        if found is None:
            ops = {self._ops[s][0] for s in states}
            found = self._accept[states] = 1 if _MATCH in ops else 2 if _END in ops else 0
        return found

    def match(self, path: str) -> bool:
        """Whether the glob covers ``path`` (a repository-relative path, ``/`` separators)."""
        if not self._ops:
            return False
        if self._literal is not None and "\n" not in path:  # most globs: string searches
            return _literal_match(*self._literal, path)
        states = self._closure(0)
        dfa = self._dfa
        last = len(path) - 1
        for index, char in enumerate(path):
            accept = self._acceptance(states)
            if accept == 1 or (accept == 2 and index == last and char == "\n"):
                return True
            key = (states, char)
            found = dfa.get(key)
            if found is None:
                if len(dfa) > _DFA_LIMIT:
                    dfa.clear()
                    self._accept.clear()
                found = dfa[key] = self._step(states, char)
            states = found
            if not states:
                return False
        return self._acceptance(states) != 0


_COMPILED: dict[str, Wildmatch | None] = {}


def wildmatch(glob: str) -> Wildmatch | None:
    """The compiled ``glob`` (cached per process), or ``None`` when it cannot be read."""
    try:
        return _COMPILED[glob]
    except KeyError:
        pass
    if len(_COMPILED) > _CACHE_LIMIT:
        _COMPILED.clear()
    try:
        found: Wildmatch | None = Wildmatch(glob)
    except ValueError:
        found = None
    _COMPILED[glob] = found
    return found


def glob_matches(glob: str, path: str) -> bool:
    """Whether the brace-free ``glob`` covers ``path``; a glob that cannot be read covers
    nothing."""
    compiled = wildmatch(glob)
    return compiled is not None and compiled.match(path)
