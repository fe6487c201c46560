"""The credential detector as the vault uses it: one test of a note's joined lines stands for
the test of each line."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.engine import _secrets


def test_a_label_in_another_case_is_still_redacted() -> None:
    assert _secrets.redact("PassWord: hunter2") == "PassWord: [redacted]"
    assert _secrets.redact("ſecret: hunter2") == "ſecret: [redacted]"
    assert re.search("hunter2", _secrets.redact("see API-KEY=hunter2 here")) is None


# Pieces of credentials of every shape the vault redacts, and what cuts or joins them: a fact's
# stamp (removed from the indexed text, so its two sides meet), bullets, headings, line breaks.
_CREDENTIAL_PIECES = st.sampled_from(
    [
        *"aZ09_-.:/@= \t'\"xſK",
        *("sk-", "ghp_", "github_pat_", "glpat-", "xoxb-", "AKIA", "AIza", "npm_", "eyJ"),
        *("Bearer ", "https://", "user:", "pass@", "sk_live_", "-----BEGIN RSA PRIVATE KEY-----"),
        *("password: ", "Token=", "api_key=", "secret ", "passwd: ", "ſecret: ", "hunter22"),
        *("0123456789abcdef", "DEADBEEFdeadbeef", "commit ", "sha256 ", "ABCDEFGHIJKLMNOP"),
        *(" (written 2026-01-02 | source: x) ", "(written 2026-01-02 | source: x)", "\n", "\n- "),
        *("\n## ", "\n# superseded\n", "\n# api\n"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_CREDENTIAL_PIECES, max_size=12).map("".join), max_size=6))
def test_no_credential_in_the_joined_text_means_none_in_any_line(pieces: list[str]) -> None:
    lines = [line for piece in pieces for line in piece.split("\n")]
    if not _secrets.may_hold_secret("\n".join(lines)):
        assert [_secrets.redact(line) for line in lines] == lines


def _entries(note: str) -> list[tuple[str, str, str, str]]:
    from tests._support.internals import extract

    return [(e.key, e.text, e.terms, e.context) for e in extract("notes/n.md", note)]


# Halves of credentials and the stamps that, removed from a fact's text, join them.
_SPLICED = st.sampled_from(
    [
        *("sk-", "ABCDEFGHIJKLMNOP", "0123456789abcdef", "DEADBEEFdeadbeef", "password", ": "),
        *("hunter22", " ", "x", "(written 2026-01-02 | source: x)", " (written 2026-01-02 | src)"),
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.lists(_CREDENTIAL_PIECES, max_size=10).map("".join),
            st.lists(_SPLICED, max_size=6).map("".join),
        ),
        max_size=8,
    )
)
def test_a_note_extracts_the_same_with_or_without_the_prefilter(lines: list[str]) -> None:
    """The note-wide test that skips redaction never lets a credential through: the entries
    equal those made with every string redacted on its own."""
    note = "# facts\n\n" + "".join(f"- {line}\n" for line in lines)
    fast = _entries(note)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_secrets, "may_hold_secret", lambda _text: True)
        assert _entries(note) == fast


@settings(max_examples=300, deadline=None)
@given(st.lists(_CREDENTIAL_PIECES, max_size=14).map("".join))
def test_the_rules_the_set_names_find_what_every_rule_finds(text: str) -> None:
    """Only the rules whose loosened form the RE2 set finds are run: none is missed."""
    text = _secrets.searchable(text)
    candidates = _secrets._candidates(text)
    every = list(_secrets._findings(text, None))
    if candidates == frozenset():
        assert every == []
    else:
        assert sorted(_secrets._findings(text, candidates)) == sorted(every)


def test_every_rule_loosened_compiles_in_re2_and_the_set_passes_its_test() -> None:
    import re2

    for part in _secrets._loose_parts():
        re2.compile(part)
    assert _secrets._loose_set() is not None
