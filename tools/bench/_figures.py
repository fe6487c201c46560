"""How every benchmark reports a figure: the median of all its runs, their spread and the load.

BENCHMARKS.md states each figure as the median of all the runs (never the best ones), with the
range they spanned, the load average they ran at and the condition they were measured under
(cuecard from the built wheels or editable sources, which revision, the machine); a script's
JSON gives what that needs: ``figures`` (through ``figure``), the load at its start and end
(``load``), ``machine`` and ``condition``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Where scripts/wheel-venv records the revision its wheels were built from, in the environment.
REVISION_FILE = "cuecard-revision"
# Where the interpreter finds cuecard's core, without importing it, and its environment's prefix.
_PROBE = (
    "import importlib.util, sys\n"
    "spec = importlib.util.find_spec('cuecard.core')\n"
    "print(spec.origin if spec else ''); print(sys.prefix)"
)


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


def revision(folder: Path) -> str | None:
    """The git revision checked out at ``folder`` (``+changes`` when its work tree differs from
    it), or None outside a repository."""
    head = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
    )
    if head.returncode != 0:
        return None
    clean = subprocess.run(
        ["git", "-C", str(folder), "diff", "--quiet", "HEAD", "--"], capture_output=True
    )
    return head.stdout.strip() + ("" if clean.returncode == 0 else "+changes")


def condition(python: str | None = None, env: Mapping[str, str] | None = None) -> dict[str, object]:
    """How the cuecard that ``python`` (this interpreter by default) imports is installed:
    ``wheels`` (from site-packages, with the revision scripts/wheel-venv recorded, None when it
    recorded none) or ``editable`` (a checkout's sources, with that checkout's revision)."""
    done = subprocess.run(
        [python or sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=None if env is None else dict(env),
    )
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) < 2 or not lines[0]:
        return {"installed": None, "revision": None}
    module, prefix = Path(lines[0]), Path(lines[1])
    if "site-packages" in module.parts:
        recorded = prefix / REVISION_FILE
        known = recorded.read_text(encoding="utf-8").strip() if recorded.is_file() else None
        return {"installed": "wheels", "revision": known or None}
    return {"installed": "editable", "revision": revision(module.parent)}
