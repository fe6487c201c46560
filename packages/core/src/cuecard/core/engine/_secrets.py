"""Credential detection and redaction: the one detector every write refuses with and every output
redacts with (``cuecard add``, ``ingest``, ``import``, ``vault submit``, the review UI's edits, the
DSH tools, the WordPress content check, the vault's search and the hook's records).

The rules: detect-secrets' regex plugins (``_rules_detect_secrets``, generated from the pinned
release by ``tools/secrets/detect_secrets_rules.py``), rules written from the token formats that
services publish (``_rules_services``, each naming its source), and three of cuecard's own: a
private key block, a value assigned to a credential's name (``password: …``, ``API_KEY=…``) and a
long hexadecimal string not named as a digest (``commit 3f2a…`` is one). A value that is a
placeholder (``_placeholders``: a reference, a template, a documented example, a run of one
character) is not a credential.

Standard library only, and RE2 where a secret is looked for: one linear pass of every rule
loosened (its lookarounds dropped, so it matches at least what the rule matches) answers most texts
with "nothing here"; on a hit, an RE2 set of the same loosened rules tells which can match, and
only those are compiled and run, each on RE2 when it compiles there and on ``re`` otherwise.
Nothing is compiled at import: the hook's hot path imports this module only when it has a text to
redact. A refusal names the rule, never the value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

# Not ``from typing import Any``: the hook imports this module to redact, and typing costs more
# than the redaction.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "find_secret",
    "may_hold_secret",
    "redact",
    "redact_json",
    "redact_text_copy",
]

_PRIVATE_KEY = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"
)
# ``password = value`` and its kin. The label may end a longer name (``DB_PASSWORD``) but not run
# on (``tokens``, ``api_key_id``). Its words may be joined by ``_``, ``-`` or one space
# (``api key: …``), as people write them; a spaced label needs a value with a digit and a letter
# (prose says "API key: rotated monthly").
_LABEL = (
    r"(?:password|passwd|pwd|secret|token|api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key"
    r"|client[ _-]?secret|secret[ _-]?key|auth[ _-]?token|access[ _-]?token|refresh[ _-]?token)"
)
_ASSIGNED = (
    rf"(?i:(?<![A-Za-z0-9])(?P<label>{_LABEL})(?![A-Za-z0-9_-])[\"']?\s*(?::=|=|:)\s*"
    r"[\"'`]?(?P<value>[^\s\"'`,;]{3,}))"
)
# Words that follow "password:" in prose, not a password.
_PROSE = frozenset(
    "see set the is are in from via stored kept required optional empty same unset below above "
    "ask use read taken provided rotated managed generated none".split()
)
_HEX = r"(?<![A-Za-z0-9])[A-Fa-f0-9]{32,}(?![A-Za-z0-9])"
# A digest named as such just before it: ``commit 3f2a…``, ``sha256 e3b0…``, a git command's
# argument (``git show 3f2a…``, ``git reset --hard 3f2a…``).
_NAMED_DIGEST = (
    r"(?i)(?:\b(?:commit|commits|sha|sha-?1|sha-?256|sha-?512|revision|rev|hash|digest|checksum"
    r"|md5|git|tree|blob|object|cherry-pick(?:ed)?|revert(?:ed)?|merged?)\b"
    r"|\bgit\s+[a-z][a-z-]*(?:\s+-{1,2}[\w=-]+)*)[\s:=#`'\"(]*"
    r"(?:[A-Fa-f0-9]{7,}[\s,`'\")]*(?:and|or|,)?\s*)*$"
)
# Characters a rule may take in around a credential (a separator before, a quote after): a
# redaction keeps them.
_CONTEXT = " \t\r\n=:\"'`,;"


def _scoped(pattern: str, ignore_case: bool) -> str:
    return f"(?i:{pattern})" if ignore_case else f"(?:{pattern})"


@functools.cache
def _rule_patterns() -> tuple[tuple[str, str, bool], ...]:
    """(name, pattern, value is the longest group) for every rule, in the order they are named."""
    from cuecard.core.engine import _rules_detect_secrets, _rules_services

    own = [(name, _scoped(p, i), False) for name, p, i in _rules_services.RULES]
    generated = [(name, _scoped(p, i), True) for _, name, p, i in _rules_detect_secrets.RULES]
    return (("private key", _PRIVATE_KEY, False), *own, *generated)


_LOOKAROUND = r"\(\?<?[=!](?:[^()\\]|\\.)*\)"
_REPEAT = r"\{(\d+)(?:,\d*)?\}"
_LOOSE_REPEAT = 4
# A negated class (``[^\s"']``, ``\S``) spans most of Unicode, and RE2 builds it byte by byte:
# ``(?s:.)`` takes at least as much and costs RE2 a tenth of it to compile.
_NEGATED = r"\[\^(?:[^\]\\]|\\.)*\]|\\S"


def _open_repeat(match: re.Match[str]) -> str:
    return f"{{{min(int(match.group(1)), _LOOSE_REPEAT)},}}"


def _loosen(pattern: str) -> str:
    """``pattern`` without its lookarounds, each negated class any character, and each counted
    repeat ``{m,n}`` left open with at most 12 at least (``{12,}``): it matches at least what
    ``pattern`` matches, and RE2 compiles it in a fraction of the time (a counted repeat is as
    many copies)."""
    loose = re.sub(_NEGATED, "(?s:.)", re.sub(_LOOKAROUND, "", pattern))
    return re.sub(_REPEAT, _open_repeat, loose)


def _re2() -> Any:
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency of core
        return None
    return re2


def _compile(pattern: str) -> Callable[[str], Iterator[Any]]:
    """``pattern``'s finditer, by RE2 when it compiles there (linear on any input), else ``re``."""
    re2 = _re2()
    if re2 is not None:
        options = re2.Options()
        options.log_errors = False
        try:
            return re2.compile(pattern, options).finditer  # type: ignore[no-any-return]
        except re2.error:
            pass
    return re.compile(pattern).finditer


