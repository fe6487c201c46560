"""Shell commands as trigger events: ``read``, ``search`` or ``run``. Standard library only.

The hook calls :func:`classify` before every shell tool call, so this module imports nothing
heavy and compiles its patterns once. :func:`tokenize` is a real (bash-subset) tokenizer
(:mod:`cuecard.core.engine.shell._tokens`): quotes (``''``, ``""``, ``$''``), backslashes, control
operators, ``$(…)``/backtick/``<(…)`` nesting, redirections, heredocs and here-strings.
:func:`classify` walks the tokens, applies ``cd`` to the paths after it, and calls a command a
``read`` when every part only reads, a ``search`` when every part only searches or reads, and a
``run`` otherwise (unknown programs, writes, malformed input). What each program does with its
arguments is in :mod:`cuecard.core.engine.shell._programs` and
:mod:`cuecard.core.engine.shell._operands`.
"""

from __future__ import annotations

import posixpath

from cuecard.core.engine.shell._operands import _WINDOWS, _candidate, _operands, _Result
from cuecard.core.engine.shell._programs import _command, _unwrap
from cuecard.core.engine.shell._tokens import _MAX_DEPTH, Token, tokenize

TYPE_CHECKING = False  # typing and dataclasses cost a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Sequence

    from cuecard.core.engine.shell._operands import Kind, _Candidate

__all__ = ["Classified", "Token", "classify", "tokenize"]

_RANK: dict[str, int] = {"read": 0, "search": 1, "run": 2}
_MAX_CWD = 1024  # a longer cd chain makes the cwd unknown (keeps cd chains linear)


class Classified:
    """What a shell command does, as a trigger event sees it.

    - ``kind``: ``read``, ``search`` or ``run``;
    - ``paths``: paths the command names, with earlier ``cd`` applied and posix-normalised;
      absolute ones stay absolute, and ``~``, ``$VAR`` paths (or any after an unknown ``cd``)
      stay as written;
    - ``parts``: argv of every simple command in order (each before the substitutions inside
      it), without leading ``VAR=value`` assignments and wrappers (``sudo``, ``env``, ``time``…);
    - ``patterns``: search patterns of grep, rg, ag, ack, ``git grep``, ``find -name`` and fd.
    """

    __slots__ = ("kind", "parts", "paths", "patterns")

    def __init__(
        self,
        kind: Kind,
        paths: tuple[str, ...],
        parts: tuple[tuple[str, ...], ...],
        patterns: tuple[str, ...],
    ) -> None:
        self.kind: Kind = kind
        self.paths = paths
        self.parts = parts
        self.patterns = patterns

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Classified):
            return NotImplemented
        mine = (self.kind, self.paths, self.parts, self.patterns)
        return mine == (other.kind, other.paths, other.parts, other.patterns)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Classified(kind={self.kind!r}, paths={self.paths!r}, parts={self.parts!r}, "
            f"patterns={self.patterns!r})"
        )


def classify(command: str) -> Classified:
    """Classify a shell command as a ``read``, ``search`` or ``run`` event. Never raises."""
    acc = _Acc()
    _walk(tokenize(command), "", acc)
    kind: Kind = "run"
    if not acc.bad and acc.commands:
        kind = "search" if acc.rank == 1 else "read" if acc.rank == 0 else "run"
    return Classified(kind, tuple(acc.paths), tuple(acc.parts), tuple(acc.patterns))


# --- walker ----------------------------------------------------------------------------------


class _Acc:
    __slots__ = ("bad", "commands", "depth", "parts", "paths", "patterns", "rank")

    def __init__(self) -> None:
        self.rank = 0
        self.commands = 0
        self.depth = 0
        self.bad = False
        self.paths: list[str] = []
        self.parts: list[tuple[str, ...]] = []
        self.patterns: list[str] = []


_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
_KEYWORDS |= frozenset({"fi", "done", "}", "esac"})
_NEEDS_RIGHT = frozenset({"&&", "||", "|", "|&"})
_NEEDS_LEFT = _NEEDS_RIGHT | {";", "&", ";;", ";&", ";;&", ")"}
_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "eval"})


def _walk(tokens: Sequence[Token], cwd: str | None, acc: _Acc) -> None:
    """Classify one token list into ``acc``; ``(…)`` subshells restore the cwd when they end."""
    walker, steps, n = _Walker(tokens, cwd, acc), _STEPS, len(tokens)
    while walker.i < n:
        t = tokens[walker.i]
        walker.i += 1
        steps[t.kind](walker, t)
    _finish(walker.words, walker.redirs, walker.cwd, acc)
    acc.bad |= bool(walker.saved) or bool(walker.mode) or walker.dangling


