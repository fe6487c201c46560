"""The event envelope ``dm-memory-projection/v1`` that the bridge posts: parse and check.

Pure functions over values: the receiver passes the parsed JSON, gets an ``Envelope`` or an
``EnvelopeRefused`` that names the key and the rule.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from cuecard.wp_projection._errors import EnvelopeRefused, PathRefused
from cuecard.wp_projection._paths import check_identity

__all__ = ["EVENT_TYPES", "SCHEMA", "Envelope", "parse_envelope"]

SCHEMA = "dm-memory-projection/v1"
EVENT_TYPES = ("memory.updated", "memory.deleted", "guideline.updated", "composable.regenerated")
_HEX40 = re.compile(r"[0-9a-f]{40}")
_URL = re.compile(r"https?://[^\s/$.?#][^\s]*", re.IGNORECASE)


@dataclass(frozen=True)
class Envelope:
    """One checked event from the bridge."""

    event_id: str
    """UUID issued by the bridge; delivery is at-least-once, so it is deduplicated."""
    seq: int
    """Per-site monotonic sequence number issued by the bridge."""
    type: str
    """One of ``EVENT_TYPES``."""
    home_url: str
    """The site's home URL (its workspace id), untrailingslashed."""
    blog_id: int
    """The site's blog id (1 on a single site)."""
    emitted_at: str
    """When the bridge built the envelope (RFC 3339)."""
    layer: str | None = None
    """The scope's layer, for memory and composable events."""
    user_id: int = 0
    """The scope's effective user id."""
    agent_id: int = 0
    """The scope's agent id (0 means: resolved from the user)."""
    agent_slug: str | None = None
    """The agent slug the bridge resolved, if any."""
    agent_dir: str | None = None
    """The agent's folder name in Data Machine's disk store (its slug, with the suffix Data
    Machine adds for a non-default instance), when the bridge could ask for it."""
    filename: str | None = None
    """The record's relative filename inside its layer."""
    content: bytes | None = None
    """The whole file after the write (decoded); ``None`` when the bridge left it out (too
    large, or unreadable), which makes the event a hint to pull."""
    sha1: str | None = None
    """SHA-1 hex of ``content``, verified."""
    post_id: int | None = None
    """The guideline post id, for ``guideline.updated``."""
    guideline_type: str | None = None
    """The guideline type, for ``guideline.updated``."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Data Machine's metadata array, passed through."""


def _require(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise EnvelopeRefused(f"{where}{key}: must be {names}, got {type(value).__name__}")
    return value


def _content(data: dict[str, Any]) -> tuple[bytes, str]:
    raw = _require(data, "content", str)
    encoding = data.get("content_encoding", "utf-8")
    if encoding == "utf-8":
        try:
            content = raw.encode("utf-8")
        except UnicodeEncodeError:
            raise EnvelopeRefused("content: holds a lone surrogate; send it as base64") from None
    elif encoding == "base64":
        try:
            content = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise EnvelopeRefused(
                "content: is not valid base64 (content_encoding base64)"
            ) from None
    else:
        raise EnvelopeRefused(f"content_encoding: must be utf-8 or base64, got {encoding!r}")
    digest = _require(data, "hash", str)
    size = _require(data, "bytes", int)
    if not _HEX40.fullmatch(digest):
        raise EnvelopeRefused("hash: must be 40 lowercase hex digits (SHA-1)")
    actual = hashlib.sha1(content).hexdigest()  # noqa: S324 - Data Machine's own content hash
    if actual != digest or len(content) != size:
        raise EnvelopeRefused(
            f"hash: content has sha1 {actual} and {len(content)} bytes, the envelope says "
            f"{digest} and {size} (the event is discarded; a pull repairs it)"
        )
    return content, digest


def parse_envelope(data: object) -> Envelope:
    """Check a decoded JSON value against the schema and return the envelope."""
    if not isinstance(data, dict):
        raise EnvelopeRefused("envelope: must be a JSON object")
    if data.get("schema") != SCHEMA:
        raise EnvelopeRefused(f"schema: must be {SCHEMA!r}, got {data.get('schema')!r}")
    event_id = _require(data, "event_id", str)
    try:
        event_uuid = uuid.UUID(event_id)
    except ValueError:
        raise EnvelopeRefused(f"event_id: {event_id[:60]!r} is not a UUID") from None
    seq = _require(data, "seq", int)
    if seq < 1:
        raise EnvelopeRefused(f"seq: must be a positive integer, got {seq}")
    kind = _require(data, "type", str)
    if kind not in EVENT_TYPES:
        raise EnvelopeRefused(f"type: must be one of {', '.join(EVENT_TYPES)}, got {kind!r}")
    site = _require(data, "site", dict)
    home_url = _require(site, "home_url", str, "site.").strip().rstrip("/")
    if not _URL.fullmatch(home_url) or len(home_url) > 2048:
        raise EnvelopeRefused("site.home_url: must be an http(s) URL")
    blog_id = site.get("blog_id", 1)
    if isinstance(blog_id, bool) or not isinstance(blog_id, int):
        raise EnvelopeRefused("site.blog_id: must be int")
    emitted_at = data.get("emitted_at", "")
    if not isinstance(emitted_at, str):
        raise EnvelopeRefused("emitted_at: must be str")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise EnvelopeRefused("metadata: must be an object")
    base: dict[str, Any] = {
        "event_id": str(event_uuid),
        "seq": seq,
        "type": kind,
        "home_url": home_url,
        "blog_id": blog_id,
        "emitted_at": emitted_at,
        "metadata": metadata,
    }
    if kind == "guideline.updated":
        base["post_id"] = _require(data, "post_id", int)
        base["guideline_type"] = _require(data, "guideline_type", str)[:100]
        return Envelope(**base)
    scope = _require(data, "scope", dict)
    layer = _require(scope, "layer", str, "scope.")
    user_id = scope.get("user_id", 0)
    agent_id = scope.get("agent_id", 0)
    slug = scope.get("agent_slug")
    folder = scope.get("agent_dir")
    try:
        check_identity(layer, user_id, agent_id, slug, folder)
    except PathRefused as exc:
        raise EnvelopeRefused(str(exc)) from None
    filename = _require(scope, "filename", str, "scope.")
    base.update(layer=layer, user_id=user_id, agent_id=agent_id, agent_slug=slug, agent_dir=folder)
    base["filename"] = filename
    if "content" in data and kind in ("memory.updated", "composable.regenerated"):
        base["content"], base["sha1"] = _content(data)
    return Envelope(**base)
