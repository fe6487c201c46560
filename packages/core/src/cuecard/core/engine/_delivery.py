"""Composing what the agent receives: memories within the limit, wrapped as untrusted data.

Pure functions, standard library only.
"""

from __future__ import annotations

from cuecard.core.engine._text import ADVISORY, neutralise

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Block", "Delivery", "compose", "one_line", "render_memory"]

_OPEN = '<memory-data source="cuecard">'
_CLOSE = "</memory-data>"


class Block:
    """One piece of knowledge ready to deliver: a memory or a check report.

    ``key`` is the memory id (``check:<id>:<where>`` for a check report); ``dimension`` says what
    fired it.
    """

    __slots__ = ("dimension", "key", "text", "title")

    def __init__(self, key: str, title: str, text: str, dimension: str = "") -> None:
        self.key = key
        self.title = title
        self.text = text
        self.dimension = dimension

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return (self.key, self.text, self.dimension) == (other.key, other.text, other.dimension)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Block({self.key!r}, {self.title!r}, dimension={self.dimension!r})"


class Delivery:
    """What one event gives the agent, and what waits for a later event.

    ``text`` is everything to show the agent, advisory line included (empty when nothing
    applies); ``size`` counts the characters of knowledge, not the advisory line.
    """

    __slots__ = ("deferred", "delivered", "size", "text")

    def __init__(
        self,
        text: str = "",
        delivered: list[Block] | None = None,
        deferred: list[Block] | None = None,
        size: int = 0,
    ) -> None:
        self.text = text
        self.delivered: list[Block] = delivered or []
        self.deferred: list[Block] = deferred or []
        self.size = size

    def as_json(self) -> dict[str, Any]:
        return {
            "deliveries": [
                {"id": b.key, "title": b.title, "dimension": b.dimension} for b in self.delivered
            ],
            "deferred": [{"id": b.key, "title": b.title} for b in self.deferred],
            "size": self.size,
        }


def one_line(value: object) -> str:
    """A field shown on one line of a delivery: neutralised, line breaks and runs of spaces
    folded into one space. Every field is, whatever the index it came from holds."""
    return " ".join(neutralise(str(value)).split())


def render_memory(memory_id: str, record: dict[str, Any], dimension: str, marks: list[str]) -> str:
    """The text of one memory inside the wrapper."""
    kind = one_line(record.get("kind", "memory")).replace("_", " ")
    head = f"## {kind}: {one_line(record.get('title', ''))}"
    topic = one_line(record.get("topic", ""))
    meta = f"(memory {one_line(memory_id[:8])}, topic {topic}, fired by {one_line(dimension)})"
    lines = [head, meta]
    lines.extend(f"[{one_line(mark)}]" for mark in marks)
    lines.append(neutralise(str(record.get("body", ""))).strip())
    return "\n".join(lines)


def _held_name(block: Block) -> str:
    """How the held-back line names a block: a memory by its id, a check report by its file."""
    parts = block.key.split(":", 2)
    if len(parts) == 3 and parts[0] == "check":
        return f"check {parts[1][:8]} on {neutralise(parts[2])[:120]}"
    return block.key[:8]


def _deferred_line(blocks: list[Block]) -> str:
    shown = blocks[:5]
    names = "; ".join(f'"{neutralise(b.title)[:80]}" ({_held_name(b)})' for b in shown)
    more = f" and {len(blocks) - len(shown)} more" if len(blocks) > len(shown) else ""
    return f"Held back for lack of room, each arrives at its next matching event: {names}{more}"


def _wrap(blocks: list[Block], deferred: list[Block]) -> str:
    text = _OPEN + "\n" + "\n\n".join(b.text for b in blocks) + "\n" + _CLOSE
    return text + "\n" + _deferred_line(deferred) if deferred else text


def compose(blocks: list[Block], limit: int) -> Delivery:
    """Fit whole blocks, in order, in ``limit`` characters, wrapper and held-back line included.

    A block that does not fit waits for its next event. A first block that alone exceeds the
    limit is cut rather than never delivered.
    """
    chosen: list[Block] = []
    deferred: list[Block] = []
    for block in blocks:
        if len(_wrap([*chosen, block], [])) <= limit:
            chosen.append(block)
        else:
            deferred.append(block)
    while chosen and deferred and len(_wrap(chosen, deferred)) > limit:
        deferred.insert(0, chosen.pop())
    if not chosen and deferred:
        first = deferred.pop(0)
        note = f"\n… (cut to fit; `cuecard show {first.key[:8]}` has the rest)"
        room = limit - len(_wrap([Block("", "", "")], deferred)) - len(note)
        if room > 100:
            chosen.append(Block(first.key, first.title, first.text[:room] + note, first.dimension))
        else:
            deferred.insert(0, first)
    if not chosen:
        return Delivery(deferred=deferred)
    knowledge = _wrap(chosen, deferred)
    return Delivery(
        text=knowledge + "\n" + ADVISORY,
        delivered=chosen,
        deferred=deferred,
        size=len(knowledge),
    )
