"""The vault's credential rules (``vault._secrets``): the fast path for text naming no label
finds exactly what the pattern finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.vault import _secrets


def _labelled_reference(text: str) -> list[tuple[int, int]]:
    return [
        m.span("value")
        for m in _secrets._LABELLED.finditer(text)
        if not _secrets._NOT_A_VALUE.match(m.group("value"))
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *"apiKEYtokensecretpaswdTOKEN_-:= \"'x9ſK",
                *("api_key: ", "Token=", "PASSWORD: ", "secret ", "passwd=", "ſecret: ", "abc123"),
            ]
        ),
        max_size=25,
    ).map("".join)
)
def test_labelled_values_are_found_with_or_without_the_fast_path(text: str) -> None:
    assert [m.span("value") for m in _secrets._labelled(text)] == _labelled_reference(text)


def test_a_label_in_another_case_is_still_redacted() -> None:
    assert _secrets.redact_credentials("PassWord: hunter2") == "PassWord: [redacted]"
    assert _secrets.redact_credentials("ſecret: hunter2") == "ſecret: [redacted]"
    assert re.search("hunter2", _secrets.redact_credentials("see API-KEY=hunter2 here")) is None
