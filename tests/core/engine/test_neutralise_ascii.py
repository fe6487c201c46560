"""``neutralise`` takes a quicker path for ASCII text (the hook's usual case); it must drop
exactly what the path for any text drops."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from cuecard.core.engine._text import neutralise

ASCII = st.text(st.characters(max_codepoint=0x7F), max_size=200)
SPICE = st.sampled_from(["", "<memory-data>", "</ memory-data", "\r\n", "\x00\x1b[31m", "\x7f"])


@given(ASCII, SPICE)
def test_ascii_text_is_neutralised_as_any_text_is(text: str, spice: str) -> None:
    text = text + spice
    # "→" is kept by both paths (and is no word character); appending it sends the same ASCII
    # text down the general path.
    assert neutralise(text) + " →" == neutralise(text + " →")


@given(ASCII)
def test_no_control_but_tab_line_feed_and_carriage_return_survives(text: str) -> None:
    kept = {c for c in neutralise(text) if ord(c) < 0x20 or ord(c) == 0x7F}
    assert kept <= {"\t", "\n", "\r"}


TAGGED = st.lists(
    st.sampled_from(["<memory-data", "< / MEMORY-DATA>", "<Memory-Datax", "memory-data", "ı", "K"])
    | st.text(max_size=8),
    max_size=8,
).map("".join)


@given(TAGGED)
def test_wrapper_tags_are_defused_as_the_pattern_says(text: str) -> None:
    """Text without "memory-data" in any case skips the pattern; the result is the pattern's.
    (Not for text with combining marks: a tag's run takes the marks that follow it, and drops
    them, which the plain pattern does not model.)"""
    import re
    import unicodedata

    from cuecard.core.engine._text import _invisible

    assume(not any(unicodedata.category(c).startswith("M") for c in text))

    cleaned = _invisible().sub("", text.replace("\r\n", "\n"))
    tag = re.compile(r"<\s*/?\s*memory-data\b", re.IGNORECASE)
    assert neutralise(text) == tag.sub(lambda m: m.group().replace("<", "&lt;"), cleaned)


@given(st.lists(ASCII | TAGGED, max_size=6), SPICE)
def test_a_note_said_neutral_has_no_line_that_neutralise_changes(
    lines: list[str], spice: str
) -> None:
    """``neutral_lines`` spares a note's lines their ``neutralise`` one by one: when it says a
    text is neutral, every line of it is its own ``neutralise``."""
    from cuecard.core.engine._text import neutral_lines

    text = "\n".join(lines) + spice
    if neutral_lines(text):
        assert all(neutralise(line) == line for line in text.splitlines())
    # Printable ASCII, tabs and line breaks that name no wrapper tag: always neutral.
    plain = "".join(c for c in text if " " <= c <= "~" or c in "\t\n").replace("memory-data", "")
    if "memory-data" not in plain.lower():
        assert neutral_lines(plain)
