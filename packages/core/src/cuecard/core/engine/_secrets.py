"""Credential detection and redaction: every write refuses secrets, every output redacts them.

Standard library only (RE2 is used when installed for the one-pass prefilter). Kept apart from
``_text`` so that the hook's hot path, which only neutralises and wraps, never compiles these;
``_text`` calls in here, never the other way round.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

__all__ = [
    "find_secret",
    "may_hold_secret",
    "re2_search",
    "redact",
    "redact_json",
    "redact_text_copy",
]

# Credential shapes, each with the name a refusal gives it (never the value).
_SECRET_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)"
        ),
    ),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("Slack token", re.compile(r"\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})")),
    ("API key (sk-)", re.compile(r"\bsk-[A-Za-z0-9_-]{12,}")),
    ("Stripe key", re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (
        "JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    (
        "bearer token",
        re.compile(
            r"\bBearer\s+(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20,}=*", re.IGNORECASE
        ),
    ),
    (
        "URL with a password",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s]+", re.IGNORECASE),
    ),
)

# `password = value` and its kin. The label may end a longer name (``DB_PASSWORD``) but not run on
# (``tokens``, ``api_key_id``); the value must look like a credential, not a number or a reference.
# Its words may be joined by ``_``, ``-`` or one space (``api key: …``), as people write them.
_LABEL = (
    r"(?:password|passwd|pwd|secret|token|api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key"
    r"|client[ _-]?secret|secret[ _-]?key|auth[ _-]?token|access[ _-]?token|refresh[ _-]?token)"
)
_ASSIGNED = re.compile(
    rf"(?<![A-Za-z0-9])(?P<label>{_LABEL})(?![A-Za-z0-9_-])(?P<sep>[\"']?\s*(?::=|=|:)\s*)"
    r"(?P<quote>[\"']?)(?P<value>[^\s\"',;]{6,})",
    re.IGNORECASE,
)
# Values that are not credentials. The rules follow Yelp's detect-secrets (its heuristic filters
# and its keyword plugin's false positives), narrowed to what one assigned value can show:
# - templated values ``{x}``, ``<x>``, ``${x}`` and ``$x`` (is_templated_secret,
#   is_prefixed_with_dollar_sign), and ``%x``/``[x`` references;
# - indirect references, a call or a subscript (is_indirect_reference): ``get_key()``,
#   ``os.environ[...]``, ``process.env.X``, ``getenv(...)``;
# - sequential strings (is_sequential_string): ``abcdef…``, ``123456…``, ``xxxx``, ``****``;
# - its false-positive words: ``none``, ``null``, ``true``, ``false``, ``undefined``,
#   ``redacted``, ``changeme``, and values made of placeholder words (``dummy_value``,
#   ``not_real_key``, ``some_key``, ``replace…``, ``todo``);
# - added here for documentation and rules files: ``your_…_here`` placeholders. A placeholder is
#   letters of one case and separators only, holding a placeholder word (``your``, ``here``,
#   ``example``, ``placeholder``, ``dummy``, ``sample``, ``replace``, ``insert``, ``fake``,
#   ``todo``); a real credential mixes in digits or cases.
# Not taken from detect-secrets: its UUID filter (many services issue UUID tokens) and its
# ``id`` prefix filter (a label here is a credential's name, never an identifier's).
_NOT_A_VALUE = re.compile(
    r"^(?:\d+|\$.*|<.*>|\{.*\}|\[.*|%.*|\*+|x+|none|null|nil|true|false|undefined|"
    r"os\.environ.*|process\.env.*|env\(.*|getenv.*|redacted|\[redacted\]|changeme|"
    r"[A-Za-z_][\w.]*(?:\(.*|\[.*)|abcdefg?h?i?j?k?l?m?n?o?p?|0?123456789?0?)$",
    re.IGNORECASE,
)
_PLACEHOLDER_WORD = re.compile(
    r"(?:^|[_.-])(?:your|my|here|example|placeholder|dummy|sample|replace|insert|fake|todo|not"
    r"|some)(?:[_.-]|$)",
    re.IGNORECASE,
)
_ONE_CASE_WORDS = re.compile(r"^(?:[a-z]+|[A-Z]+)(?:[_.-]+(?:[a-z]+|[A-Z]+))*$")


def _placeholder(value: str) -> bool:
    """``your_client_secret_here``, ``YOUR-API-KEY``, ``dummy_value``: words, not a credential."""
    return bool(_ONE_CASE_WORDS.match(value) and _PLACEHOLDER_WORD.search(value))


def _credential_value(label: str, value: str) -> bool:
    if _NOT_A_VALUE.match(value) or _placeholder(value):
        return False
    if " " in label:  # prose says "API key: rotated monthly"; a spaced label needs a key's shape
        return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return True


# One pass over a whole record finds nothing in the common case; only a hit pays for the
# per-field walk that names the field.
_PREFILTER = re.compile(
    "|".join(
        f"(?i:{p.pattern})" if p.flags & re.IGNORECASE else f"(?:{p.pattern})"
        for _, p in (*_SECRET_SHAPES, ("", _ASSIGNED))
    )
)


def _assignment_values(text: str) -> list[re.Match[str]]:
    return [
        m for m in _ASSIGNED.finditer(text) if _credential_value(m.group("label"), m.group("value"))
    ]


# A looser form of every shape, without lookarounds, for RE2: one linear pass over a whole record
# (its plain text or its JSON text: quotes may come escaped). A hit sends the text through the
# precise patterns above; no hit means nothing to find.
_LOOSE = "|".join(
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
        r"\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}",
        r"\bglpat-[A-Za-z0-9_-]{20,}",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
        r"\bsk-[A-Za-z0-9_-]{12,}|\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        r"\bAIza[0-9A-Za-z_-]{35}|\bnpm_[A-Za-z0-9]{36}|\beyJ[A-Za-z0-9_-]{10,}\.eyJ",
        r"(?i:\bbearer\s+[A-Za-z0-9._~+/-]{20,})",
        r"(?i:[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@)",
        rf"(?i:{_LABEL}[\\\"']*\s*(?::=|=|:)\s*[\\\"']*[^\s\"',;]{{6,}})",
    )
)


def re2_search(pattern: str, fallback: re.Pattern[str]) -> Callable[[str], object]:
    """``pattern``'s search by RE2 when installed (a tenth of the time over long text), else
    ``fallback``'s (the same pattern compiled by ``re``)."""
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency of core
        return fallback.search
    options = re2.Options()
    options.log_errors = False
    return re2.compile(pattern, options).search  # type: ignore[no-any-return]


