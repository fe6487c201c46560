"""The delivery ledger in ``.cuecard/local/``: who received what, once per epoch. Stdlib only.

A claim is a name made exclusively under ``sessions/<session>/e<epoch>/<agent>/<memory>`` (a
hard link to the session folders' marker file, else a file created with ``O_EXCL``), so parallel
hook processes agree on exactly one deliverer without a lock. A compaction or a clear starts a
new epoch. Every delivery also appends one line (event, counts, size, ids — never content) to
``ledger.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
import time

from cuecard.core.base._confined import MARK_SOURCE, UnsafePath
from cuecard.core.engine._paths import local_tree

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


def _join(*parts: str) -> str:
    """Relative path segments joined with ``/`` (an empty one left out)."""
    return "/".join(p for p in parts if p)


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
        self.tree, self.local_rel = local_tree(local_dir)
        self.rel = _join(self.local_rel, "sessions", safe_name(session))
        """The session's folder relative to ``tree`` (every access walks there by descriptor)."""

    # -- epochs -----------------------------------------------------------------------------------

    def epoch(self) -> int:
        try:
            return int(self.tree.read_bytes(_join(self.rel, "epoch"), 64).strip() or 0)
        except UnsafePath:
            raise  # a link or a foreign folder on the way: the caller leaves the project alone
        except (OSError, ValueError):
            return 0

    def new_epoch(self, reason: str) -> int:
        """Start a new epoch (after a compaction or a clear); returns its number."""
        with self.tree.locked(_join(self.rel, ".lock")):
            epoch = self.epoch() + 1
            self.tree.write(_join(self.rel, "epoch"), str(epoch), durable=False)
        self.append({"event": "epoch", "epoch": epoch, "reason": reason})
        return epoch

    # -- claims -----------------------------------------------------------------------------------

    def _claim_dir(self, epoch: int) -> str:
        return _join(self.rel, f"e{epoch}", safe_name(self.agent) if self.agent else "_")

    def claimed(self, name: str, epoch: int | None = None) -> bool:
        folder = self._claim_dir(self.epoch() if epoch is None else epoch)
        return self.tree.lstat(_join(folder, safe_name(name))) is not None

    def claim(self, name: str, details: dict[str, Any], epoch: int | None = None) -> bool:
        """Claim ``name`` (a memory id, or a check key) for this epoch; ``False`` if taken.

        The claim is a new name of the session folders' marker file (``MARK_SOURCE``), made
        exclusively as a file would be: a new file would cost the disk an inode per delivered
        memory. ``details`` (with the time) are what a claim holds when it cannot be a link
        (a store without that file, a file system without hard links); the ledger line of the
        delivery records the same."""
        folder = self._claim_dir(self.epoch() if epoch is None else epoch)
        data = json.dumps({**details, "t": round(self.clock(), 3)}).encode("utf-8")
        like = _join(self.local_rel, "sessions", MARK_SOURCE)
        return self.tree.create(_join(folder, safe_name(name)), data, like=like)

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
        try:
            self.tree.append(_join(self.local_rel, "ledger.jsonl"), data)
        except OSError:
            # A link, a FIFO or a folder planted in the ledger's place: the line is lost, not the
            # delivery (the claims, not this record, decide what was delivered).
            return
