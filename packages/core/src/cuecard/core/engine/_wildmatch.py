"""Matching trigger globs with git's rules, at a cost per path character that does not grow
with the glob. Standard library only.

A brace-free glob (see ``_globs.expand_braces``) is read as one line of a ``.gitignore`` and
matched as ``git check-ignore`` matches a file: trailing spaces are dropped, a line starting
with ``#`` is a comment and one starting with ``!`` a negation (each matches nothing on its
own); a trailing ``/`` means folders only; a glob with no other ``/`` matches a name at any depth,
any other glob the whole path from the root (a leading ``/`` only anchors). ``*`` and ``?`` stay
within one folder, ``[...]`` is a class (``!`` or ``^`` negates, ranges, ``[:alpha:]``; it never
matches ``/``), and ``**`` spans folders when it is a whole segment: ``**/`` at the start or
between slashes is any number of folders, ``/**`` at the end everything below. A path matches
when it or one of the folders it lies in matches; the path itself is taken for a file (an event
names files, and the file need not exist yet) unless the caller says it names a folder (a
search may), each part of it before a ``/`` for a folder. So
``foo/**/`` (folders below ``foo``) covers ``foo/a/b`` but not the file ``foo/a``, and the
folder catch-alls ``*/``, ``**/``, ``**/*/**``, ``/**/`` and ``**/**/`` cover every path inside a
folder. Characters are compared as characters (git compares bytes: it differs only for ``?`` or
a class against a character outside ASCII).

The glob becomes a chain of states, one per glob character, run bit-parallel (Baeza-Yates and
Gonnet's shift-and, with Navarro's loops and skips for ``*`` and ``**/``): the states a path
may be in are the bits of one integer, and each path character costs the same few integer
operations however long the glob is (a 200-character glob is seven machine words). The steps
met are remembered per glob (a lazily built deterministic automaton), so a glob matched
against many paths pays one dictionary lookup per character. A glob without wildcards (most of
them) is answered by string searches instead. ``backtracks_linearly`` tells the globs whose
regular expression (``Wildmatch.regex``) Python's own engine also runs in linear time, which
the cold paths use to match long file lists at C speed (``_repofiles.GlobSet``).

A path longer than the system's ``PATH_MAX`` is never matched (no file can have it); what one
event may spend on globs is capped by ``_budget.Budget``.
"""

from __future__ import annotations

from bisect import bisect_right

from cuecard.core.engine._path_limit import path_too_long

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "Wildmatch",
    "backtracks_linearly",
    "compiled",
    "glob_error",
    "glob_matches",
    "wildmatch",
]

_CACHE_LIMIT = 4_096  # compiled globs kept per process
_DFA_LIMIT = 16_384  # steps remembered per glob
_MEMO_LIMIT = 500_000  # steps remembered by all globs (about 75 MB), then forgotten together
_MEMO = [0]  # steps remembered now
_SINGLE = 0  # one character of a set, then the next state
_STAR = 1  # any number of characters of a set (``*``, a final ``**``), or none
_FOLDERS = 2  # ``**/``: any number of folders, or none
_ACCEPT = -1  # the state after a matching folder: the path matches whatever follows
_POSIX: dict[str, Callable[[str], bool]] = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: c < " " or c == "\x7f",
    "digit": str.isdigit,
    "graph": lambda c: "!" <= c <= "~",
    "lower": str.islower,
    "print": lambda c: " " <= c <= "~",
    "punct": lambda c: "!" <= c <= "~" and not c.isalnum(),
    "space": lambda c: c in " \t\n\r\f\v",
    "upper": str.isupper,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}
"""git's character classes, in the C locale: ASCII only (``_Class`` tests ASCII first)."""


