"""Request signatures: HMAC-SHA256 over ``"<timestamp>.<raw body>"`` with a shared secret.

Headers: ``X-Cuecard-Timestamp`` (Unix seconds) and ``X-Cuecard-Signature: sha256=<hex>``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from cuecard.wp_projection._errors import SignatureRefused

__all__ = [
    "MAX_SKEW_S",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "sign",
    "signed_headers",
    "verify",
]

TIMESTAMP_HEADER = "X-Cuecard-Timestamp"
SIGNATURE_HEADER = "X-Cuecard-Signature"
MAX_SKEW_S = 300


def sign(secret: bytes, timestamp: int, body: bytes) -> str:
    """The signature header value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret, str(timestamp).encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def signed_headers(secret: bytes, timestamp: int, body: bytes) -> dict[str, str]:
    """The two headers a signed request carries."""
    return {TIMESTAMP_HEADER: str(timestamp), SIGNATURE_HEADER: sign(secret, timestamp, body)}


def verify(
    secret: bytes,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float,
    max_skew: int = MAX_SKEW_S,
) -> int:
    """Check a request's signature (constant time) and timestamp window; return the timestamp."""
    raw_ts = headers.get(TIMESTAMP_HEADER.lower()) or headers.get(TIMESTAMP_HEADER)
    raw_sig = headers.get(SIGNATURE_HEADER.lower()) or headers.get(SIGNATURE_HEADER)
    if not raw_ts or not raw_sig:
        raise SignatureRefused(
            f"headers {TIMESTAMP_HEADER} and {SIGNATURE_HEADER} are required on every request"
        )
    if not raw_ts.isascii() or not raw_ts.isdigit() or len(raw_ts) > 12:
        raise SignatureRefused(f"header {TIMESTAMP_HEADER} must be Unix seconds (digits only)")
    timestamp = int(raw_ts)
    expected = sign(secret, timestamp, body)
    if not hmac.compare_digest(expected.encode("ascii"), raw_sig.strip().encode("utf-8")):
        raise SignatureRefused(f"header {SIGNATURE_HEADER} does not match the body")
    if abs(now - timestamp) > max_skew:
        raise SignatureRefused(
            f"header {TIMESTAMP_HEADER} is {int(abs(now - timestamp))} s from this clock; "
            f"at most {max_skew} s is accepted"
        )
    return timestamp
