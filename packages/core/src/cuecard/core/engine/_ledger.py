"""The delivery ledger in ``.cuecard/local/``: who received what, once per epoch. Stdlib only.

A claim is a file created with ``O_EXCL`` under
``sessions/<session>/e<epoch>/<agent>/<memory>``, so parallel hook processes agree on exactly one
deliverer without a lock. A compaction or a clear starts a new epoch. Every delivery also appends
one line (event, counts, size, ids — never content) to ``ledger.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
import time

from cuecard.core.engine._append import append_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["HELD_DIR", "Ledger", "safe_name"]

HELD_DIR = "held"
"""A session folder's folder of held check reports (``_held``)."""

_UNSAFE = r"[^A-Za-z0-9_.-]"
# What _UNSAFE leaves alone: a usual session id needs no pattern compiled (hook processes).
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def safe_name(value: str) -> str:
    """A file-name-safe, collision-resistant form of a session or agent id."""
    clean = value if _SAFE.issuperset(value) else re.sub(_UNSAFE, "_", value)
    clean = clean[:100].lstrip(".") or "_"
    if clean != value:
        import zlib

        clean = f"{clean[:90]}~{zlib.crc32(value.encode('utf-8', 'replace')):08x}"
    return clean


class Ledger:
    """One session's ledger, seen by one agent (``""`` is the main agent)."""

    def __init__(
        self,
        local_dir: str,
        session: str,
        agent: str = "",
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.local_dir = local_dir
        self.session = session
        self.agent = agent
        self.clock = clock
        self.folder = os.path.join(local_dir, "sessions", safe_name(session))

    # -- epochs -----------------------------------------------------------------------------------

    def epoch(self) -> int:
        try:
            with open(os.path.join(self.folder, "epoch"), encoding="ascii") as handle:
                return int(handle.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    def new_epoch(self, reason: str) -> int:
        """Start a new epoch (after a compaction or a clear); returns its number."""
        from pathlib import Path

        from cuecard.core._fsio import atomic_write, locked

        os.makedirs(self.folder, exist_ok=True)
        with locked(Path(self.folder) / ".lock"):
            epoch = self.epoch() + 1
            atomic_write(Path(self.folder) / "epoch", str(epoch), durable=False)
        self.append({"event": "epoch", "epoch": epoch, "reason": reason})
        return epoch

    # -- claims -----------------------------------------------------------------------------------

    def _claim_dir(self, epoch: int) -> str:
        return os.path.join(self.folder, f"e{epoch}", safe_name(self.agent) if self.agent else "_")

    def claimed(self, name: str, epoch: int | None = None) -> bool:
        folder = self._claim_dir(self.epoch() if epoch is None else epoch)
        return os.path.exists(os.path.join(folder, name))

    def claim(self, name: str, details: dict[str, Any], epoch: int | None = None) -> bool:
        """Claim ``name`` (a memory id, or a check key) for this epoch; ``False`` if taken."""
        folder = self._claim_dir(self.epoch() if epoch is None else epoch)
        try:
            fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
            return self.claim(name, details, epoch)
        except FileExistsError:
            return False
        data = json.dumps({**details, "t": round(self.clock(), 3)}).encode("utf-8")
        try:  # one os.write, not a file object: a few syscalls fewer for each claim
            os.write(fd, data)
        finally:
            os.close(fd)
        return True

    def claim_nth(self, name: str, limit: int, details: dict[str, Any]) -> bool:
        """Claim one of ``limit`` slots for ``name`` (a check reported at most ``limit`` times)."""
        epoch = self.epoch()
        return any(self.claim(f"{name}.{n}", details, epoch) for n in range(1, limit + 1))

    # -- lines ------------------------------------------------------------------------------------

    def append(self, line: dict[str, Any]) -> None:
        """Append one ledger line (one ``write`` with ``O_APPEND``, so lines never interleave)."""
        record = {"t": round(self.clock(), 3), "session": self.session, **line}
        if self.agent:
            record["agent"] = self.agent
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        os.makedirs(self.local_dir, exist_ok=True)
        path = os.path.join(self.local_dir, "ledger.jsonl")
        try:
            append_record(path, data)
        except OSError:
            # A link, a FIFO or a folder planted in the ledger's place: the line is lost, not the
            # delivery (the claims, not this record, decide what was delivered).
            return
