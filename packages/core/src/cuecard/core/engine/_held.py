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
        self.tree = ledger.tree
        base = f"{ledger.rel}/{HELD_DIR}"
        self.path = f"{base}/{name}.jsonl"
        self.sent_dir = f"{base}/{name}.sent"
        """Both relative to ``tree``: reached by descriptor, never through a link."""

    def _records(self) -> list[dict[str, str]]:
        try:  # a regular file only: never a FIFO that would block the hook, nor a device
            data = self.tree.read_bytes(self.path, _MAX_FILE, whole=False)
        except OSError:
            return []
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
        return self.tree.lstat(f"{self.sent_dir}/{ident}") is not None

    def pending(self) -> list[Block]:
        """The held reports not yet delivered, oldest first (at most ``MAX_HELD``)."""
        if self.tree.lstat(self.path) is None:
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
            self.tree.append(self.path, "".join(lines).encode("utf-8"))
        except OSError:
            return  # a link or a foreign file in its place: hold nothing rather than write there

    def release(self, block: Block) -> bool:
        """Mark a held report delivered (or dropped); ``False`` when another process did."""
        try:
            return self.tree.create(f"{self.sent_dir}/{_ident(block)}")
        except OSError:  # a foreign file or a link in the way
            return False
