"""A memory's use, read from the delivery ledger: fires by dimension, last deliveries, days.

Pure functions over the ledger's lines (``.cuecard/local/ledger.jsonl``: one line per delivery
with ``ids`` as ``[key, dimension]`` pairs; check reports have keys starting with ``check:``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["Delivery", "Usage", "deliveries_per_day", "fires_by_dimension", "usage"]


@dataclass(frozen=True)
class Delivery:
    """One delivery of one memory."""

    t: float
    session: str
    event: str
    dimension: str

    @property
    def when(self) -> str:
        return datetime.fromtimestamp(self.t, UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Usage:
    """How one memory was used."""

    fires: dict[str, int] = field(default_factory=dict)
    """Deliveries by the dimension that matched (``paths``, ``commands``…)."""
    last: list[Delivery] = field(default_factory=list)
    """The most recent deliveries, newest first."""

    @property
    def total(self) -> int:
        return sum(self.fires.values())


def _deliveries(ledger: list[dict[str, Any]]) -> list[tuple[str, Delivery]]:
    out = []
    for line in ledger:
        ids = line.get("ids")
        t = line.get("t")
        if not isinstance(ids, list) or not isinstance(t, int | float):
            continue
        for pair in ids:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                continue
            key, dimension = pair
            if key.startswith("check:"):
                continue
            out.append(
                (
                    key,
                    Delivery(
                        float(t),
                        str(line.get("session", "")),
                        str(line.get("event", "")),
                        str(dimension),
                    ),
                )
            )
    return out


def usage(ledger: list[dict[str, Any]], memory_id: str, *, last: int = 10) -> Usage:
    """One memory's fires by dimension and its last deliveries."""
    result = Usage()
    mine = [d for key, d in _deliveries(ledger) if key == memory_id]
    result.fires = dict(Counter(d.dimension for d in mine).most_common())
    result.last = sorted(mine, key=lambda d: -d.t)[:last]
    return result


def fires_by_dimension(ledger: list[dict[str, Any]]) -> dict[str, int]:
    """Deliveries of every memory by the dimension that fired them."""
    return dict(Counter(d.dimension for _key, d in _deliveries(ledger)).most_common())


def deliveries_per_day(ledger: list[dict[str, Any]], *, days: int = 14) -> list[tuple[str, int]]:
    """Memories delivered per UTC day, for the last ``days`` days that had any."""
    counts = Counter(
        datetime.fromtimestamp(d.t, UTC).strftime("%Y-%m-%d") for _key, d in _deliveries(ledger)
    )
    return sorted(counts.items())[-days:]
