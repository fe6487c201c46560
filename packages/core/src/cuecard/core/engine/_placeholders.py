"""What sits where a credential would and is none: references, templates, documented examples,
fillers. Rules files and documentation are full of them; they are accepted, a credential is not.

The filters follow the scanners. From detect-secrets' heuristic filters: templated values
(``{x}``, ``<x>``, ``${x}``, ``{{ x }}``), values prefixed with ``$``, indirect references (a call
or a subscript: ``os.environ['KEY']``, ``getenv("KEY")``, ``process.env.KEY``), sequential strings
(``abcdef…``, ``123456…``) and its keyword plugin's false-positive words (``none``, ``null``,
``changeme``, ``redacted``…). From gitleaks' allowlists: ``%VAR%`` and ``@VAR@`` references,
runs of one character (``ghp_`` followed by 36 ``x``) and AWS's documented example keys, which
end in ``EXAMPLE`` (``AKIAIOSFODNN7EXAMPLE``). Added here: placeholder words such as
``YOUR_API_KEY``, ``your-token-here`` or ``sk-your-key-here``.
"""

from __future__ import annotations

import re

__all__ = ["placeholder"]

_REFERENCE = re.compile(
    r"^(?:\d{1,12}|\$.*|<.*>|\{.*\}|\[.*|%.*|@[A-Za-z_]+@|\*+|x+|\.+|none|null|nil|true|false"
    r"|undefined|redacted|\[redacted\]|changeme|os\.environ.*|process\.env.*|env\(.*|getenv.*"
    r"|[A-Za-z_][\w.]*(?:\(.*|\[.*|::[A-Za-z_].*))[.,;:)\]}]*$",
    re.IGNORECASE,
)
# Placeholder words. A distinctive one marks a placeholder wherever it stands between
# separators or digits (``sk-your-key-here``, ``hf_EXAMPLE``); a short one only in a value made of
# words of one case (``not_real_key``, ``some_token``), where a generated token would not be.
_DISTINCT = re.compile(
    r"(?i)(?:^|[^a-z])(?:your|here|example|placeholder|dummy|sample|replace|insert|fake"
    r"|changeme|redacted)(?:[^a-z]|$)"
)
_SHORT = re.compile(r"(?i)(?:^|[_.-])(?:my|not|some|todo|none)(?:[_.-]|$)")
_ONE_CASE_WORDS = re.compile(r"^(?:[a-z]+|[A-Z]+)(?:[_.-]+(?:[a-z]+|[A-Z]+))*$")
_RUN = re.compile(r"([A-Za-z0-9*.])\1{5,}")
# An attribute of a settings object, ``settings.SECRET_KEY``: a name, not a value.
# Each part is matched atomically: ``_`` is of both cases, and trying both for every part of
# ``_._._…!`` would take time exponential in their number.
_ATTRIBUTE = re.compile(r"^(?>[a-z_]+|[A-Z_]+)(?:\.(?>[a-z_]+|[A-Z_]+))+$")
_SEQUENCES = (
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "1234567890" * 4,
    "QWERTYUIOPASDFGHJKLZXCVBNM",
)


def _words(value: str) -> bool:
    """``YOUR_API_KEY``, ``your-token-here``, ``sk-your-key-here``, ``not_real_key``."""
    if _DISTINCT.search(value):
        return True
    return bool(_ONE_CASE_WORDS.match(value) and _SHORT.search(value))


def _run(value: str) -> bool:
    """Runs of one character fill much of it: ``ghp_xxxx…``, ``AKIAXXXXXXXXXXXXXXXX``,
    ``https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXX…``."""
    runs = [len(m.group()) for m in _RUN.finditer(value)]
    if not runs or max(runs) < 8:
        return False
    letters = sum(c.isalnum() for c in value)
    return sum(runs) * 5 >= letters * 2


def _sequential(value: str) -> bool:
    """``abcdefgh``, ``12345678``, ``0123456789abcdef``: typed, not generated."""
    plain = re.sub(r"[^A-Za-z0-9]", "", value).upper()
    return len(plain) >= 6 and plain == value.upper() and any(plain in s for s in _SEQUENCES)


def placeholder(value: str) -> bool:
    """Is ``value``, found where a credential would be, a placeholder rather than one?"""
    return bool(
        _REFERENCE.match(value)
        or _ATTRIBUTE.match(value)
        or "EXAMPLE" in value
        or _words(value)
        or _run(value)
        or _sequential(value)
    )
