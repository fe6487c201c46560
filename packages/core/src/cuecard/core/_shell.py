"""Shell commands as trigger events: ``read``, ``search`` or ``run``. Standard library only.

The hook calls :func:`classify` before every shell tool call, so this module imports nothing
heavy and compiles its patterns once. :func:`tokenize` is a real (bash-subset) tokenizer: quotes
(``''``, ``""``, ``$''``), backslashes, control operators, ``$(…)``/backtick/``<(…)`` nesting,
redirections, heredocs and here-strings. :func:`classify` walks the tokens, applies ``cd`` to the
paths after it, and calls a command a ``read`` when every part only reads, a ``search`` when every
part only searches or reads, and a ``run`` otherwise (unknown programs, writes, malformed input).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

__all__ = ["Classified", "Token", "classify", "tokenize"]

Kind = Literal["read", "search", "run"]
_RANK: dict[str, int] = {"read": 0, "search": 1, "run": 2}
_MAX_DEPTH = 24  # nesting of $(…), backticks and sh -c; deeper input is malformed (a run)
_BUDGET = 20_000  # scanner steps (tokens, quoted pieces, substitutions); more is malformed (a run)

_BLANK = re.compile(r"(?:[ \t\r\f\v]|\\\n)+")
_WORD_PLAIN = re.compile(r"[^ \t\n\r\f\v'\"\\$`|&;()<>]+")
_SIMPLE_WORD = re.compile(
    r"[^ \t\n\r\f\v'\"\\$`|&;()<>#~][^ \t\n\r\f\v'\"\\$`|&;()<>]*(?![^ \t\n\r\f\v|&;()<>])"
)
_SPECIAL_START = frozenset("\n#()|&;<>'\"\\$`~")
_MAX_CWD = 1024  # a longer cd chain makes the cwd unknown (keeps cd chains linear)
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_HEREDOC_PLAIN = re.compile(r"[^\\$`]+")
_ANSI_PLAIN = re.compile(r"[^'\\]+")
_BACKTICK_STOP = re.compile(r"[`\\]")
_PAREN = re.compile(r"[()]")
_BRACE = re.compile(r"[{}\\]")
_REDIR = re.compile(r"\d*(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)|&>>|&>")
_OP = re.compile(r";;&|;;|;&|&&|\|\||\|&|[|&;()]")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_WINDOWS = re.compile(r"[A-Za-z]:[\\/]")
_PATHLIKE = re.compile(r"(?:\.{0,2}/)?[\w.@%+,~-]+(?:/[\w.@%+,~-]*)*/?")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")
_REV = re.compile(
    r"^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|@)(?:[~^].*)?$|^[^./][^/]*\.\.|[~^]|@\{"
    r"|^[0-9a-f]{7,40}$|^(?:refs|origin|upstream)/"
)
_AWK_UNSAFE = re.compile(r"\bsystem\s*\(|\|\s*&|\|\s*getline|\bprintf?\b[^;{}\n]*[>|]")
_ANSI_NUMBER = re.compile(r"x[0-9A-Fa-f]{1,2}|[0-7]{1,3}")
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_SHELL_VAR = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9]")
_ANSI_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


class Token(NamedTuple):
    """One shell token (a named tuple: the tokenizer makes many, and tuples are cheap).

    ``kind`` is ``word``, ``op`` (``|``, ``||``, ``&&``, ``;``, ``&``, ``(``, ``)``, newline, …),
    ``redir`` (the operator, e.g. ``2>``, ``>>``, ``<<-``; its target is the next word token),
    ``heredoc`` (``text`` is the body, data only) or ``error`` (``text`` says what is malformed).
    For a word, ``text`` is the value after quote removal with expansions kept as written
    (``"$HOME"/x`` gives ``$HOME/x``), ``raw`` the source slice, ``expands`` whether the shell
    would expand it (``$…``, backticks, a leading ``~``, ``<(…)``), and ``subs`` the tokens of the
    command substitutions inside it (also of an unquoted heredoc body).
    """

    kind: Literal["word", "op", "redir", "heredoc", "error"]
    text: str
    raw: str = ""
    expands: bool = False
    subs: tuple[tuple[Token, ...], ...] = ()


_OPERATORS = ("\n", ";;&", ";;", ";&", "&&", "||", "|&", "|", "&", ";", "(", ")")
_OP_TOKENS = {op: Token("op", op, op) for op in _OPERATORS}


@dataclass(frozen=True, slots=True)
class Classified:
    """What a shell command does, as a trigger event sees it."""

    kind: Kind
    paths: tuple[str, ...]
    """Paths the command names, with earlier ``cd`` applied and posix-normalised; absolute ones
    stay absolute, and ``~``, ``$VAR`` paths (or any after an unknown ``cd``) stay as written."""
    parts: tuple[tuple[str, ...], ...]
    """argv of every simple command in order (each before the substitutions inside it), without
    leading ``VAR=value`` assignments and wrappers (``sudo``, ``env``, ``time``, ``nohup``, …)."""
    patterns: tuple[str, ...]
    """Search patterns of grep, rg, ag, ack, ``git grep``, ``find -name`` and fd."""


def tokenize(command: str) -> list[Token]:
    """Split ``command`` into shell tokens. Never raises; malformed input ends in an error token."""
    scanner = _Scanner(command, 0, [] if "\x00" not in command else ["NUL byte"], [_BUDGET])
    tokens = scanner.scan(close=False)
    if scanner.errors:
        tokens.append(Token("error", scanner.errors[0]))
    return tokens


def classify(command: str) -> Classified:
    """Classify a shell command as a ``read``, ``search`` or ``run`` event. Never raises."""
    acc = _Acc()
    _walk(tokenize(command), "", acc)
    kind: Kind = "run"
    if not acc.bad and acc.commands:
        kind = "search" if acc.rank == 1 else "read" if acc.rank == 0 else "run"
    return Classified(kind, tuple(acc.paths), tuple(acc.parts), tuple(acc.patterns))


# --- tokenizer -------------------------------------------------------------------------------


class _Scanner:
    """A position in one source string; ``scan`` returns its tokens, recursing into ``$(…)``."""

    __slots__ = ("budget", "depth", "errors", "i", "n", "pending", "src")

    def __init__(self, src: str, depth: int, errors: list[str], budget: list[int]) -> None:
        self.src, self.i, self.n, self.depth, self.errors = src, 0, len(src), depth, errors
        self.budget = budget  # shared by nested scanners: bounds the work on hostile input
        self.pending: list[tuple[str, bool, bool]] = []  # heredocs: delimiter, strip tabs, quoted

    def spend(self) -> bool:
        """Take one step from the shared budget; when it is gone, stop scanning (malformed)."""
        self.budget[0] -= 1
        if self.budget[0] >= 0:
            return True
        if self.budget[0] == -1:
            self.errors.append("too long")
        self.i = self.n
        return False

    def scan(self, close: bool) -> list[Token]:
        src, parens = self.src, 0
        tokens: list[Token] = []
        while self.spend():
            blank = _BLANK.match(src, self.i)
            if blank:
                self.i = blank.end()
            if self.i >= self.n:
                if close:
                    self.errors.append("unclosed $(")
                return tokens
            c = src[self.i]
            if c not in _SPECIAL_START and (m := _SIMPLE_WORD.match(src, self.i)):
                text = m.group()
                if not (text.isdigit() and src.startswith(("<", ">"), m.end())):
                    tokens.append(Token("word", text, text))
                    self.i = m.end()
                    continue
            if c == "\n":
                tokens.append(_OP_TOKENS["\n"])
                self.i += 1
                if self.pending:
                    self._heredocs(tokens)
            elif c == "#":
                end = src.find("\n", self.i)
                self.i = self.n if end < 0 else end
            elif c == ")" and close and parens == 0:
                self.i += 1
                return tokens
            elif c in "<>" and src.startswith("(", self.i + 1):
                tokens.append(self._word())
            elif src.startswith("((", self.i):
                start = self.i
                self.i = self._arith_end(self.i + 2)
                tokens.append(Token("word", src[start : self.i], src[start : self.i]))
            elif m := _REDIR.match(src, self.i):
                self.i = m.end()
                tokens.append(Token("redir", m.group(), m.group()))
                if m.group().endswith(("<<", "<<-")):
                    self._delimiter(m.group(), tokens)
            elif m := _OP.match(src, self.i):
                self.i = m.end()
                parens += {"(": 1, ")": -1}.get(m.group(), 0)
                tokens.append(_OP_TOKENS[m.group()])
            else:
                start = self.i
                tokens.append(self._word())
                if self.i == start:  # cannot happen for well-formed scanner states; never loop
                    self.errors.append(f"unexpected {c!r}")
                    self.i += 1
        return tokens

    def _word(self) -> Token:
        src, start = self.src, self.i
        parts: list[str] = []
        subs: list[tuple[Token, ...]] = []
        expands = src.startswith("~", start)
        while self.i < self.n and self.spend():
            plain = _WORD_PLAIN.match(src, self.i)
            if plain:
                parts.append(plain.group())
                self.i = plain.end()
                continue
            c = src[self.i]
            if c == "'":
                end = src.find("'", self.i + 1)
                if end < 0:
                    self.errors.append("unclosed '")
                    end = self.n
                parts.append(src[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                self.i += 1
                expands |= self._quoted(parts, subs, '"')
            elif c == "\\":
                nxt = src[self.i + 1 : self.i + 2]
                parts.append("" if nxt == "\n" else nxt or "\\")
                self.i += 2
            elif c == "$":
                expands |= self._dollar(parts, subs, in_quotes=False)
            elif c == "`":
                self._backtick(parts, subs)
                expands = True
            elif c in "<>" and self.i == start and src.startswith("(", self.i + 1):
                self.i += 2
                subs.append(self._nested())
                parts.append(src[start : self.i])
                expands = True
            else:
                break
        self.i = min(self.i, self.n)
        return Token("word", "".join(parts), src[start : self.i], expands, tuple(subs))

    def _quoted(self, parts: list[str], subs: list[tuple[Token, ...]], end: str) -> bool:
        """Read a double-quoted string (``end='"'``) or an unquoted heredoc body (``end=''``)."""
        src, plain_re, expands = self.src, _DQ_PLAIN if end else _HEREDOC_PLAIN, False
        escapable = '$`\\"' if end else "$`\\"
        while self.i < self.n and self.spend():
            plain = plain_re.match(src, self.i)
            if plain:
                parts.append(plain.group())
                self.i = plain.end()
                continue
            c = src[self.i]
            if c == '"':
                self.i += 1
                return expands
            if c == "\\":
                nxt = src[self.i + 1 : self.i + 2]
                if nxt == "\n" or (nxt and nxt in escapable):
                    parts.append("" if nxt == "\n" else nxt)
                    self.i += 2
                else:
                    parts.append("\\")
                    self.i += 1
            elif c == "$":
                expands |= self._dollar(parts, subs, in_quotes=True)
            else:
                self._backtick(parts, subs)
                expands = True
        if end and self.budget[0] >= 0:
            self.errors.append('unclosed "')
        return expands

    def _dollar(self, parts: list[str], subs: list[tuple[Token, ...]], in_quotes: bool) -> bool:
        src, start = self.src, self.i
        nxt = src[start + 1 : start + 2]
        if src.startswith("((", start + 1):
            self.i = self._arith_end(start + 3)
        elif nxt == "(":
            self.i = start + 2
            subs.append(self._nested())
        elif nxt == "{":
            self.i = self._brace_end(start + 2)
            inner = src[start + 2 : self.i - 1]
            if ("$(" in inner or "`" in inner) and self.depth < _MAX_DEPTH:
                inner_scanner = _Scanner(inner, self.depth + 1, self.errors, self.budget)
                subs.append(tuple(inner_scanner.scan(False)))
        elif nxt == "'" and not in_quotes:
            parts.append(self._ansi_c(start + 2))
            return False
        elif nxt == '"' and not in_quotes:
            self.i = start + 2
            return self._quoted(parts, subs, '"')
        elif var := _VAR.match(src, start + 1):
            self.i = var.end()
        else:
            parts.append("$")
            self.i = start + 1
            return False
        parts.append(src[start : self.i])
        return True

    def _nested(self) -> tuple[Token, ...]:
        if self.depth >= _MAX_DEPTH:
            self.errors.append("nested too deeply")
            self.i = self.n
            return ()
        self.depth += 1
        tokens = self.scan(close=True)
        self.depth -= 1
        return tuple(tokens)

    def _backtick(self, parts: list[str], subs: list[tuple[Token, ...]]) -> None:
        src, start, inner = self.src, self.i, []
        j = start + 1
        while True:
            stop = _BACKTICK_STOP.search(src, j)
            if stop is None:
                self.errors.append("unclosed `")
                inner.append(src[j:])
                j = self.n
                break
            k = stop.start()
            inner.append(src[j:k])
            if src[k] == "`":
                j = k + 1
                break
            nxt = src[k + 1 : k + 2]
            inner.append(nxt if nxt in ("`", "\\", "$") else "\\" + nxt)
            j = k + 2
        self.i = min(j, self.n)
        parts.append(src[start : self.i])
        if self.depth >= _MAX_DEPTH:
            self.errors.append("nested too deeply")
        else:
            scanner = _Scanner("".join(inner), self.depth + 1, self.errors, self.budget)
            subs.append(tuple(scanner.scan(False)))

    def _ansi_c(self, j: int) -> str:
        src, out = self.src, []
        while j < self.n and self.spend():
            plain = _ANSI_PLAIN.match(src, j)
            if plain:
                out.append(plain.group())
                j = plain.end()
                continue
            if src[j] == "'":
                self.i = j + 1
                return "".join(out)
            e = src[j + 1 : j + 2]
            digits = _ANSI_NUMBER.match(src, j + 1, j + 4)
            if digits:
                d = digits.group()
                out.append(chr(int(d[1:], 16) if d[0] == "x" else int(d, 8)))
                j += 1 + len(d)
                continue
            out.append(_ANSI_ESCAPES.get(e, "\\" + e))
            j += 2
        if self.budget[0] >= 0:
            self.errors.append("unclosed $'")
        self.i = self.n
        return "".join(out)

    def _arith_end(self, j: int) -> int:
        """The index after the ``))`` closing an arithmetic ``((`` whose body starts at ``j``."""
        depth = 2
        for m in _PAREN.finditer(self.src, j):
            if not self.spend():
                return self.n
            depth += 1 if m.group() == "(" else -1
            if depth == 0:
                return m.end()
        if self.budget[0] >= 0:
            self.errors.append("unclosed ((")
        return self.n

    def _brace_end(self, j: int) -> int:
        depth = 1
        while self.spend() and (m := _BRACE.search(self.src, j)):
            j = m.end() + (m.group() == "\\")
            depth += {"{": 1, "}": -1}.get(m.group(), 0)
            if depth == 0:
                return j
        if self.budget[0] >= 0:
            self.errors.append("unclosed ${")
        return self.n

    def _delimiter(self, op: str, tokens: list[Token]) -> None:
        blank = _BLANK.match(self.src, self.i)
        if blank:
            self.i = blank.end()
        if self.i >= self.n or self.src[self.i] in "\n|&;()<>":
            self.errors.append("heredoc without delimiter")
            return
        word = self._word()
        tokens.append(word)
        quoted = any(q in word.raw for q in "'\"\\")
        self.pending.append((word.text, op.endswith("-"), quoted))

    def _heredocs(self, tokens: list[Token]) -> None:
        src = self.src
        for delimiter, strip, quoted in self.pending:
            start = self.i
            body_end, nxt = self._body_end(start, delimiter, strip)
            body = src[start:body_end]
            self.i = nxt
            subs: list[tuple[Token, ...]] = []
            if not quoted and ("$" in body or "`" in body):
                inner = _Scanner(body, self.depth, self.errors, self.budget)
                inner._quoted([], subs, "")
            tokens.append(Token("heredoc", body, body, False, tuple(subs)))
        self.pending.clear()

    def _body_end(self, start: int, delimiter: str, strip: bool) -> tuple[int, int]:
        """Where a heredoc body from ``start`` ends (its delimiter line) and what follows it."""
        src, n, pos = self.src, self.n, start
        while self.spend():
            pos = src.find(delimiter, pos) if delimiter else src.find("\n", pos)
            if pos < 0:
                break
            line_start = src.rfind("\n", start, pos) + 1 if pos > start else start
            line_start = max(line_start, start)
            lead = src[line_start:pos]
            after = pos + len(delimiter)
            if (lead == "" or (strip and lead.strip("\t") == "")) and (
                after == n or src[after] == "\n"
            ):
                return line_start, min(after + 1, n)
            pos += 1
        return n, n


# --- classifier ------------------------------------------------------------------------------

_Candidate = tuple[str, str]  # (text, mode): "rel" joins the cwd, "root" does not, "asis" is kept


@dataclass(slots=True)
class _Acc:
    rank: int = 0
    commands: int = 0
    depth: int = 0
    bad: bool = False
    paths: list[str] = field(default_factory=list)
    parts: list[tuple[str, ...]] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Result:
    kind: Kind = "read"
    paths: list[_Candidate] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    implicit_dir: bool = False  # with no path operand, the command works on its cwd


_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
_KEYWORDS |= frozenset({"fi", "done", "}", "esac"})
_NEEDS_RIGHT = frozenset({"&&", "||", "|", "|&"})
_NEEDS_LEFT = _NEEDS_RIGHT | {";", "&", ";;", ";&", ";;&", ")"}
_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "eval"})


def _walk(tokens: Sequence[Token], cwd: str | None, acc: _Acc) -> None:
    """Classify one token list into ``acc``; ``(…)`` subshells restore the cwd when they end."""
    saved: list[str | None] = []
    words: list[Token] = []
    redirs: list[tuple[str, Token]] = []
    before, mode, i, n = cwd, "", 0, len(tokens)
    content = dangling = False  # something since the last operator; an operator awaits its right
    while i < n:
        t = tokens[i]
        i += 1
        if t.kind in ("word", "redir"):
            content, dangling = True, False
        if t.kind == "word":
            if mode == "for":
                _subs(t, cwd, acc)
                mode = "" if t.raw == "do" else mode
                continue
            if mode == "[[":
                words.append(t)
                mode = "" if t.raw == "]]" else mode
                continue
            if not words and not redirs and t.raw == t.text:
                if t.text in _KEYWORDS:
                    continue
                if t.text in ("for", "select"):
                    mode = "for"
                    continue
                if t.text == "function":
                    i += i < n and tokens[i].kind == "word"
                    continue
                acc.bad |= t.text == "case"  # case patterns are not parsed: a run
                mode = "[[" if t.text == "[[" else mode
            words.append(t)
        elif t.kind == "redir":
            if mode == "[[":
                continue
            if i < n and tokens[i].kind == "word":
                redirs.append((t.text, tokens[i]))
                i += 1
            else:
                acc.bad = True
        elif t.kind == "heredoc":
            for sub in t.subs:
                _nested(sub, cwd, acc)
        elif t.kind == "error":
            acc.bad = True
        elif mode == "[[":
            continue
        elif t.text == "(":
            if len(words) == 1 and i < n and tokens[i].kind == "op" and tokens[i].text == ")":
                words, i = [], i + 1  # NAME() function definition: its body is classified
            elif words and any(w.raw not in ("time", "-p", "!") for w in words):
                acc.bad = True
            else:  # a subshell, perhaps timed (`time (…)`)
                words = []
                saved.append(cwd)
                before, content = cwd, False
        else:
            acc.bad |= t.text in _NEEDS_LEFT and not content
            content, dangling = t.text == ")", t.text in _NEEDS_RIGHT
            cwd = _finish(words, redirs, cwd, acc)
            words, redirs = [], []
            if t.text == ")":
                if saved:
                    cwd = saved.pop()
                else:
                    acc.bad = True
            elif t.text in ("|", "|&", "&"):
                cwd = before  # a pipeline element or background job runs in a subshell
            before = cwd
    _finish(words, redirs, cwd, acc)
    acc.bad |= bool(saved) or bool(mode) or dangling


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
    result, redirected = _Result(), []
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
    argv, forced = _unwrap(words)
    if forced:
        result.kind = "run"
    if argv:
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
    result.paths.extend(redirected)
    for w in words:
        _subs(w, cwd, acc)
    acc.rank = max(acc.rank, _RANK[result.kind])
    for pattern in result.patterns:
        if pattern not in acc.patterns:
            acc.patterns.append(pattern)
    for candidate in result.paths:
        path = _resolve(candidate, cwd)
        if path is not None and path not in acc.paths:
            acc.paths.append(path)
    if argv and argv[0].text in ("cd", "pushd", "popd"):
        return _cd(argv, cwd)
    return cwd


_NONE: frozenset[str] = frozenset()
_WRAPPERS: dict[str, tuple[str, frozenset[str], int, frozenset[str]]] = {
    # name: (short options taking a value, long ones, leading operands, options making a run)
    "sudo": (
        "ugpCDrtTU",
        frozenset({"--user", "--group", "--prompt", "--chdir", "--role"}),
        0,
        frozenset({"-D", "--chdir"}),
    ),
    "doas": ("uC", _NONE, 0, _NONE),
    "env": (
        "uCS",
        frozenset({"--unset", "--chdir", "--split-string"}),
        0,
        frozenset({"-S", "--split-string", "-C", "--chdir"}),
    ),
    "time": ("fo", frozenset({"--format", "--output"}), 0, frozenset({"-o", "--output"})),
    "nohup": ("", _NONE, 0, _NONE),
    "builtin": ("", _NONE, 0, _NONE),
    "command": ("", _NONE, 0, _NONE),
    "exec": ("a", _NONE, 0, _NONE),
    "nice": ("n", frozenset({"--adjustment"}), 0, _NONE),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1, _NONE),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0, _NONE),
    "ionice": ("cnp", frozenset({"--class", "--classdata", "--pid"}), 0, _NONE),
}


def _unwrap(words: list[Token]) -> tuple[list[Token], bool]:
    """Drop leading assignments and wrappers; say whether a wrapper option makes it a run."""
    k, forced = 0, False
    while True:
        while k < len(words) and _ASSIGN.match(words[k].text):
            k += 1
        if k >= len(words) or words[k].text not in _WRAPPERS:
            return words[k:], forced
        name = words[k].text
        short, long, operands, runs = _WRAPPERS[name]
        if name == "command" and k + 1 < len(words) and words[k + 1].text in ("-v", "-V"):
            return words[k:], forced
        k += 1
        while k < len(words) and words[k].text.startswith("-") and words[k].text != "-":
            opt = words[k].text
            k += 1
            if opt == "--":
                break
            forced |= opt.split("=")[0] in runs or opt[:2] in runs
            if opt in long or (len(opt) == 2 and opt[1] in short):
                k += 1
        k += operands
        if k >= len(words) and name in ("sudo", "doas"):
            forced = True


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


# --- commands --------------------------------------------------------------------------------


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


def _xargs(argv: list[Token]) -> _Result:
    """xargs runs its command with more operands: always a run, naming what that command names."""
    k = 1
    while k < len(argv) and argv[k].text.startswith("-"):
        opt = argv[k].text
        k += 1
        if opt == "--":
            break
        if (len(opt) == 2 and opt[1] in "IaEdLnPs") or opt in _XARGS_LONG:
            k += 1
    found = _command(argv[k].text.rsplit("/", 1)[-1], argv[k:]) if k < len(argv) else _Result()
    found.kind, found.implicit_dir = "run", False
    return found


_XARGS_LONG = frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines"})


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


def _sed(argv: list[Token]) -> _Result:
    opts, ops, _ = _operands(argv[1:], "efl", frozenset({"--expression", "--file"}))
    names = {n for n, _ in opts}
    scripts = [v or "" for n, v in opts if n in ("-e", "--expression")]
    if not scripts and not names & {"-f", "--file"} and ops:
        script = ops.pop(0)
        scripts.append(_SHELL_VAR.sub("0", script.text) if script.expands else script.text)
    found = _Result("read", [_candidate(w) for w in ops])
    if names & {"-i", "--in-place", "-f", "--file"} or any(map(_sed_writes, scripts)):
        found.kind = "run"
    return found


def _sed_writes(script: str) -> bool:
    """Whether a sed script may write a file or run a command (``w``, ``W``, ``e``, ``s///w``)."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!,0123456789$~+":
            i += 1
        elif c in "/\\":
            delim = script[i + 1 : i + 2] if c == "\\" else "/"
            i = _sed_skip(script, i + 1 + (c == "\\"), delim)
            while i < n and script[i] in "IM":
                i += 1
        elif c in "sy":
            delim = script[i + 1 : i + 2]
            if not delim or delim in "\\\n":
                return True
            i = _sed_skip(script, _sed_skip(script, i + 2, delim), delim)
            flags_end = i
            while flags_end < n and script[flags_end] not in ";\n}":
                flags_end += 1
            if c == "s" and ("w" in script[i:flags_end] or "e" in script[i:flags_end]):
                return True
            i = flags_end
        elif c in "aicrRbtT:#":
            end = script.find("\n", i)
            if c in "rRbtT" and 0 <= script.find(";", i) < (end if end >= 0 else n):
                end = script.find(";", i)
            i = n if end < 0 else end
        elif c in "dDgGhHnNpPqQlLxz=Fv":
            i += 1
        else:
            return True  # w, W, e and anything unknown
    return False


def _sed_skip(script: str, i: int, delim: str) -> int:
    """The index after the next unescaped ``delim`` from ``i``."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
        elif script[i] == delim:
            return i + 1
        else:
            i += 1
    return i


def _awk(argv: list[Token]) -> _Result:
    opts, ops, _ = _operands(argv[1:], "fvFieEl", frozenset({"--file", "--assign", "--source"}))
    names = {n for n, _ in opts}
    programs = [v or "" for n, v in opts if n in ("-e", "--source")]
    if not programs and not names & {"-f", "--file", "-E"} and ops:
        programs.append(ops.pop(0).text)
    files = [_candidate(w) for w in ops if not _ASSIGN.match(w.text)]
    found = _Result("read", files)
    unknown = names & {"-f", "--file", "-i", "--include", "-E", "-l"}
    if unknown or any(_AWK_UNSAFE.search(_AWK_STRING.sub('""', p)) for p in programs):
        found.kind = "run"
    return found


def _jq(argv: list[Token]) -> _Result:
    found, k, has_filter = _Result("read"), 1, False
    while k < len(argv):
        word = argv[k].text
        k += 1
        if word in ("--arg", "--argjson", "--slurpfile", "--rawfile"):
            k += 2
        elif word in ("--indent", "-L"):
            k += 1
        elif word in ("-f", "--from-file"):
            has_filter = True
            k += 1
        elif word in ("--args", "--jsonargs"):
            break
        elif not word.startswith("-") or word == "-":
            if has_filter:
                found.paths.append(_candidate(argv[k - 1]))
            has_filter = True
    return found


_GIT_GLOBAL = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
_GIT_LOG = frozenset({"--max-count", "--skip", "--author", "--grep", "--since", "--until"})
_GIT_READS: dict[str, tuple[str, str]] = {
    # verb: (short options taking a value, how operands are read)
    "status": ("", "paths"), "ls-files": ("xX", "paths"), "check-ignore": ("", "paths"),
    "log": ("nSGL", "revs"), "show": ("nSG", "revs"), "diff": ("SGO", "revs"),
    "shortlog": ("n", "revs"), "whatchanged": ("n", "revs"), "cat-file": ("", "revs"),
    "rev-list": ("n", "revs"), "blame": ("LS", "blame"), "annotate": ("LS", "blame"),
    "ls-tree": ("", "tree"), "rev-parse": ("", "none"), "describe": ("", "none"),
    "show-ref": ("", "none"), "for-each-ref": ("", "none"), "merge-base": ("", "none"),
    "name-rev": ("", "none"), "count-objects": ("", "none"), "grep": ("efABCm", "search"),
    "stash": ("", "stash"), "reflog": ("", "stash"), "worktree": ("", "stash"),
}  # fmt: skip
_GIT_READ_SUBVERBS = frozenset({"list", "show"})


def _git(argv: list[Token]) -> _Result:
    k, base, forced = 1, "", False
    while k < len(argv) and argv[k].text.startswith("-"):
        opt = argv[k].text
        k += 1
        if opt in _GIT_GLOBAL and k < len(argv):
            value = argv[k]
            k += 1
            if opt == "-C":
                base = "$" if value.expands or base == "$" else f"{base}{value.text}/"
            forced |= opt == "--config-env" or (opt == "-c" and not value.text.startswith("color."))
    verb = argv[k].text if k < len(argv) else ""
    spec = _GIT_READS.get(verb)
    if spec is None:
        found = _run(argv[k:] if k < len(argv) else argv)
    else:
        found = _git_read(verb, spec, argv[k + 1 :])
    if forced:
        found.kind = "run"
    if base == "$":  # git -C $DIR: later relative paths are unknown, kept as written
        found.paths = [(t, "asis" if m == "rel" else m) for t, m in found.paths]
    elif base:
        found.paths = [(base + t if m == "rel" else t, m) for t, m in found.paths]
        if found.implicit_dir and not found.paths:
            found.paths.append((base, "rel"))
    return found


def _git_read(verb: str, spec: tuple[str, str], args: list[Token]) -> _Result:
    short, style = spec
    long = _GIT_LOG | {"--contents", "--max-depth", "--threads", "--context", "--regexp"}
    opts, ops, before = _operands(args, short, long)
    names = {n for n, _ in opts}
    found = _Result("read")
    if names & {"--output", "-O", "--open-files-in-pager"}:
        found.kind = "run"
    if style == "stash":
        if (ops and ops[0].text not in _GIT_READ_SUBVERBS) or (not ops and verb == "stash"):
            found.kind = "run"
        return found
    if style == "search":
        found.kind = "search" if found.kind == "read" else found.kind
        found.implicit_dir = True
        found.patterns = [v for n, v in opts if n in ("-e", "--regexp") and v]
        if not found.patterns and "-f" not in names and ops:
            found.patterns.append(ops.pop(0).text)
            before = max(before - 1, 0)
    for index, word in enumerate(ops):
        text = word.text
        if style == "none":
            break
        if (
            style == "paths"
            or index >= before
            or word.expands
            or (style == "blame" and index == before - 1)
            or (style == "tree" and index > 0)
        ):
            found.paths.append(_candidate(word))
        elif style in ("revs", "search") and ":" in text and not _WINDOWS.match(text):
            path = text.partition(":")[2]
            if path and not path.startswith("/"):
                found.paths.append((path, "rel" if path.startswith(("./", "../")) else "root"))
        elif style in ("revs", "search") and _REV.search(text):
            continue
        elif style == "search" or _pathlike(text):
            found.paths.append(_candidate(word))
    return found


_Handler = Callable[[list[Token]], _Result]
_HANDLERS: dict[str, _Handler] = {
    "git": _git,
    "find": _find,
    "fd": _fd,
    "fdfind": _fd,
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "jq": _jq,
    "xargs": _xargs,
    "grep": _searcher("efmABCdD", _GREP_LONG, frozenset({"-e", "--regexp"}), frozenset({"-f"})),
    "rg": _searcher(
        "efgtTmABCMjdEr",
        _RG_LONG,
        frozenset({"-e", "--regexp"}),
        frozenset({"-f", "--file", "--files", "--type-list"}),
    ),
    "ag": _searcher("ABCGgmpW", _AG_LONG, frozenset({"-g"}), _NONE),
    "ack": _searcher("ABCm", _ACK_LONG, frozenset({"--match"}), frozenset({"-f"})),
    "cat": _reader(),
    "tac": _reader(),
    "nl": _reader("bdfhilnpsvw"),
    "head": _reader("nc", frozenset({"--lines", "--bytes"})),
    "tail": _reader("ncs", frozenset({"--lines", "--bytes", "--pid", "--sleep-interval"})),
    "less": _reader("bhjkpPtTxyz"),
    "more": _reader("n"),
    "wc": _reader(),
    "file": _reader("fFmP"),
    "stat": _reader("c", frozenset({"--format", "--printf"})),
    "du": _reader("dBt", frozenset({"--max-depth", "--exclude", "--block-size"}), listing=True),
    "bat": _reader("lmrH", frozenset({"--language", "--line-range", "--style", "--theme"})),
    "batcat": _reader("lmrH", frozenset({"--language", "--line-range", "--style", "--theme"})),
    "diff": _reader("CFILSUWxX", frozenset({"--label", "--exclude", "--unified", "--context"})),
    "cmp": _reader("in", frozenset({"--ignore-initial", "--bytes"})),
    "readlink": _reader(),
    "realpath": _reader("", frozenset({"--relative-to", "--relative-base"})),
    "ls": _reader("ITw", frozenset({"--ignore", "--hide", "--width", "--format"}), listing=True),
    "tree": _limited("LIPoHT", frozenset({"--filelimit", "--charset"}), frozenset({"-o"})),
    "sort": _limited("oktST", frozenset({"--output", "--key"}), frozenset({"-o", "--output"})),
    "uniq": _limited("fsw", frozenset(), frozenset(), outputs=1),
    "xxd": _limited("cglnosC", frozenset(), frozenset(), outputs=1),
    "cut": _reader("bcdf", frozenset({"--bytes", "--characters", "--delimiter", "--fields"})),
    "strings": _reader("nt"),
    "od": _reader("AjNtw"),
    "hexdump": _reader("enosC"),
    "column": _reader("stcNoW"),
    "rev": _reader(),
    "fold": _reader("w"),
    "md5sum": _reader(),
    "sha1sum": _reader(),
    "sha256sum": _reader(),
    "sha512sum": _reader(),
    "cksum": _reader(),
    "tr": _neutral,
    "rm": _mutator(""),
    "rmdir": _mutator(""),
    "mv": _mutator("tS"),
    "cp": _mutator("tS"),
    "ln": _mutator("tS"),
    "touch": _mutator("dtr"),
    "mkdir": _mutator("m"),
    "tee": _mutator(""),
    "truncate": _mutator("sr"),
    "install": _mutator("mgoStT"),
    "unlink": _mutator(""),
    "shred": _mutator("nsu"),
    "chmod": _mutator("", skip=1),
    "chown": _mutator("", skip=1),
    "chgrp": _mutator("", skip=1),
}
_HANDLERS.update({name: _HANDLERS["grep"] for name in ("egrep", "fgrep", "zgrep")})
_NEUTRAL = "echo printf true false : pwd cd pushd popd test [ [[ (( which type basename dirname"
_NEUTRAL += " date whoami uname printenv id hostname sleep seq expr read exit return set export"
_NEUTRAL += " unset shopt local declare typeset readonly shift nproc tty wait alias command"
_HANDLERS.update({name: _neutral for name in _NEUTRAL.split()})


def _command(name: str, argv: list[Token]) -> _Result:
    if name.startswith("(("):
        return _Result("read")
    return _HANDLERS.get(name, _run)(argv)
