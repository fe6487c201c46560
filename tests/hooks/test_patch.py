"""Codex apply_patch Update File hunks, applied to the file as it was (hypothesis against a plain
splice of the file's lines)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.hooks._patch import apply_hunks, update_hunks

_TEXT = st.text(st.characters(exclude_characters="\n\r"), max_size=12)


@st.composite
def files_and_edits(draw: st.DrawFn) -> tuple[list[str], list[tuple[int, int, list[str]]]]:
    """A file of distinct lines, and edits (start, removed count, added lines) whose ranges,
    widened by one context line on each side, do not overlap."""
    size = draw(st.integers(1, 30))
    lines = [f"line {i} {draw(_TEXT)}" for i in range(size)]
    edits = []
    at = 0
    for _ in range(draw(st.integers(1, 5))):
        start = draw(st.integers(at, size))
        length = draw(st.integers(0, min(3, size - start)))
        if start + length == 0 and size == 0:
            break
        edits.append((start, length, draw(st.lists(_TEXT, max_size=3))))
        at = start + length + 2
        if at > size:
            break
    return lines, edits


def splice(lines: list[str], edits: list[tuple[int, int, list[str]]]) -> str:
    out = list(lines)
    for start, length, new in reversed(edits):
        out[start : start + length] = new
    return "\n".join(out) + "\n" if out else ""  # an emptied file has no line, no newline


def patch_of(lines: list[str], edits: list[tuple[int, int, list[str]]]) -> str:
    body = ["*** Begin Patch", "*** Update File: src/a.py"]
    for start, length, new in edits:
        before = lines[max(0, start - 1) : start]
        after = lines[start + length : start + length + 1]
        body.append("@@")
        body += [" " + line for line in before]
        body += ["-" + line for line in lines[start : start + length]]
        body += ["+" + line for line in new]
        body += [" " + line for line in after]
    body.append("*** End Patch")
    return "\n".join(body) + "\n"


@settings(max_examples=300, deadline=None)
@given(files_and_edits())
def test_hunks_apply_as_a_splice_of_the_lines(case) -> None:
    lines, edits = case
    hunks = update_hunks(patch_of(lines, edits))
    assert apply_hunks("\n".join(lines) + "\n", hunks["src/a.py"]) == splice(lines, edits)


def test_a_context_header_moves_the_search_and_an_end_of_file_anchor_holds() -> None:
    before = "def a():\n    return 1\n\ndef b():\n    return 1\n"
    patch = (
        "*** Begin Patch\n*** Update File: m.py\n*** Move to: n.py\n@@ def b():\n-    return 1\n"
        "+    return 2\n*** End of File\n*** Add File: o.py\n+x\n*** End Patch\n"
    )
    hunks = update_hunks(patch)
    assert list(hunks) == ["m.py"]
    assert apply_hunks(before, hunks["m.py"]) == (
        "def a():\n    return 1\n\ndef b():\n    return 2\n"
    )


def test_whitespace_differences_are_forgiven_and_a_missing_hunk_is_unknown() -> None:
    before = "x = 1   \ny = 2\n"
    loose = update_hunks("*** Update File: a\n@@\n-x = 1\n+x = 3\n")["a"]
    assert apply_hunks(before, loose) == "x = 3\ny = 2\n"
    missing = update_hunks("*** Update File: a\n@@\n-z = 9\n+z = 0\n")["a"]
    assert apply_hunks(before, missing) is None
    first_without_header = update_hunks("*** Update File: a\n y = 2\n+w = 4\n*** End Patch")["a"]
    assert apply_hunks(before, first_without_header) == "x = 1   \ny = 2\nw = 4\n"


def test_a_file_of_repeated_lines_cannot_make_seeking_quadratic() -> None:
    before = "a\n" * 200_000
    hunk = "*** Update File: a\n@@\n" + " a\n" * 2_000 + "-b\n+c\n"
    assert apply_hunks(before, update_hunks(hunk)["a"]) is None  # bounded, then unknown
