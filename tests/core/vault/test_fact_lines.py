"""Fact lines (``vault._facts``): the literal checks that skip a pattern on most lines leave
every result as the patterns alone give it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.vault import _facts

_PIECES = st.sampled_from(
    [
        *"ab 9-*•+#\t\u00a0\u2003（）｜:：()",
        *(
            "- ",
            "## ",
            "# superseded",
            "- [ ] ",
            "example",
            "EXAMPLE:",
            "(example)",
            "示例：",
            "示例",
        ),
        *(" (written 2026-01-02 | source: x)", "(written 2026-1-2 | source: x)", "（示例）"),
        *("（写入 2026-01-02｜来源：会话）", "｜使用 3 次", "｜使用 3 次·最近 2026-01-02", "\n"),
    ]
)


def _bare_reference(line: str) -> str:
    text = _facts._BULLET.sub("", line.strip(), count=1)
    return _facts._USAGE.sub("", _facts.STAMP.sub("", text)).strip()


def _note_facts_reference(text: str) -> list[tuple[str, str, bool, bool]]:
    facts = []
    superseded = False
    for raw in text.splitlines():
        heading = _facts._HEADING.match(raw)
        if heading:
            superseded = bool(_facts._SUPERSEDED.search(heading.group(2)))
            continue
        if not _facts._BULLET.match(raw.strip()) or raw.strip().startswith("- [ ]"):
            continue
        fact = _bare_reference(raw)
        if fact:
            placeholder = bool(_facts.PLACEHOLDER.search(fact))
            facts.append((raw.rstrip(), fact, superseded, placeholder))
    return facts


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_fact_lines_are_read_as_the_patterns_alone_read_them(text: str) -> None:
    assert [_facts.bare(line) for line in text.splitlines()] == [
        _bare_reference(line) for line in text.splitlines()
    ]
    got = [(f.line, f.text, f.superseded, f.placeholder) for f in _facts.note_facts(text)]
    assert got == _note_facts_reference(text)


def _headings_reference(text: str, lines: list[str]) -> list[str]:
    found: list[str] = []
    path: list[tuple[int, str]] = []
    want = iter(lines)
    line = next(want, None)
    for raw in text.splitlines():
        if line is None:
            break
        heading = _facts.HEADING.match(raw)
        if heading:
            level = len(heading.group(1))
            path = [(lv, t) for lv, t in path if lv < level]
            if heading.group(2):
                path.append((level, heading.group(2)))
        elif raw.rstrip() == line:
            found.append(" / ".join(t for _, t in path))
            line = next(want, None)
    return found + [""] * (len(lines) - len(found))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES | st.sampled_from(["###### x", "####### x", " # x", "#"]), max_size=30))
def test_headings_are_read_as_the_pattern_alone_reads_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    facts = _facts.note_facts(text)
    assert [f.context for f in facts] == _headings_reference(text, [f.line for f in facts])
