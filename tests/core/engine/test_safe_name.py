"""``safe_name`` (a session or agent id as a file name) skips its pattern for an id made of safe
characters only; the result is what the pattern gives for every id."""

from __future__ import annotations

import re
import zlib

from hypothesis import given
from hypothesis import strategies as st

from cuecard.core.engine import safe_name

IDS = st.text(max_size=130) | st.from_regex(r"[A-Za-z0-9_.-]{0,130}", fullmatch=True)


@given(IDS)
def test_safe_name_is_the_pattern_s(value: str) -> None:
    clean = re.sub(r"[^A-Za-z0-9_.-]", "_", value)[:100].lstrip(".") or "_"
    if clean != value:
        clean = f"{clean[:90]}~{zlib.crc32(value.encode('utf-8', 'replace')):08x}"
    assert safe_name(value) == clean
