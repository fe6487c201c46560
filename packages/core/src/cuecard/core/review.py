"""What reviewing memories needs: a person's decisions, dry runs, the health report, similarity,
the generic-advice rule.

``Decisions`` holds the rules of every decision a person makes on what waits (a candidate, a
revision, a batch, an archive request, the vault's inbox and conflicts): the review UI and the
terminal review commands both call it.

Dry runs replay the sessions' recorded events against a memory's triggers; the health report says
how the memories fare; the delivery history is every delivery recorded, rolled up by maintenance
or not; similarity finds near-duplicates. Re-exported lazily.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

# Not `from typing import ...`: importing this module must cost nothing.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.lifecycle._advice import generic_reason as generic_reason
    from cuecard.core.lifecycle._decisions import JOURNAL_FILE as JOURNAL_FILE
    from cuecard.core.lifecycle._decisions import TRANSITIONS as TRANSITIONS
    from cuecard.core.lifecycle._decisions import Decision as Decision
    from cuecard.core.lifecycle._decisions import Decisions as Decisions
    from cuecard.core.lifecycle._decisions import with_status as with_status
    from cuecard.core.lifecycle._dryrun import dry_run as dry_run
    from cuecard.core.lifecycle._dryrun import record_event as record_event
    from cuecard.core.lifecycle._dryrun import recorded_sessions as recorded_sessions
    from cuecard.core.lifecycle._health import health_report as health_report
    from cuecard.core.lifecycle._health import stale_refs as stale_refs
    from cuecard.core.lifecycle._similarity import DUPLICATE_AT as DUPLICATE_AT
    from cuecard.core.lifecycle._similarity import SimilarityIndex as SimilarityIndex
    from cuecard.core.lifecycle._similarity import jaccard as jaccard
    from cuecard.core.lifecycle._similarity import words as words
    from cuecard.core.lifecycle._telemetry import delivery_history as delivery_history

_EXPORTS: dict[str, str] = {
    "DUPLICATE_AT": "cuecard.core.lifecycle._similarity",
    "Decision": "cuecard.core.lifecycle._decisions",
    "Decisions": "cuecard.core.lifecycle._decisions",
    "JOURNAL_FILE": "cuecard.core.lifecycle._decisions",
    "TRANSITIONS": "cuecard.core.lifecycle._decisions",
    "with_status": "cuecard.core.lifecycle._decisions",
    "SimilarityIndex": "cuecard.core.lifecycle._similarity",
    "delivery_history": "cuecard.core.lifecycle._telemetry",
    "dry_run": "cuecard.core.lifecycle._dryrun",
    "generic_reason": "cuecard.core.lifecycle._advice",
    "health_report": "cuecard.core.lifecycle._health",
    "jaccard": "cuecard.core.lifecycle._similarity",
    "record_event": "cuecard.core.lifecycle._dryrun",
    "recorded_sessions": "cuecard.core.lifecycle._dryrun",
    "stale_refs": "cuecard.core.lifecycle._health",
    "words": "cuecard.core.lifecycle._similarity",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