class _Class:
    """A ``[...]`` class as git's wildmatch reads it."""

    __slots__ = ("chars", "negated", "posix", "ranges")

    def __init__(
        self, negated: bool, chars: str, ranges: list[tuple[str, str]], posix: list[str]
    ) -> None:
        self.negated = negated
        self.chars = chars
        self.ranges = ranges
        self.posix = posix

    def __contains__(self, char: str) -> bool:
        if char == "/":
            return False
        found = (
            char in self.chars
            or any(lo <= char <= hi for lo, hi in self.ranges)
            or (char < "\x80" and any(_POSIX[name](char) for name in self.posix))
        )
        return found is not self.negated

    def bounds(self) -> list[int]:
        """Code points where membership may change."""
        out = [p for c in self.chars for p in (ord(c), ord(c) + 1)]
        out += [p for lo, hi in self.ranges for p in (ord(lo), ord(hi) + 1)]
        if self.posix:
            out += range(129)
        return out

    def regex(self) -> str:
        """The class in Python's syntax (``/`` excluded by the caller)."""
        import re

        one = re.escape
        parts = [one(c) for c in self.chars]
        parts += [f"{one(lo)}-{one(hi)}" for lo, hi in self.ranges if lo <= hi]
        for name in self.posix:
            parts += [one(chr(c)) for c in range(128) if _POSIX[name](chr(c))]
        body = "".join(parts)
        if self.negated:
            return f"[^/{body}]"
        return f"(?!/)[{body}]" if body else "(?!)"


def _posix_end(glob: str, i: int) -> int:
    """For a ``[:`` at ``i``: the index of the ``]`` that closes ``[:name:]`` as git finds it
    (the first ``]``, after a ``:``), or ``-1`` when ``[`` is an ordinary character there;
    ``ValueError`` when no ``]`` follows at all."""
    close = glob.find("]", i + 2)
    if close == -1:
        raise ValueError("has a [ that is never closed")
    return close if close - 1 >= i + 2 and glob[close - 1] == ":" else -1


def _read_class(glob: str, i: int) -> tuple[_Class, int]:
    """The class starting after the ``[`` at ``i - 1``, and the index after its ``]``;
    ``ValueError`` when it is never closed or names an unknown ``[:class:]``."""
    end = len(glob)
    negated = i < end and glob[i] in "!^"
    if negated:
        i += 1
    chars: list[str] = []
    ranges: list[tuple[str, str]] = []
    posix: list[str] = []
    prev = ""
    first = True
    while True:
        if i >= end:
            raise ValueError("has a [ that is never closed")
        char = glob[i]
        if char == "]" and not first:
            return _Class(negated, "".join(chars), ranges, posix), i + 1
        first = False
        if char == "\\":
            i += 1
            if i >= end:
                raise ValueError("has a [ that is never closed")
            char = glob[i]
            chars.append(char)
        elif char == "-" and prev and i + 1 < end and glob[i + 1] != "]":
            i += 1
            high = glob[i]
            if high == "\\":
                i += 1
                if i >= end:
                    raise ValueError("has a [ that is never closed")
                high = glob[i]
            chars.remove(prev)  # the low end was taken for a character of its own
            ranges.append((prev, high))
            char = ""
        elif char == "[" and glob[i + 1 : i + 2] == ":" and _posix_end(glob, i) > 0:
            close = _posix_end(glob, i)
            name = glob[i + 2 : close - 1]
            if name not in _POSIX:
                raise ValueError(f"names an unknown character class [:{name}:]")
            posix.append(name)
            i = close
            char = ""
        else:
            chars.append(char)
        prev = char
        i += 1


def _line(glob: str) -> tuple[str, bool, bool] | None:
    """The glob read as a ``.gitignore`` line: (pattern, folders only, a name at any depth),
    or ``None`` for a line that matches nothing (empty, a comment, a negation)."""
    text = glob
    while text.endswith(" ") and not text.endswith("\\ "):
        text = text[:-1]
    if not text or text[0] in "#!":
        return None
    folders = text.endswith("/")
    if folders:
        text = text[:-1]
    anywhere = "/" not in text
    if not anywhere and text.startswith("/"):
        text = text[1:]
    if not text:
        return None
    return text, folders, anywhere