@functools.cache
def _rule(index: int) -> Callable[[str], Iterator[Any]]:
    """The finditer of rule ``index`` of ``_rule_patterns()``, compiled on first use."""
    return _compile(_rule_patterns()[index][1])


@functools.cache
def _loose_parts() -> tuple[str, ...]:
    """Every rule loosened, then the labelled values and the hexadecimal run, in that order."""
    parts = [_loosen(p) for _, p, _ in _rule_patterns()]
    return (*parts, _loosen(_ASSIGNED), r"[A-Fa-f0-9]{32}")


@functools.cache
def _loose() -> Callable[[str], object]:
    """One pass for every rule when no RE2 set can be had: ``None`` means no rule can match."""
    pattern = "|".join(_loose_parts())
    re2 = _re2()
    if re2 is None:  # pragma: no cover
        return re.compile(pattern).search
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options).search  # type: ignore[no-any-return]


# What the RE2 set must find when built: an AWS access key's shape (joined here, so that no
# scanner of this file takes it for one).
_SELF_TEST = "key " + "AKIA" + "Q7MBXL2RN4TPW6YZ"


@functools.cache
def _loose_set() -> Any:
    """An RE2 set of every loosened rule: one pass says which of them match. ``None`` without
    RE2 or when the set fails its test. A set's search never gives up on a slow text (RE2 lets
    only single-pattern searches bail out); its memory is raised so that no one state can outgrow
    it."""
    re2 = _re2()
    if re2 is None:  # pragma: no cover
        return None
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    found = re2.Set.SearchSet(options)
    for part in _loose_parts():
        found.Add(part)
    found.Compile()
    if not found.Match(_SELF_TEST):  # pragma: no cover
        return None
    return found


def _candidates(text: str) -> frozenset[int] | None:
    """Which loosened rules match ``text`` (their indexes in ``_loose_parts()``): only those are
    compiled and run, and none means ``text`` holds no credential. ``None`` when only the
    one-pass pattern can be had and it matches: then every rule runs."""
    found = _loose_set()
    if found is None:  # pragma: no cover
        return None if _loose()(text) is not None else frozenset()
    return frozenset(found.Match(text) or ())


_SURROGATE = "[\ud800-\udfff]"
# The spaces Python's re takes for one and RE2 does not: each becomes a plain space, so that a
# rule run by either engine, and the one-pass test, see the same separators.
_SPACES = "\x0b\x1c\x1d\x1e\x1f\x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
_SPACES += "\u2028\u2029\u202f\u205f\u3000"
_AS_SPACE = dict.fromkeys(map(ord, _SPACES), " ")


def searchable(text: str) -> str:
    """``text`` as the rules read it, as long, with the same code point at each place except:
    a lone surrogate is U+FFFD (RE2 reads UTF-8), and a space that ``re`` takes for one and RE2
    does not (no-break, em, vertical tab…) is a plain space."""
    if text.isascii():
        if any(c in text for c in "\x0b\x1c\x1d\x1e\x1f"):
            return text.translate(_AS_SPACE)
        return text
    text = text.translate(_AS_SPACE)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub(_SURROGATE, "\ufffd", text)
    return text