@functools.cache
def _loose() -> Callable[[str], object]:
    return re2_search(_LOOSE, _PREFILTER)


def may_hold_secret(text: str) -> bool:
    """A quick test over a whole text: could any credential shape be in it? ``False`` is sure."""
    return _loose()(text) is not None


def find_secret(text: str) -> str | None:
    """Name the first credential shape in ``text``, or ``None``. The value is never returned."""
    if _loose()(text) is None:
        return None
    for name, pattern in _SECRET_SHAPES:
        if pattern.search(text):
            return name
    match = next(iter(_assignment_values(text)), None)
    if match is not None:
        return f"value assigned to {match.group('label')!r}"
    return None


def redact(text: str) -> str:
    """Replace every credential-shaped value in ``text`` with ``[redacted]``."""
    if _loose()(text) is None:
        return text
    for _, pattern in _SECRET_SHAPES:
        text = pattern.sub("[redacted]", text)
    for match in reversed(_assignment_values(text)):
        start, end = match.span("value")
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


_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def redact_text_copy(text: str) -> str:
    """A copy of a file's text safe to keep: JSON redacted key by key, anything else as text.

    JSON that does not parse is redacted after its ``\\uXXXX`` escapes are decoded, so that an
    escaped credential is not kept either.
    """
    import json

    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return redact(_JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text))
    try:
        return json.dumps(redact_json(parsed), indent=2, ensure_ascii=False) + "\n"
    except RecursionError:
        return redact(_JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text))
