"""Shell operands: how a program's arguments name paths and patterns. Standard library only.

A handler takes one simple command's argv (tokens) and returns a :class:`_Result`: its kind
(``read``, ``search`` or ``run``), the path candidates it names and its search patterns.
:func:`_operands` splits arguments into options and operands. The handlers made here are the
shapes many programs share: readers, mutators, searchers (grep-likes, find, fd), and :func:`_run`
for any program no table knows; :mod:`cuecard.core.engine.shell._programs` says which program
is which.
"""

from __future__ import annotations

import re

from cuecard.core.engine.shell._tokens import Token

TYPE_CHECKING = False  # typing and dataclasses cost a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Literal

if TYPE_CHECKING:
    Kind = Literal["read", "search", "run"]
_Candidate = tuple[str, str]  # (text, mode): "rel" joins the cwd, "root" does not, "asis" is kept
_NONE: frozenset[str] = frozenset()
_WINDOWS = re.compile(r"[A-Za-z]:[\\/]")
_PATHLIKE = re.compile(r"(?:\.{0,2}/)?[\w.@%+,~-]+(?:/[\w.@%+,~-]*)*/?")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")


class _Result:
    """What one simple command does: its kind, the paths and patterns it names."""

    __slots__ = ("implicit_dir", "kind", "paths", "patterns")

    def __init__(
        self,
        kind: Kind = "read",
        paths: list[_Candidate] | None = None,
        patterns: list[str] | None = None,
        implicit_dir: bool = False,  # with no path operand, the command works on its cwd
    ) -> None:
        self.kind: Kind = kind
        self.paths: list[_Candidate] = paths if paths is not None else []
        self.patterns: list[str] = patterns if patterns is not None else []
        self.implicit_dir = implicit_dir


if TYPE_CHECKING:
    _Handler = Callable[[list[Token]], _Result]


def _operands(
    args: Sequence[Token], short: str = "", long: frozenset[str] = frozenset()
) -> tuple[list[tuple[str, str | None]], list[Token], int]:
    """Split arguments into options ``(name, value)``, operands, and how many came before ``--``."""
    opts: list[tuple[str, str | None]] = []
    ops: list[Token] = []
    before, k = -1, 0
    while k < len(args):
        s = args[k].text
        k += 1
        if before >= 0 or s == "-" or not s.startswith("-"):
            ops.append(args[k - 1])
        elif s == "--":
            before = len(ops)
        elif s.startswith("--"):
            name, eq, value = s.partition("=")
            if not eq and name in long and k < len(args):
                value, k = args[k].text, k + 1
            opts.append((name, value if eq or name in long else None))
        else:
            for j in range(1, len(s)):
                if s[j] in short:
                    value = s[j + 1 :]
                    if not value and k < len(args):
                        value, k = args[k].text, k + 1
                    opts.append(("-" + s[j], value))
                    break
                opts.append(("-" + s[j], None))
    return opts, ops, len(ops) if before < 0 else before


def _candidate(word: Token) -> _Candidate:
    return (word.text, "asis" if word.expands else "rel")


def _value_candidate(text: str) -> _Candidate:
    return (text, "asis" if "$" in text or "`" in text or text.startswith("~") else "rel")


def _pathlike(text: str) -> bool:
    if text.startswith("-") or "://" in text or not _PATHLIKE.fullmatch(text):
        return False
    return "/" in text or bool(_EXTENSION.search(text)) or text in (".", "..")


def _run(argv: list[Token]) -> _Result:
    """Any other program: a run naming its path-looking operands (``pytest tests/a.py::t``)."""
    found = _Result("run")
    for word in argv[1:]:
        text = word.text.split("::", 1)[0]
        if _pathlike(text):
            found.paths.append((text, "rel"))
    return found


# --- handler shapes --------------------------------------------------------------------------


def _mutator(short: str, skip: int = 0) -> Callable[[list[Token]], _Result]:
    """A program that changes its operands (rm, mv, cp, …): a run naming them all as paths."""

    def handle(argv: list[Token]) -> _Result:
        opts, ops, _ = _operands(argv[1:], short)
        found = _Result("run", [_candidate(w) for w in ops[skip:]])
        found.paths.extend(_value_candidate(v) for n, v in opts if n == "-t" and v)
        return found

    return handle


def _reader(short: str = "", long: frozenset[str] = frozenset(), listing: bool = False) -> _Handler:
    """A program that only reads its operands (``+N``/``+G`` are less and more commands)."""

    def handle(argv: list[Token]) -> _Result:
        _, ops, _ = _operands(argv[1:], short, long)
        paths = [_candidate(w) for w in ops if not w.text.startswith("+")]
        return _Result("read", paths, implicit_dir=listing)

    return handle


def _neutral(argv: list[Token]) -> _Result:
    """A shell builtin or informational program: changes nothing, names no path."""
    return _Result("read")


def _limited(
    short: str, long: frozenset[str], writes: frozenset[str], outputs: int = 99
) -> _Handler:
    """A reader unless an option in ``writes`` or more than ``outputs`` operands make it write."""

    def handle(argv: list[Token]) -> _Result:
        opts, ops, _ = _operands(argv[1:], short, long)
        found = _Result("read", [_candidate(w) for w in ops])
        for name, value in opts:
            if name in writes:
                found.kind = "run"
                if value:
                    found.paths.append(_value_candidate(value))
        if len(ops) > outputs:
            found.kind = "run"
        return found

    return handle


