"""A read-only hash table in one file: the compiled index's storage. Standard library only.

Layout: the magic line, the slot count (u32), then one ``(offset u64, length u32)`` slot per
hash bucket, then the blocks. A key lives in slot ``crc32(key) % slots``; a block is a JSON
object of every key in its slot. A lookup is one ``pread`` of the slot and one of the block, so
an event reads a few hundred bytes, whatever the size of the index.

The writers hash with ``zlib.crc32``; a lookup hashes a short key in Python (``crc32``), since
loading the ``zlib`` extension costs the hook process more (≈ 0.35 ms) than its few lookups.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from cuecard.core.base._confined import Tree

__all__ = ["Table", "crc32", "json_string", "write_encoded_table", "write_table"]

MAGIC = b"CUECARD-TABLE-1\n"
# A slot is (offset u64, length u32), the count a u32, all little-endian. Read with
# int.from_bytes: the hook then needs no struct module (0.3 ms of its imports).
_SLOT_SIZE = 12
_COUNT_SIZE = 4
_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


def json_string(text: str) -> str:
    """``text`` as a JSON string (``json.dumps``), quickly for printable ASCII."""
    if _PLAIN.issuperset(text):
        return f'"{text}"'
    return json.dumps(text, ensure_ascii=False)


_CRC_TABLE: list[int] = []
_LONG_KEY = 256  # bytes; a longer key is hashed by zlib


def _crc_table() -> list[int]:
    """CRC-32's byte table (reflected polynomial 0xEDB88320). The CRC of a XOR is the XOR of
    the CRCs, so the entries of the eight one-bit bytes give all 256 by XOR."""
    table = [0]
    for bit in range(8):
        crc = 1 << bit
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table += [entry ^ crc for entry in table]
    return table


def crc32(data: bytes) -> int:
    """``zlib.crc32(data)``, without loading zlib for a short ``data``."""
    if len(data) > _LONG_KEY:
        import zlib

        return zlib.crc32(data)
    if not _CRC_TABLE:
        _CRC_TABLE.extend(_crc_table())
    table = _CRC_TABLE
    crc = 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _slot_of(key: str, slots: int, *, hash_: Callable[[bytes], int] = crc32) -> int:
    return hash_(key.encode("utf-8")) % slots


def write_table(path: str, items: Mapping[str, Any], *, tree: Tree | None = None) -> None:
    """Write ``items`` (key → JSON value) as a table file at ``path`` (relative to ``tree``
    when one is given; see ``_write``)."""
    import struct
    import zlib

    slots = max(1, len(items) * 2 + 1)
    grouped: dict[int, dict[str, Any]] = {}
    for key, value in items.items():
        grouped.setdefault(_slot_of(key, slots, hash_=zlib.crc32), {})[key] = value

    slot_format = struct.Struct("<QI")
    header = len(MAGIC) + _COUNT_SIZE + slots * _SLOT_SIZE
    table = bytearray(slots * _SLOT_SIZE)
    blocks: list[bytes] = []
    offset = header
    for slot in sorted(grouped):
        block = json.dumps(grouped[slot], separators=(",", ":"), ensure_ascii=False).encode()
        slot_format.pack_into(table, slot * _SLOT_SIZE, offset, len(block))
        blocks.append(block)
        offset += len(block)
    _write(tree, path, MAGIC + slots.to_bytes(_COUNT_SIZE, "little") + bytes(table), blocks)


def _write(tree: Tree | None, path: str, head: bytes, blocks: list[bytes]) -> None:
    """Write a table through the confined layer: at ``path`` of ``tree``, or without one at a
    plain path (its folder trusted as given, the file itself replaced, never written through)."""
    if tree is None:
        from cuecard.core.base._confined import Tree

        tree, path = Tree(os.path.dirname(path) or "."), os.path.basename(path)
    tree.write(path, head + b"".join(blocks), durable=False)


def write_encoded_table(path: str, items: Mapping[str, str], *, tree: Tree | None = None) -> None:
    """Write ``items`` (key → a JSON value already encoded as text) as a table file at ``path``
    (relative to ``tree`` when one is given): what ``write_table`` writes for the decoded
    values, without encoding them again."""
    import struct
    import zlib

    slots = max(1, len(items) * 2 + 1)
    grouped: dict[int, list[str]] = {}
    for key, value in items.items():
        member = json_string(key) + ":" + value
        grouped.setdefault(_slot_of(key, slots, hash_=zlib.crc32), []).append(member)

    slot_format = struct.Struct("<QI")
    header = len(MAGIC) + _COUNT_SIZE + slots * _SLOT_SIZE
    table = bytearray(slots * _SLOT_SIZE)
    blocks: list[bytes] = []
    offset = header
    for slot in sorted(grouped):
        block = ("{" + ",".join(grouped[slot]) + "}").encode()
        slot_format.pack_into(table, slot * _SLOT_SIZE, offset, len(block))
        blocks.append(block)
        offset += len(block)
    _write(tree, path, MAGIC + slots.to_bytes(_COUNT_SIZE, "little") + bytes(table), blocks)


class Table:
    """An open table file; ``get`` reads only the slot and the block a key hashes to."""

    def __init__(self, path: str, fd: int | None = None) -> None:
        """Open the table at ``path``, or take ``fd`` (a regular file the caller opened through
        the confined layer; the table closes it)."""
        if fd is None:
            from cuecard.core.engine._evidence import open_regular

            fd = open_regular(path, follow_links=True)  # never a FIFO or a device
        if fd is None:
            raise ValueError(f"{path} is not a regular file")
        self._fd = fd
        self._size = os.fstat(fd).st_size
        self._last: tuple[int, Any] = (-1, None)  # the block read last, by offset
        head = os.pread(self._fd, len(MAGIC) + _COUNT_SIZE, 0)
        if head[: len(MAGIC)] != MAGIC or len(head) < len(MAGIC) + _COUNT_SIZE:
            self.close()
            raise ValueError(f"{path} is not a cuecard table")
        self._slots = int.from_bytes(head[len(MAGIC) :], "little")
        if not self._slots:
            self.close()
            raise ValueError(f"{path} has no slots")
        self._base = len(MAGIC) + _COUNT_SIZE

    def get(self, key: str) -> Any:
        slot = _slot_of(key, self._slots)
        raw = os.pread(self._fd, _SLOT_SIZE, self._base + slot * _SLOT_SIZE)
        if len(raw) != _SLOT_SIZE:
            return None
        offset, length = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")
        if not length or offset + length > self._size:  # a block is never longer than the file
            return None
        if self._last[0] == offset:  # the keys of one event often share a block: parse it once
            block = self._last[1]
        else:
            block = json.loads(os.pread(self._fd, length, offset))
            self._last = (offset, block)
        return block.get(key) if isinstance(block, dict) else None

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __del__(self) -> None:
        try:  # not contextlib.suppress: the hook does not import contextlib
            self.close()
        except (OSError, AttributeError):
            return
