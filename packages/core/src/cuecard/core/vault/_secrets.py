"""The vault's credential rules: the store's detector plus what the other vault system refuses.

``find_secret`` (the store's detector) names credential shapes: private keys, bearer tokens,
JWTs, GitHub, GitLab, Slack, AWS, Stripe, Google and npm keys, URLs with a password, and long
values assigned to secret-like names. The vault adds the other system's rules, so nothing it
refused gets in here: a short value after ``password:``, ``secret=``, ``token:``, ``api_key:``
(but not ``tokens: 5`` nor ``max_token=5``, nor a number, an ``$ENV`` reference or a
``<placeholder>``), and a long hexadecimal string, unless it is a commit id or a digest named as
such (``commit 3f2a…``, ``sha256 …``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from cuecard.core.engine._secrets import may_hold_secret, re2_search
from cuecard.core.engine._text import find_secret, redact

__all__ = ["find_credential", "may_hold_credential", "redact_credentials"]

_LABELLED = re.compile(
    r"(?i)(?P<label>api[_-]?key|access[_-]?token|auth[_-]?token|secret|password|passwd"
    r"|(?<![A-Za-z_])token)\s*[:=]\s*[\"'`]?(?P<value>[^\s\"'`,;]+)"
)
_NOT_A_VALUE = re.compile(
    r"^(?:\d{1,12}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\{\{.*\}\}|%[A-Za-z_]+%?|\*+|x+"
    r"|none|null|nil|true|false|undefined|redacted|\[redacted\]|changeme)[.,;:)]*$",
    re.IGNORECASE,
)
_HEX = re.compile(r"(?<![A-Za-z0-9])[A-Fa-f0-9]{32,}(?![A-Za-z0-9])")
_NAMED_DIGEST = re.compile(
    r"(?i)\b(?:commit|commits|sha|sha-?1|sha-?256|sha-?512|revision|rev|hash|digest|checksum"
    r"|md5|git|tree|blob|object|cherry-pick(?:ed)?|revert(?:ed)?|merged?)\b[\s:=#`'\"(]*"
    r"(?:[A-Fa-f0-9]{7,}[\s,`'\")]*(?:and|or|,)?\s*)*$"
)


# Every label ``_LABELLED`` knows holds one of these: an ASCII text holding none (in any case)
# has no labelled value. (Not so beyond ASCII: ignoring case, "ſ" matches "s" and "K" "k".)
_LABEL_HINTS = ("api", "token", "secret", "passw")


def _labelled(text: str) -> list[re.Match[str]]:
    if text.isascii():
        lowered = text.lower()
        if not any(hint in lowered for hint in _LABEL_HINTS):
            return []
    return [m for m in _LABELLED.finditer(text) if not _NOT_A_VALUE.match(m.group("value"))]


def _hex_secrets(text: str) -> list[re.Match[str]]:
    found = []
    for match in _HEX.finditer(text):
        before = text[max(0, match.start() - 60) : match.start()]
        if len(match.group()) in (32, 40, 64, 128) and _NAMED_DIGEST.search(before):
            continue
        found.append(match)
    return found


def may_hold_credential(text: str) -> bool:
    """Could ``redact_credentials`` change some line of ``text`` (a piece between line breaks)?
    ``False`` is sure, so many strings joined by line breaks are tested at once.

    The credential shapes and the long hexadecimal strings are looked for in the whole text: a
    match in a line is one in the whole, since those patterns hold no anchors, and their
    lookarounds and word boundaries see a line break at a line's edge as they see the text's
    start or end (it is neither a word character nor one a credential is made of). Labelled
    values are looked for in each line naming a label."""
    return may_hold_secret(text) or _hex_run(text) or _labelled_line(text)


def _hex_run(text: str) -> bool:
    """Does ``text`` hold the hexadecimal run every ``_HEX`` match is?"""
    return _hex_search()(text) is not None


_HEX_RUN = re.compile(r"[A-Fa-f0-9]{32}")


@functools.cache
def _hex_search() -> Callable[[str], object]:
    """``_HEX_RUN``'s search, by RE2 when installed."""
    return re2_search(_HEX_RUN.pattern, _HEX_RUN)


def _labelled_line(text: str) -> bool:
    """Does some line of ``text`` hold a ``_LABELLED`` match?"""
    if not text.isascii():  # (a match in a line is one in the whole, as above)
        return _LABELLED.search(text) is not None
    lowered = text.lower()
    for hint in _LABEL_HINTS:
        at = lowered.find(hint)
        while at >= 0:
            end = lowered.find("\n", at)
            end = len(text) if end < 0 else end
            if _LABELLED.search(text[lowered.rfind("\n", 0, at) + 1 : end]):
                return True
            at = lowered.find(hint, end)
    return False


def find_credential(text: str) -> str | None:
    """Name the first credential shape in ``text`` (never the value), or ``None``."""
    named = find_secret(text)
    if named is not None:
        return named
    labelled = _labelled(text)
    if labelled:
        return f"value after {labelled[0].group('label')!r}"
    if _hex_secrets(text):
        return "long hexadecimal secret"
    return None


def redact_credentials(text: str) -> str:
    """``redact`` plus the vault's own rules: every value found is ``[redacted]``."""
    text = redact(text)
    spans = [m.span("value") for m in _labelled(text) if m.group("value") != "[redacted]"]
    spans += [m.span() for m in _hex_secrets(text)]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "[redacted]" + text[end:]
    return text
