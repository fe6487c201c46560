"""Check reports held back for lack of room: each arrives at a later event. Standard library only.

A check report that does not fit a delivery is appended to
``sessions/<session>/held/<agent>.jsonl`` (one JSON line: ``id``, ``key``, ``title``, ``text``).
The next event of that session and agent delivers the held reports first, oldest first, within
the limit; what still does not fit stays held for the event after. Delivering (or dropping) a
held report creates ``held/<agent>.sent/<id>`` with ``O_EXCL``, so parallel hook processes
deliver it once. A held report is dropped when a newer report on the same check and file
replaces it. Held reports outlive a compaction: they describe a change the agent made, which a
new epoch does not undo.
"""

from __future__ import annotations

import json
import os
import stat

from cuecard.core.engine._append import append_record
from cuecard.core.engine._delivery import Block

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.engine._ledger import Ledger

__all__ = ["MAX_HELD", "HeldReports"]

MAX_HELD = 200
"""Most held reports read back at one event (the oldest first)."""
_MAX_FILE = 4 * 1024 * 1024


def _ident(block: Block) -> str:
    import zlib  # not at the top: an event without held reports never needs it

    return f"{zlib.crc32((block.key + chr(0) + block.text).encode('utf-8', 'replace')):08x}"


class HeldReports:
    """The check reports held for one session and agent."""

    def __init__(self, ledger: Ledger) -> None:
        from cuecard.core.engine._ledger import HELD_DIR, safe_name

        name = safe_name(ledger.agent) if ledger.agent else "_"
        base = os.path.join(ledger.folder, HELD_DIR)
        self.path = os.path.join(base, name + ".jsonl")
        self.sent_dir = os.path.join(base, name + ".sent")

    def _records(self) -> list[dict[str, str]]:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.path, flags)
        except OSError:
            return []
        try:  # a regular file only: never a FIFO that would block the hook, nor a device
            data = os.read(fd, _MAX_FILE) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        except OSError:
            data = b""
        finally:
            os.close(fd)
        lines = data.decode("utf-8", "replace").splitlines()
        out = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn line
            if isinstance(record, dict) and all(
                isinstance(record.get(k), str) for k in ("id", "key", "title", "text")
            ):
                out.append(record)
        return out

    def _sent(self, ident: str) -> bool:
        return os.path.exists(os.path.join(self.sent_dir, ident))

    def pending(self) -> list[Block]:
        """The held reports not yet delivered, oldest first (at most ``MAX_HELD``)."""
        if not os.path.exists(self.path):
            return []
        seen: set[str] = set()
        out: list[Block] = []
        for record in self._records():
            ident = record["id"]
            if ident in seen or self._sent(ident):
                continue
            seen.add(ident)
            out.append(Block(record["key"], record["title"], record["text"], "check"))
            if len(out) >= MAX_HELD:
                break
        return out

    def hold(self, blocks: list[Block]) -> None:
        """Hold ``blocks`` (check reports that did not fit) for a later event."""
        if not blocks:
            return
        known = {r["id"] for r in self._records()}
        lines = []
        for block in blocks:
            ident = _ident(block)
            if ident in known:
                continue
            known.add(ident)
            record = {"id": ident, "key": block.key, "title": block.title, "text": block.text}
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        if not lines:
            return
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            append_record(self.path, "".join(lines).encode("utf-8"))
        except OSError:
            return  # a link or a foreign file in its place: hold nothing rather than write there

    def release(self, block: Block) -> bool:
        """Mark a held report delivered (or dropped); ``False`` when another process did."""
        try:
            os.makedirs(self.sent_dir, exist_ok=True)
            fd = os.open(
                os.path.join(self.sent_dir, _ident(block)),
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
            )
        except OSError:  # delivered by another process (or a foreign file in the way)
            return False
        os.close(fd)
        return True
