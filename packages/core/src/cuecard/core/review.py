"""What reviewing memories needs: dry runs, the health report, similarity, the generic-advice rule.

Dry runs replay the sessions' recorded events against a memory's triggers; the health report says
how the memories fare; the delivery history is every delivery recorded, rolled up by maintenance
or not; similarity finds near-duplicates. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core._advice import generic_reason as generic_reason
    from cuecard.core._dryrun import dry_run as dry_run
    from cuecard.core._dryrun import record_event as record_event
    from cuecard.core._dryrun import recorded_sessions as recorded_sessions
    from cuecard.core._health import health_report as health_report
    from cuecard.core._health import stale_refs as stale_refs
    from cuecard.core._similarity import DUPLICATE_AT as DUPLICATE_AT
    from cuecard.core._similarity import SimilarityIndex as SimilarityIndex
    from cuecard.core._similarity import jaccard as jaccard
    from cuecard.core._similarity import words as words
    from cuecard.core._telemetry import delivery_history as delivery_history

_EXPORTS: dict[str, str] = {
    "DUPLICATE_AT": "cuecard.core._similarity",
    "SimilarityIndex": "cuecard.core._similarity",
    "delivery_history": "cuecard.core._telemetry",
    "dry_run": "cuecard.core._dryrun",
    "generic_reason": "cuecard.core._advice",
    "health_report": "cuecard.core._health",
    "jaccard": "cuecard.core._similarity",
    "record_event": "cuecard.core._dryrun",
    "recorded_sessions": "cuecard.core._dryrun",
    "stale_refs": "cuecard.core._health",
    "words": "cuecard.core._similarity",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