class _Walker:
    """Where a walk over one token list is: the simple command being read and the cwd.

    ``mode`` is ``for`` inside a ``for``/``select`` head, ``[[`` inside a test, else empty;
    ``content`` says something came since the last operator, ``dangling`` that an operator
    awaits its right-hand side; ``saved`` holds the cwd of each open ``(…)`` subshell.
    """

    __slots__ = (
        "acc", "before", "content", "cwd", "dangling", "i", "mode", "redirs", "saved", "tokens",
        "words",
    )  # fmt: skip

    def __init__(self, tokens: Sequence[Token], cwd: str | None, acc: _Acc) -> None:
        self.tokens, self.cwd, self.acc = tokens, cwd, acc
        self.saved: list[str | None] = []
        self.words: list[Token] = []
        self.redirs: list[tuple[str, Token]] = []
        self.before, self.mode, self.i = cwd, "", 0
        self.content = self.dangling = False

    def _next(self, kind: str) -> Token | None:
        """The token after the current one when it is of ``kind`` (not consumed)."""
        i = self.i
        return self.tokens[i] if i < len(self.tokens) and self.tokens[i].kind == kind else None

    def word(self, t: Token) -> None:
        self.content, self.dangling = True, False
        mode = self.mode
        if mode == "for":
            _subs(t, self.cwd, self.acc)
            self.mode = "" if t.raw == "do" else mode
        elif mode == "[[":
            self.words.append(t)
            self.mode = "" if t.raw == "]]" else mode
        elif self.words or self.redirs or t.raw != t.text or not self._reserved(t.text):
            self.words.append(t)

    def _reserved(self, text: str) -> bool:
        """A reserved word opening a command: ``True`` when it is no word of the command."""
        if text in _KEYWORDS:
            return True
        if text in ("for", "select"):
            self.mode = "for"
            return True
        if text == "function":
            self.i += self._next("word") is not None
            return True
        self.acc.bad |= text == "case"  # case patterns are not parsed: a run
        if text == "[[":
            self.mode = "[["
        return False

    def redir(self, t: Token) -> None:
        self.content, self.dangling = True, False
        if self.mode == "[[":
            return
        target = self._next("word")
        if target is None:
            self.acc.bad = True
        else:
            self.redirs.append((t.text, target))
            self.i += 1

    def heredoc(self, t: Token) -> None:
        for sub in t.subs:
            _nested(sub, self.cwd, self.acc)

    def error(self, t: Token) -> None:
        self.acc.bad = True

    def op(self, t: Token) -> None:
        if self.mode == "[[":
            return
        if t.text == "(":
            self._open()
        else:
            self._operator(t.text)

    def _open(self) -> None:
        closing = self._next("op")
        if len(self.words) == 1 and closing is not None and closing.text == ")":
            self.words = []  # NAME() function definition: its body is classified
            self.i += 1
        elif self.words and any(w.raw not in ("time", "-p", "!") for w in self.words):
            self.acc.bad = True
        else:  # a subshell, perhaps timed (`time (…)`)
            self.words = []
            self.saved.append(self.cwd)
            self.before, self.content = self.cwd, False

    def _operator(self, text: str) -> None:
        acc = self.acc
        acc.bad |= text in _NEEDS_LEFT and not self.content
        self.content, self.dangling = text == ")", text in _NEEDS_RIGHT
        cwd = _finish(self.words, self.redirs, self.cwd, acc)
        self.words, self.redirs = [], []
        if text == ")":
            if self.saved:
                cwd = self.saved.pop()
            else:
                acc.bad = True
        elif text in ("|", "|&", "&"):
            cwd = self.before  # a pipeline element or background job runs in a subshell
        self.cwd = self.before = cwd


_STEPS = {
    "word": _Walker.word,
    "redir": _Walker.redir,
    "heredoc": _Walker.heredoc,
    "error": _Walker.error,
    "op": _Walker.op,
}


def _nested(tokens: Sequence[Token], cwd: str | None, acc: _Acc) -> None:
    if acc.depth >= _MAX_DEPTH:
        acc.bad = True
        return
    acc.depth += 1
    _walk(tokens, cwd, acc)
    acc.depth -= 1


