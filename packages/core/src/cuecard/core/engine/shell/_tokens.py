"""Shell tokens: the (bash-subset) tokenizer behind ``shell._classifier.tokenize``.

Standard library only; the patterns are compiled once, at import. It handles quotes (``''``,
``""``, ``$''``), backslashes, control operators, ``$(…)``/backtick/``<(…)`` nesting,
redirections, heredocs and here-strings, and never raises: malformed input ends in an error token.
"""

from __future__ import annotations

import re
from collections import namedtuple

TYPE_CHECKING = False  # typing costs a hook process more than classifying a command
if TYPE_CHECKING:
    from typing import Literal, NamedTuple

__all__ = ["Token", "tokenize"]

_MAX_DEPTH = 24  # nesting of $(…), backticks and sh -c; deeper input is malformed (a run)
_BUDGET = 20_000  # scanner steps (tokens, quoted pieces, substitutions); more is malformed (a run)

_BLANK = re.compile(r"(?:[ \t\r\f\v]|\\\n)+")
_WORD_PLAIN = re.compile(r"[^ \t\n\r\f\v'\"\\$`|&;()<>]+")
_SIMPLE_WORD = re.compile(
    r"[^ \t\n\r\f\v'\"\\$`|&;()<>#~][^ \t\n\r\f\v'\"\\$`|&;()<>]*(?![^ \t\n\r\f\v|&;()<>])"
)
_SPECIAL_START = frozenset("\n#()|&;<>'\"\\$`~")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_HEREDOC_PLAIN = re.compile(r"[^\\$`]+")
_ANSI_PLAIN = re.compile(r"[^'\\]+")
_BACKTICK_STOP = re.compile(r"[`\\]")
_PAREN = re.compile(r"[()]")
_BRACE = re.compile(r"[{}\\]")
_REDIR = re.compile(r"\d*(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)|&>>|&>")
_OP = re.compile(r";;&|;;|;&|&&|\|\||\|&|[|&;()]")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ANSI_NUMBER = re.compile(r"x[0-9A-Fa-f]{1,2}|[0-7]{1,3}")
_ANSI_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


if TYPE_CHECKING:

    class Token(NamedTuple):
        kind: Literal["word", "op", "redir", "heredoc", "error"]
        text: str
        raw: str = ""
        expands: bool = False
        subs: tuple[tuple[Token, ...], ...] = ()

else:
    Token = namedtuple("Token", "kind text raw expands subs", defaults=("", False, ()))
    Token.__doc__ = """One shell token, a named tuple (the tokenizer makes many; tuples are cheap).

    ``kind`` is ``word``, ``op`` (``|``, ``||``, ``&&``, ``;``, ``&``, ``(``, ``)``, newline, …),
    ``redir`` (the operator, e.g. ``2>``, ``>>``, ``<<-``; its target is the next word token),
    ``heredoc`` (``text`` is the body, data only) or ``error`` (``text`` says what is malformed).
    For a word, ``text`` is the value after quote removal with expansions kept as written
    (``"$HOME"/x`` gives ``$HOME/x``), ``raw`` the source slice, ``expands`` whether the shell
    would expand it (``$…``, backticks, a leading ``~``, ``<(…)``), and ``subs`` the tokens of the
    command substitutions inside it (also of an unquoted heredoc body).
    """


_OPERATORS = ("\n", ";;&", ";;", ";&", "&&", "||", "|&", "|", "&", ";", "(", ")")
_OP_TOKENS = {op: Token("op", op, op) for op in _OPERATORS}


def tokenize(command: str) -> list[Token]:
    """Split ``command`` into shell tokens. Never raises; malformed input ends in an error token."""
    scanner = _Scanner(command, 0, [] if "\x00" not in command else ["NUL byte"], [_BUDGET])
    tokens = scanner.scan(close=False)
    if scanner.errors:
        tokens.append(Token("error", scanner.errors[0]))
    return tokens


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
            else:
                parens += self._operator(c, tokens)
        return tokens

    def _operator(self, c: str, tokens: list[Token]) -> int:
        """Scan a redirection, an operator or else a word; return how it changes the ``(`` depth."""
        src = self.src
        if m := _REDIR.match(src, self.i):
            self.i = m.end()
            tokens.append(Token("redir", m.group(), m.group()))
            if m.group().endswith(("<<", "<<-")):
                self._delimiter(m.group(), tokens)
        elif m := _OP.match(src, self.i):
            self.i = m.end()
            tokens.append(_OP_TOKENS[m.group()])
            return {"(": 1, ")": -1}.get(m.group(), 0)
        else:
            start = self.i
            tokens.append(self._word())
            if self.i == start:  # cannot happen for well-formed scanner states; never loop
                self.errors.append(f"unexpected {c!r}")
                self.i += 1
        return 0

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
