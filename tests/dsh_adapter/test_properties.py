"""Properties of the pure parts: recall rendering, bounding, the managed block, the doc check."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.dsh_adapter import BEGIN, END
from cuecard.dsh_adapter._bound import TRUNCATION_MARKER, bound
from cuecard.dsh_adapter._call import clamp_limit, doc_problem
from cuecard.dsh_adapter._deploy import render_block, replace_block, verify
from cuecard.dsh_adapter._recall import render_recall

piece = st.sampled_from(["a", " ", "\n", "<", ">", "/", "memory-data", "\u202e", "é", "端口"])
hostile = st.lists(piece, max_size=120).map("".join)
TAG = re.compile(r"<\s*/?\s*memory-data\b", re.IGNORECASE)
result = st.fixed_dictionaries({"note": hostile, "id": hostile, "text": hostile})


@settings(max_examples=100)
@given(st.lists(result, max_size=12), st.lists(hostile, max_size=3), st.integers(200, 3000))
def test_recall_fits_and_keeps_exactly_one_wrapper(results, topics, max_chars) -> None:
    out = render_recall(results, topics, max_chars)
    assert len(out) <= max_chars
    assert out.startswith('<memory-data source="cuecard recall"')
    assert out.endswith("</memory-data>")
    assert len(TAG.findall(out)) == 2  # the opening tag and the closing one, nothing between
    assert "\u202e" not in out


@given(st.text(max_size=3000), st.integers(60, 2000))
def test_bound_never_exceeds_the_limit_and_marks_the_cut(text, limit) -> None:
    out = bound(text, limit)
    assert len(out) <= limit
    if len(text) > limit:
        assert TRUNCATION_MARKER.strip() in out
    else:
        assert out == text
    wrapped = bound(f"<memory-data>\n{text}\n</memory-data>", limit)
    assert wrapped.endswith("</memory-data>")
    assert len(wrapped) <= limit


@given(st.text(max_size=500).filter(lambda t: BEGIN not in t and END not in t))
def test_the_block_is_idempotent_and_keeps_user_text(text) -> None:
    block = render_block(vault="/srv/vault", agent="dsh")
    once = replace_block(text, block)
    assert replace_block(once, block) == once
    assert once.startswith(text)
    assert verify(once, block) is None
    newer = render_block(vault="/other", agent="dsh")
    assert replace_block(once, newer).startswith(text)
    assert replace_block(once, newer).count(BEGIN) == 1


@given(st.text(max_size=60))
def test_an_accepted_doc_name_never_leaves_its_folder(doc) -> None:
    if doc_problem(doc) is None:
        name = doc.strip()
        assert "/" not in name
        assert "\\" not in name
        assert ".." not in name
        assert not name.startswith(".")


@given(st.one_of(st.integers(), st.floats(), st.text(max_size=8), st.none(), st.booleans()))
def test_a_limit_is_always_in_range(value) -> None:
    assert 1 <= clamp_limit(value) <= 50