def may_hold_secret(text: str) -> bool:
    """A quick test over a whole text: could any credential be in it? ``False`` is sure.

    No rule is anchored to a line, so a text of many lines joined by line breaks is tested at once:
    a credential in one line is one in the whole."""
    return _candidates(searchable(text)) != frozenset()


def _value_span(match: Any, longest_group: bool) -> tuple[int, int]:
    """Where the credential itself is in a rule's match (what is tested and redacted)."""
    groups = [i for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    if groups:
        if not longest_group:
            return match.span(groups[0])  # type: ignore[no-any-return]
        best = max(groups, key=lambda i: len(match.group(i)))
        if len(match.group(best)) >= 8:
            return match.span(best)  # type: ignore[no-any-return]
    start, end = match.span()
    text = match.string
    while start < end and text[start] in _CONTEXT:
        start += 1
    while end > start and text[end - 1] in _CONTEXT:
        end -= 1
    return start, end


def _labelled(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _assigned()(text):
        label, value = match.group("label"), match.group("value")
        if _placeholder(value) or value.lower().rstrip(".,:") in _PROSE:
            continue
        if " " in label and not (
            any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        ):
            continue
        yield f"value assigned to {label.lower()!r}", *match.span("value")


@functools.cache
def _assigned() -> Callable[[str], Iterator[Any]]:
    return re.compile(_ASSIGNED).finditer


@functools.cache
def _hex() -> re.Pattern[str]:
    return re.compile(_HEX)


def _placeholder(value: str) -> bool:
    """``_placeholders.placeholder``, imported when a value is first found."""
    from cuecard.core.engine._placeholders import placeholder

    return placeholder(value)


def _long_hex(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _hex().finditer(text):
        before = text[max(0, match.start() - 60) : match.start()]
        if len(match.group()) in (32, 40, 64, 128) and re.search(_NAMED_DIGEST, before):
            continue
        if _placeholder(match.group()):
            continue
        yield "long hexadecimal secret", *match.span()


def _findings(text: str, candidates: frozenset[int] | None) -> Iterator[tuple[str, int, int]]:
    """(rule name, start, end) of each credential in ``text``, rule by rule: the rules
    ``candidates`` names, or all."""
    rules = _rule_patterns()
    for index, (name, _, longest_group) in enumerate(rules):
        if candidates is not None and index not in candidates:
            continue
        for match in _rule(index)(text):
            start, end = _value_span(match, longest_group)
            if end > start and not _placeholder(text[start:end]):
                yield name, start, end
    if candidates is None or len(rules) in candidates:
        yield from _labelled(text)
    if candidates is None or len(rules) + 1 in candidates:
        yield from _long_hex(text)


def find_secret(text: str) -> str | None:
    """Name the rule of the first credential in ``text``, or ``None``. The value is never
    returned. Any text is taken: lone surrogates and every other code point."""
    text = searchable(text)
    candidates = _candidates(text)
    if candidates == frozenset():
        return None
    return next((name for name, _, _ in _findings(text, candidates)), None)


def redact(text: str) -> str:
    """Replace every credential in ``text`` with ``[redacted]``."""
    safe = searchable(text)
    candidates = _candidates(safe)
    if candidates == frozenset():
        return text
    spans = sorted((start, end) for _, start, end in _findings(safe, candidates))
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        text = text[:start] + "[redacted]" + text[end:]
    return text


def redact_json(value: object) -> object:
    """``value`` (parsed JSON) with every key and every string redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): redact_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    return value


_JSON_ESCAPE = r"\\u([0-9a-fA-F]{4})"


def redact_text_copy(text: str) -> str:
    """A copy of a file's text safe to keep: JSON redacted key by key, anything else as text.

    JSON that does not parse is redacted after its ``\\uXXXX`` escapes are decoded, so that an
    escaped credential is not kept either.
    """
    import json

    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return redact(re.sub(_JSON_ESCAPE, lambda m: chr(int(m.group(1), 16)), text))
    try:
        return json.dumps(redact_json(parsed), indent=2, ensure_ascii=False) + "\n"
    except RecursionError:
        return redact(re.sub(_JSON_ESCAPE, lambda m: chr(int(m.group(1), 16)), text))
