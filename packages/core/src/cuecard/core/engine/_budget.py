"""What matching one event may cost, whatever the memories and the payload hold. Stdlib only.

A path longer than the system's ``PATH_MAX`` is not matched at all: no file can have it, and
the keys and globs of a path of a million characters would cost seconds. The globs the index's
string tests cannot answer go to the matcher (``_wildmatch``), and share ``MATCH_BUDGET`` steps
per event; what is left out is counted, and ``Budget.reason`` says it for the session's ledger.
This module is imported by every event; the matcher only when a glob needs it.
"""

from __future__ import annotations

from cuecard.core.engine._path_limit import path_max, path_too_long

__all__ = ["MATCH_BUDGET", "Budget"]

MATCH_BUDGET = 200_000
"""Matcher steps one event may spend on globs the string tests cannot answer: a path character
costs one, compiling a glob two per glob character. About 0.1 s of the worst globs (0.5 µs a
step, 130 µs to compile a 200-character glob), a thousand such globs against a 200-character
path; an ordinary event spends a few hundred."""


class Budget:
    """What one event may spend on globs. ``paths`` drops (and counts) the paths longer than
    ``PATH_MAX``; ``match`` answers ``None`` once ``steps`` are spent, and counts what it could
    not answer; ``reason`` says both, for the ledger."""

    __slots__ = ("_answers", "left", "long_paths", "unanswered")

    def __init__(self, steps: int = MATCH_BUDGET) -> None:
        self.left = steps
        self.unanswered = 0
        self.long_paths: set[str] = set()
        self._answers: dict[tuple[str, str, bool], bool] = {}

    def paths(self, paths: tuple[str, ...]) -> tuple[str, ...]:
        """``paths`` without those longer than ``PATH_MAX``, which are never matched."""
        if not any(path_too_long(p) for p in paths):
            return paths
        kept = []
        for path in paths:
            if path_too_long(path):
                self.long_paths.add(path)
            else:
                kept.append(path)
        return tuple(kept)

    def match(self, glob: str, path: str, folder: bool = False) -> bool | None:
        """``_wildmatch.glob_matches(glob, path, folder)``, or ``None`` when the budget is
        spent or the path is longer than ``PATH_MAX``."""
        key = (glob, path, folder)
        found = self._answers.get(key)
        if found is not None:
            return found
        if path_too_long(path):
            self.long_paths.add(path)
            return None
        from cuecard.core.engine._wildmatch import compiled, glob_matches

        cost = len(path) + (0 if compiled(glob) else 2 * len(glob))
        if cost > self.left:
            self.left = 0
            self.unanswered += 1
            return None
        self.left -= cost
        found = self._answers[key] = glob_matches(glob, path, folder)
        return found

    def reason(self) -> str | None:
        """What was not matched and why; ``None`` when everything was."""
        said = []
        if self.long_paths:
            said.append(
                f"{len(self.long_paths)} path(s) longer than PATH_MAX ({path_max()} bytes) "
                "not matched"
            )
        if self.unanswered:
            said.append(
                f"{self.unanswered} glob test(s) not made: the event spent its "
                f"{MATCH_BUDGET:,} matcher steps"
            )
        return "; ".join(said) or None
