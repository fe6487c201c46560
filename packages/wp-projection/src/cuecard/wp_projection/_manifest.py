"""The ownership manifest ``<managed>/.manifest.json``.

It names every file the projection owns with the hash it last wrote, the per-record sequence,
tombstones, per-site sequence state, preserved local edits and the runtime wiring. Only paths
listed here are ever replaced or deleted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cuecard.wp_projection._errors import ProjectionError

__all__ = ["MANIFEST_NAME", "SENTINEL", "Manifest", "Preserved", "Record", "SiteState"]

MANIFEST_NAME = ".manifest.json"
SENTINEL = "cuecard-wp-projection"
SCHEMA_VERSION = 2
"""2 added ``agent_dir`` to records and ``bridge``, ``stale_agents`` to sites. Schema 1 is read
(those fields take their defaults) and written back as 2 at the next save; a later schema is
refused untouched, since a reader that dropped its fields would lose them at its next save."""
MAX_REFUSED = 100


@dataclass(frozen=True)
class Record:
    """One projected record, keyed by its path under the managed folder."""

    site: str
    layer: str
    user_id: int
    agent_id: int
    agent_slug: str | None
    filename: str
    hash: str | None
    """SHA-1 of the bytes last written (``None`` for a tombstone of a never-owned file)."""
    bytes: int
    seq: int | None
    """The last push sequence applied to this record (``None`` if only pulled)."""
    projected_at: str
    source: str
    """``push`` or ``pull``: where the last applied version came from."""
    deleted: bool = False
    """A tombstone: Data Machine deleted the record."""
    agent_dir: str | None = None
    """The agent's folder name in Data Machine's store, when the bridge sent it."""


@dataclass(frozen=True)
class Preserved:
    """A local edit kept in place; the incoming version waits beside it."""

    incoming: str | None
    reason: str
    hash: str | None
    seq: int | None
    at: str


@dataclass
class SiteState:
    """What the receiver knows of one site."""

    home_url: str
    last_seq: int | None = None
    last_event_at: str | None = None
    last_sync_at: str | None = None
    reconcile_needed: bool = False
    reconcile_reason: str | None = None
    bridge: dict[str, Any] | None = None
    """The WordPress side as the last pull found it: ``fetched_at`` and the bridge's ``queue``
    (waiting, oldest, last_error, set_aside), or ``error`` when the bridge could not be asked."""
    stale_agents: list[dict[str, Any]] = field(default_factory=list)
    """Agent folders the last pull found Data Machine no longer has (renamed or removed): folder,
    found_at, and the locally edited files kept in it (``kept``)."""


@dataclass
class Manifest:
    records: dict[str, Record] = field(default_factory=dict)
    sites: dict[str, SiteState] = field(default_factory=dict)
    preserved: dict[str, Preserved] = field(default_factory=dict)
    refused: list[dict[str, Any]] = field(default_factory=list)
    wired: dict[str, list[str]] = field(default_factory=dict)

    def live_paths(self) -> list[str]:
        return sorted(p for p, r in self.records.items() if not r.deleted and r.hash is not None)

    def note_refused(self, entry: dict[str, Any]) -> None:
        self.refused.append(entry)
        del self.refused[:-MAX_REFUSED]

    def copy(self) -> Manifest:
        """A copy whose dicts can change without touching this one (records are frozen)."""
        return Manifest(
            records=dict(self.records),
            sites={
                k: SiteState(**{**vars(v), "stale_agents": list(v.stale_agents)})
                for k, v in self.sites.items()
            },
            preserved=dict(self.preserved),
            refused=list(self.refused),
            wired={k: list(v) for k, v in self.wired.items()},
        )

    def dumps(self, cache: dict[str, tuple[Record, str]] | None = None) -> bytes:
        """The manifest as JSON; ``cache`` keeps each unchanged record's text between calls."""
        cache = {} if cache is None else cache
        parts = []
        for path in sorted(self.records):
            record = self.records[path]
            hit = cache.get(path)
            if hit is None or hit[0] is not record:
                text = json.dumps(path) + ": " + json.dumps(vars(record), sort_keys=True)
                hit = cache[path] = (record, text)
            parts.append(hit[1])
        for path in [p for p in cache if p not in self.records]:
            del cache[path]
        head = {
            "sentinel": SENTINEL,
            "schema": SCHEMA_VERSION,
            "sites": {k: vars(v) for k, v in sorted(self.sites.items())},
            "preserved": {k: vars(v) for k, v in sorted(self.preserved.items())},
            "refused": self.refused,
            "wired": self.wired,
        }
        text = json.dumps(head, sort_keys=True)[:-1]
        return (text + ', "records": {\n' + ",\n".join(parts) + "\n}}\n").encode("utf-8")

    @classmethod
    def loads(cls, raw: bytes, *, where: str = MANIFEST_NAME) -> Manifest:
        try:
            value = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProjectionError(f"{where}: not valid JSON ({exc}); move it aside") from None
        if not isinstance(value, dict) or value.get("sentinel") != SENTINEL:
            raise ProjectionError(f"{where}: sentinel must be {SENTINEL!r}; it is not our manifest")
        schema = value.get("schema")
        if type(schema) is int and schema > SCHEMA_VERSION:
            raise ProjectionError(
                f"{where}: written by a newer cuecard-wp-projection (manifest schema {schema}; "
                f"this version reads schemas 1 to {SCHEMA_VERSION}); upgrade cuecard-wp-projection "
                "to use this projection (the manifest is left as it is)"
            )
        if type(schema) is not int or schema not in (1, SCHEMA_VERSION):
            raise ProjectionError(f"{where}: schema {schema!r} is not supported")
        try:
            return cls(
                records={k: Record(**v) for k, v in value.get("records", {}).items()},
                sites={k: SiteState(**v) for k, v in value.get("sites", {}).items()},
                preserved={k: Preserved(**v) for k, v in value.get("preserved", {}).items()},
                refused=list(value.get("refused", [])),
                wired={k: list(v) for k, v in value.get("wired", {}).items()},
            )
        except TypeError as exc:
            raise ProjectionError(f"{where}: a field breaks the schema ({exc})") from None
