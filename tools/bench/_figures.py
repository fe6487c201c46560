"""How every benchmark reports a figure: the median of all its runs, their spread and the load.

BENCHMARKS.md states each figure as the median of all the runs (never the best ones), with the
range they spanned and the load average they ran at; a script's JSON gives what that needs.
"""

from __future__ import annotations

import os
import statistics
import sys
from collections.abc import Sequence


def figure(values: Sequence[float], digits: int = 3) -> dict[str, object]:
    """The median of ``values``, their spread (lowest and highest) and how many there were."""
    return {
        "median": round(statistics.median(values), digits),
        "spread": [round(min(values), digits), round(max(values), digits)],
        "runs": len(values),
    }


def load() -> list[float]:
    """The 1-, 5- and 15-minute load averages now."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, object]:
    """What the figures were measured on: cores and the Python that ran the benchmark."""
    return {"cores": os.cpu_count(), "python": sys.version.split()[0]}
