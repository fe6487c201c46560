"""What is projected, from which site and sequence, what is waiting, what was preserved."""

from __future__ import annotations

from typing import Any

from cuecard.wp_projection._manifest import MANIFEST_NAME, Manifest
from cuecard.wp_projection._queue import (
    QUEUE_NAME,
    queue_counts,
    recent_refusals,
    retrying_events,
)
from cuecard.wp_projection._safefs import SafeRoot
from cuecard.wp_projection._wiring import RUNTIMES

__all__ = ["STATUS_KEYS", "status_report"]

STATUS_KEYS = (
    "managed",
    "preserved",
    "projected",
    "queue",
    "refused",
    "refused_events",
    "retrying",
    "root",
    "sites",
    "wired",
)


def status_report(
    root: SafeRoot,
    counts: dict[str, int] | None = None,
    manifest: Manifest | None = None,
    refusals: list[dict[str, Any]] | None = None,
    retrying: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One JSON-ready object with the keys ``STATUS_KEYS``.

    ``refused`` lists records the projector would not write; ``refused_events`` the requests the
    receiver answered with a refusal (status, reason, and what a signed envelope named), and the
    events it accepted but gave up applying after its attempts (status 0, ``stage`` ``apply``);
    ``retrying`` the events waiting for another attempt (attempts, next attempt, last error).
    """
    if manifest is None:
        raw = root.read(MANIFEST_NAME)
        manifest = Manifest() if raw is None else Manifest.loads(raw)
    if counts is None or refusals is None or retrying is None:
        queue = root.existing_database(QUEUE_NAME)
        counts = queue_counts(queue) if counts is None else counts
        refusals = recent_refusals(queue) if refusals is None else refusals
        retrying = retrying_events(queue) if retrying is None else retrying
    projected = [
        {
            "path": f"{root.managed}/{path}",
            "site": r.site,
            "layer": r.layer,
            "seq": r.seq,
            "hash": r.hash,
            "source": r.source,
            "projected_at": r.projected_at,
        }
        for path, r in sorted(manifest.records.items())
        if not r.deleted and r.hash is not None
    ]
    return {
        "root": str(root.root),
        "managed": root.managed,
        "sites": {k: dict(vars(v)) for k, v in sorted(manifest.sites.items())},
        "projected": projected,
        "queue": counts,
        "preserved": {
            f"{root.managed}/{k}": {
                **vars(v),
                "incoming": f"{root.managed}/{v.incoming}" if v.incoming else None,
            }
            for k, v in sorted(manifest.preserved.items())
        },
        "refused": manifest.refused[-20:],
        "refused_events": refusals,
        "retrying": retrying,
        "wired": sorted(k for k in manifest.wired if k in RUNTIMES),
    }