def _tokens(pattern: str, anywhere: bool) -> list[tuple[int, object]]:
    """The states of one pattern: ``(kind, set)`` where the set is a character, ``"?"`` for
    any but ``/``, ``""`` for any at all, or a ``_Class``."""
    out: list[tuple[int, object]] = [(_FOLDERS, None)] if anywhere else []
    i, end = 0, len(pattern)
    while i < end:
        char = pattern[i]
        i += 1
        if char == "*":
            start = i - 1
            while i < end and pattern[i] == "*":
                i += 1
            whole = (
                i - start > 1
                and not anywhere
                and (start == 0 or pattern[start - 1] == "/")
                and (i == end or pattern[i] == "/")
            )
            if whole and i < end:
                i += 1  # the "/" is part of "**/"
                if not out or out[-1][0] != _FOLDERS:
                    out.append((_FOLDERS, None))
            elif whole:
                out.append((_STAR, ""))
            elif not out or out[-1] != (_STAR, "?"):
                out.append((_STAR, "?"))
        elif char == "?":
            out.append((_SINGLE, "?"))
        elif char == "[":
            found, i = _read_class(pattern, i)
            out.append((_SINGLE, found))
        elif char == "\\":
            if i >= end:
                raise ValueError("ends with an escape character")
            out.append((_SINGLE, pattern[i]))
            i += 1
        else:
            out.append((_SINGLE, char))
    return out


def glob_error(glob: str) -> str | None:
    """What ``Wildmatch(glob)`` would raise, or ``None``: the glob read without building its
    matcher (a compile checks thousands of globs it never matches)."""
    line = _line(glob)
    if line is not None:
        try:
            _tokens(line[0], line[2])
        except ValueError as exc:
            return str(exc)
    return None


def _accepts(kind: int, chars: object, char: str) -> tuple[bool, bool]:
    """(moves on, stays) for one state and one path character."""
    if kind == _FOLDERS:
        return char == "/", True
    if chars == "":
        hit = True
    elif chars == "?":
        hit = char != "/"
    elif isinstance(chars, _Class):
        hit = char in chars
    else:
        hit = char == chars
    return (hit, False) if kind == _SINGLE else (False, hit)


class Wildmatch:
    """One brace-free glob, compiled; ``match(path)`` tells whether it covers ``path``.

    ``ValueError`` when the glob cannot be read (an unclosed ``[``, an unknown ``[:class:]``,
    a final ``\\``).
    """

    __slots__ = (
        "_bounds",
        "_dfa",
        "_final",
        "_folders",
        "_literal",
        "_masks",
        "_stars",
        "_start",
        "folders_only",
        "glob",
        "tokens",
    )

    def __init__(self, glob: str) -> None:
        self.glob = glob
        line = _line(glob)
        self.tokens: list[tuple[int, object]] = []
        self.folders_only = False
        self._literal: tuple[bool, str, bool] | None = None
        self._dfa: dict[tuple[int, str], int] = {}
        self._masks: dict[int, tuple[int, int]] = {}
        self._bounds: list[int] = []
        self._start = self._final = self._stars = self._folders = 0
        if line is None:
            return
        pattern, self.folders_only, anywhere = line
        self.tokens = _tokens(pattern, anywhere)
        if not any(c in pattern for c in "*?[\\"):
            self._literal = (anywhere, pattern, self.folders_only)
        bounds = {47, 48}  # "/"
        for bit, (kind, chars) in enumerate(self.tokens):
            if kind == _STAR:
                self._stars |= 1 << bit
            elif kind == _FOLDERS:
                self._folders |= 1 << bit
            if isinstance(chars, _Class):
                bounds.update(chars.bounds())
            elif isinstance(chars, str) and len(chars) == 1 and chars != "?":
                bounds.update((ord(chars), ord(chars) + 1))
        self._bounds = sorted(bounds)
        self._final = 1 << len(self.tokens)
        self._start = self._closure(1, 1)

    def _closure(self, states: int, entered: int) -> int:
        """``states`` with the states reachable without reading: past a ``*``, and past a
        ``**/`` just entered (after a ``/`` or at the start, zero folders)."""
        states |= (entered & self._folders) << 1
        return states | ((states & self._stars) << 1)

    def _masks_of(self, stretch: int, char: str) -> tuple[int, int]:
        """(the states that move on, those that stay) on ``char``, which lies in ``stretch``:
        one pair per stretch of code points that no character of the glob divides."""
        move = stay = 0
        for bit, (kind, chars) in enumerate(self.tokens):
            on, keep = _accepts(kind, chars, char)
            move |= on << bit
            stay |= keep << bit
        found = self._masks[stretch] = (move, stay)
        return found

    def _step(self, states: int, char: str) -> int:
        """The states after reading ``char``: a constant number of integer operations."""
        if char == "/" and states & self._final:
            return _ACCEPT  # a folder that matches: everything in it matches
        stretch = bisect_right(self._bounds, ord(char))
        move, stay = self._masks.get(stretch) or self._masks_of(stretch, char)
        moved = (states & move) << 1
        states = moved | (states & stay) | ((moved & self._folders) << 1)
        return states | ((states & self._stars) << 1)

    def match(self, path: str, folder: bool = False) -> bool:
        """Whether the glob covers ``path`` (repository-relative, ``/`` separators), the path
        of a file, or of a folder when ``folder``."""
        if not self.tokens or not path:
            return False
        if self._literal is not None:  # most globs: string searches
            anywhere, literal, folders = self._literal
            return _literal_match(anywhere, literal, folders and not folder, path)
        states = self._start
        dfa = self._dfa
        for char in path:
            key = (states, char)
            found = dfa.get(key)
            if found is None:
                found = self._step(states, char)
                if len(dfa) < _DFA_LIMIT:
                    dfa[key] = found
                    _MEMO[0] += 1
                    if _MEMO[0] > _MEMO_LIMIT:
                        _forget_steps()
            states = found
            if states <= 0:
                return states == _ACCEPT
        return bool(states & self._final) and (folder or not self.folders_only)

    @property
    def regex(self) -> str | None:
        """The glob as a Python regular expression (for ``re.DOTALL``, matched at the start
        of the path), or ``None`` when it matches nothing."""
        import re

        if not self.tokens:
            return None
        parts = ["(?=.)"]
        for kind, chars in self.tokens:
            if kind == _FOLDERS:
                parts.append("(?:.*/)?")
                continue
            if chars == "":
                one = "."
            elif chars == "?":
                one = "[^/]"
            elif isinstance(chars, _Class):
                one = chars.regex()
            else:
                one = re.escape(str(chars))
            parts.append(one + "*" if kind == _STAR else one)
        parts.append("/" if self.folders_only else "(?:/|\\Z)")
        return "".join(parts)