_GREP_LONG = frozenset({"--regexp", "--file", "--max-count", "--after-context", "--context"})
_GREP_LONG |= frozenset({"--before-context", "--include", "--exclude", "--exclude-dir"})
_GREP_LONG |= frozenset({"--label", "--devices", "--directories", "--binary-files"})
_RG_LONG = frozenset({"--regexp", "--file", "--glob", "--iglob", "--type", "--type-not"})
_RG_LONG |= frozenset({"--type-add", "--max-count", "--after-context", "--before-context"})
_RG_LONG |= frozenset({"--context", "--max-columns", "--threads", "--max-depth", "--encoding"})
_RG_LONG |= frozenset({"--replace", "--sort", "--sortr", "--color", "--colors", "--pre"})
_RG_LONG |= frozenset({"--pre-glob", "--ignore-file", "--max-filesize", "--engine"})
_AG_LONG = frozenset({"--ignore", "--ignore-dir", "--file-search-regex", "--depth", "--pager"})
_AG_LONG |= frozenset({"--path-to-ignore", "--max-count", "--after", "--before", "--context"})
_ACK_LONG = frozenset({"--type", "--match", "--ignore-dir", "--ignore-file", "--pager"})
_ACK_LONG |= frozenset({"--max-count", "--after-context", "--before-context", "--context"})


def _searcher(
    short: str, long: frozenset[str], given: frozenset[str], no_pattern: frozenset[str]
) -> _Handler:
    """grep-like: the first operand is the pattern unless an option in ``given`` gave one."""

    def handle(argv: list[Token]) -> _Result:
        opts, ops, _ = _operands(argv[1:], short, long)
        names = {n for n, _ in opts}
        found = _Result("search", patterns=[v for n, v in opts if n in given and v])
        if names & {"--pre", "--pre-glob"}:
            found.kind = "run"
        if not found.patterns and not names & no_pattern and ops:
            found.patterns.append(ops.pop(0).text)
        found.paths = [_candidate(w) for w in ops]
        found.implicit_dir = argv[0].text.rsplit("/", 1)[-1] not in ("grep", "egrep", "fgrep") or (
            bool(names & {"-r", "-R", "--recursive", "--dereference-recursive"})
        )
        return found

    return handle


_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
_FIND_ACTIONS |= frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
_FIND_NAMES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_FIND_NAMES |= frozenset({"-regex", "-iregex", "-lname", "-ilname"})
_FIND_VALUES = frozenset({"-type", "-xtype", "-maxdepth", "-mindepth", "-size", "-perm", "-user"})
_FIND_VALUES |= frozenset({"-group", "-uid", "-gid", "-mtime", "-atime", "-ctime", "-mmin"})
_FIND_VALUES |= frozenset({"-amin", "-cmin", "-inum", "-links", "-printf", "-fstype"})
_FIND_VALUES |= frozenset({"-samefile", "-regextype", "-used", "-context", "-files0-from"})


def _find(argv: list[Token]) -> _Result:
    found = _Result("search", implicit_dir=True)
    k = 1
    while k < len(argv) and (argv[k].text in ("-H", "-L", "-P", "-D") or argv[k].text[:2] == "-O"):
        k += 2 if argv[k].text == "-D" else 1
    while k < len(argv) and not argv[k].text.startswith(("-", "(", "!", ",")):
        found.paths.append(_candidate(argv[k]))
        k += 1
    while k < len(argv):
        word = argv[k].text
        k += 1
        if word in _FIND_ACTIONS:
            found.kind = "run"
        elif k < len(argv) and (word in _FIND_NAMES or word in _FIND_VALUES):
            if word in _FIND_NAMES:
                found.patterns.append(argv[k].text)
            k += 1
        elif k < len(argv) and word.startswith(("-newer", "-anewer", "-cnewer")):
            k += 1
    return found


_FD_LONG = frozenset({"--extension", "--type", "--exclude", "--max-depth", "--min-depth"})
_FD_LONG |= frozenset({"--exact-depth", "--size", "--changed-within", "--changed-before"})
_FD_LONG |= frozenset({"--owner", "--exec", "--exec-batch", "--ignore-file", "--color"})
_FD_LONG |= frozenset({"--threads", "--max-results", "--base-directory", "--search-path"})
_FD_LONG |= frozenset({"--path-separator", "--format", "--batch-size"})


def _fd(argv: list[Token]) -> _Result:
    opts, ops, _ = _operands(argv[1:], "etEdSoxXjc", _FD_LONG)
    found = _Result("search", implicit_dir=True)
    if any(n in ("-x", "-X", "--exec", "--exec-batch") for n, _ in opts):
        found.kind = "run"
    if ops:
        found.patterns.append(ops.pop(0).text)
    found.paths = [_candidate(w) for w in ops]
    found.paths.extend(_value_candidate(v) for n, v in opts if n == "--search-path" and v)
    return found
