"""Dates in text as search terms (``recall._dates``): the forms a note or a question writes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuecard.core.recall._dates import date_terms, dated


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Session 2: 8 May 2023, 11:00 am", ["20230508", "202305", "0508"]),
        ("May 8, 2023", ["20230508", "202305", "0508"]),
        ("the 8th of May 2023", ["20230508", "202305", "0508"]),
        ("2023-05-08", ["20230508", "202305", "0508"]),
        ("what happened in May 2023?", ["202305"]),
        ("in 2023-06", ["202306"]),
        ("on 8 June", ["0608"]),
        ("Sept 3 2024", ["20240903", "202409", "0903"]),
        ("the May release", []),
        ("I may 8 things", []),
        ("we march 3 times", []),
        ("2023-13-01 and 31 Foo 2023", []),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_date_terms(text: str, terms: list[str]) -> None:
    assert date_terms(text) == terms


def test_the_innermost_dated_heading_dates_an_entry() -> None:
    assert dated("Ann and Bo: May 2023 and June 2023 / Session 3: 8 June 2023, 3:00 pm") == [
        "20230608",
        "202306",
        "0608",
    ]
    assert dated("Ann and Bo: May 2023 / Small talk") == ["202305"]
    assert dated("Notes / Tools") == []


@given(st.text(max_size=200))
def test_any_text_gives_digit_terms(text: str) -> None:
    for term in date_terms(text):
        assert term.isascii()
        assert term.isdigit()
        assert len(term) in (4, 6, 8)