def _literal_match(anywhere: bool, literal: str, folders: bool, path: str) -> bool:
    """``^(?:.*/)?LITERAL(?:/|$)`` (anywhere) or ``^LITERAL(?:/|$)``, ``/`` for ``(?:/|$)``
    when ``folders``."""

    def ends_at(end: int) -> bool:
        if end < len(path):
            return path[end] == "/"
        return not folders and end == len(path)

    if path.startswith(literal) and ends_at(len(literal)):
        return True
    if not anywhere:
        return False
    needle = "/" + literal
    at = path.find(needle)
    while at != -1:
        if ends_at(at + len(needle)):
            return True
        at = path.find(needle, at + 1)
    return False


def backtracks_linearly(glob: str) -> bool:
    """Whether ``Wildmatch(glob).regex`` runs in linear time on Python's backtracking engine
    too: at most one ``**/`` (a glob without ``/`` counts one), and at most one ``*`` in any
    folder. Each ``*`` then stays inside one path segment, whose ends are fixed by ``/``, so no
    two quantifiers compete for the same characters; ``*a*a*b`` or ``a/**/b/**/c`` are left to
    ``Wildmatch``."""
    try:
        tokens = Wildmatch(glob).tokens
    except ValueError:
        return False
    if not tokens or sum(1 for kind, _ in tokens if kind == _FOLDERS) > 1:
        return False
    stars = 0
    for kind, chars in tokens:
        if kind == _FOLDERS or chars == "/":
            stars = 0
        elif kind == _STAR:
            stars += 1
            if stars > 1:
                return False
    return True


_COMPILED: dict[str, Wildmatch | None] = {}


def _forget_steps() -> None:
    """Drop the steps every cached glob remembers: memory stays bounded in a long process."""
    for compiled in _COMPILED.values():
        if compiled is not None:
            compiled._dfa.clear()
    _MEMO[0] = 0


def compiled(glob: str) -> bool:
    """Whether ``glob`` is compiled already in this process (``wildmatch`` then costs nothing)."""
    return glob in _COMPILED


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


def glob_matches(glob: str, path: str, folder: bool = False) -> bool:
    """Whether the brace-free ``glob`` covers ``path`` (a file's, or a folder's when
    ``folder``); a glob that cannot be read covers nothing, nor does any glob a path longer
    than ``PATH_MAX``."""
    compiled = wildmatch(glob)
    return compiled is not None and not path_too_long(path) and compiled.match(path, folder)