def _subs(word: Token, cwd: str | None, acc: _Acc) -> None:
    for sub in word.subs:
        _nested(sub, cwd, acc)


def _finish(
    words: list[Token], redirs: list[tuple[str, Token]], cwd: str | None, acc: _Acc
) -> str | None:
    """Classify one simple command into ``acc`` and return the cwd after it."""
    if not words and not redirs:
        return cwd
    acc.commands += 1
    result = _Result()
    redirected = _redirected(redirs, cwd, acc, result)
    argv, forced = _unwrap(words)
    if forced:
        result.kind = "run"
    if argv:
        _program(argv, cwd, acc, result)
    result.paths.extend(redirected)
    for w in words:
        _subs(w, cwd, acc)
    _record(result, cwd, acc)
    if argv and argv[0].text in ("cd", "pushd", "popd"):
        return _cd(argv, cwd)
    return cwd


def _redirected(
    redirs: list[tuple[str, Token]], cwd: str | None, acc: _Acc, result: _Result
) -> list[_Candidate]:
    """The paths the redirections name; one that writes (not to a sink) makes ``result`` a run."""
    redirected: list[_Candidate] = []
    for op, target in redirs:
        base = op.lstrip("0123456789")
        if base in ("<<", "<<-", "<<<"):
            _subs(target, cwd, acc)
        elif base in ("<&", ">&") and (target.text.isdigit() or target.text in ("-", "")):
            continue
        elif base == "<":
            redirected.append(_candidate(target))
        elif target.text not in _SINKS:
            result.kind = "run"
            redirected.append(_candidate(target))
    return redirected


def _program(argv: list[Token], cwd: str | None, acc: _Acc, result: _Result) -> None:
    """What the program ``argv`` runs does, into ``result``; a shell's script goes into ``acc``."""
    acc.parts.append(tuple(w.text for w in argv))
    name = argv[0].text
    name = name if name.startswith("((") else name.rsplit("/", 1)[-1]
    found = _command(name, argv)
    result.paths.extend(found.paths)
    result.patterns.extend(found.patterns)
    if _RANK[found.kind] > _RANK[result.kind]:
        result.kind = found.kind
    if found.implicit_dir and not found.paths and cwd:
        result.paths.append((".", "rel"))
    if name in _SHELLS:
        _shell_script(name, argv, cwd, acc)


def _record(result: _Result, cwd: str | None, acc: _Acc) -> None:
    """Add one simple command's kind, patterns and (resolved) paths to ``acc``."""
    acc.rank = max(acc.rank, _RANK[result.kind])
    for pattern in result.patterns:
        if pattern not in acc.patterns:
            acc.patterns.append(pattern)
    for candidate in result.paths:
        path = _resolve(candidate, cwd)
        if path is not None and path not in acc.paths:
            acc.paths.append(path)


def _resolve(candidate: _Candidate, cwd: str | None) -> str | None:
    text, mode = candidate
    if not text or text == "-" or text.startswith(("<(", ">(")) or "\x00" in text:
        return None
    if mode == "asis":  # a path made from a command's output is no path we know
        return None if text.startswith(("$(", "`")) else text
    if _WINDOWS.match(text):
        return _normal(text.replace("\\", "/"))
    if text.startswith("/") or mode == "root":
        return _normal(text)
    if cwd is None:
        return text
    return _normal(f"{cwd}/{text}" if cwd else text)


def _normal(path: str) -> str:
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("//") else path


def _cd(argv: list[Token], cwd: str | None) -> str | None:
    _, ops, _ = _operands(argv[1:])
    if argv[0].text == "popd" or not ops or ops[0].expands or ops[0].text in ("-", ""):
        return None
    target = ops[0].text
    if target.startswith("/") or _WINDOWS.match(target):
        return _resolve((target, "rel"), cwd)
    if cwd is None:
        return None
    target = _normal(f"{cwd}/{target}" if cwd else target)
    return None if len(target) > _MAX_CWD else "" if target == "." else target


def _shell_script(name: str, argv: list[Token], cwd: str | None, acc: _Acc) -> None:
    """``bash -c SCRIPT`` and ``eval WORDS`` run a script: add its parts and paths (still a run)."""
    texts = [w.text for w in argv[1:]]
    if name == "eval":
        script = " ".join(texts)
    elif "-c" in texts and texts.index("-c") + 1 < len(texts):
        script = texts[texts.index("-c") + 1]
    else:
        return
    _nested(tokenize(script), cwd, acc)
