"""The compiled index's tables are written with ``zlib.crc32`` and read with the engine's own
CRC-32 (a hook process does not load zlib): both must put every key in the same slot."""

from __future__ import annotations

import zlib
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from cuecard.core.engine._table import Table, crc32, write_encoded_table, write_table


@given(st.binary(max_size=600))
def test_crc32_is_zlib_s(data: bytes) -> None:
    assert crc32(data) == zlib.crc32(data)


KEYS = st.text(min_size=1, max_size=300)  # any text: non-ASCII, and past the long-key cutoff


@given(st.dictionaries(KEYS, st.integers(), min_size=1, max_size=30))
def test_a_written_table_is_read_key_by_key(items: dict[str, int]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        plain, encoded = Path(folder) / "plain.dat", Path(folder) / "encoded.dat"
        write_table(str(plain), items)
        write_encoded_table(str(encoded), {k: str(v) for k, v in items.items()})
        for path in (plain, encoded):
            table = Table(str(path))
            try:
                assert {key: table.get(key) for key in items} == items
                assert table.get("\x00 not a key") is None
            finally:
                table.close()
