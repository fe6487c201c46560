"""The linear glob matcher agrees with gitignore semantics (pathspec) and never backtracks."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core._compiler import glob_regex
from cuecard.core.engine._wildmatch import Wildmatch, backtracks_linearly, glob_matches
from tests._support.globs import CASES

GLOB_PIECES = ["a", "b", ".", "-", "/", "*", "**", "?", "[ab]", "[!a]", "[^b]", "[a-c]", "[]a]",
               "[", "]", "!", "#", " ", "\\*", "\n"]  # fmt: skip
PATH_PIECES = ["a", "b", "c", ".", "-", "/", "*", "]", "!", "#", " ", "\n", "ab", "x/"]


def reference(glob: str, path: str) -> bool:
    """What the compiler's pathspec regular expression says (the semantics before the matcher)."""
    try:
        regex = glob_regex(glob)
    except ValueError:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return re.match(regex, path) is not None
        except re.error:
            return False


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(GLOB_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(st.sampled_from(PATH_PIECES), max_size=10).map("".join),
)
def test_the_matcher_agrees_with_pathspec(glob: str, path: str) -> None:
    assert glob_matches(glob, path) is reference(glob, path)


@pytest.mark.parametrize(("glob", "path", "expected"), CASES, ids=[f"{g}~{p}" for g, p, _ in CASES])
def test_the_documented_cases(glob: str, path: str, expected: bool) -> None:
    from cuecard.core._globs import expand_braces

    assert any(glob_matches(one, path) for one in expand_braces(glob)) is expected


def test_a_glob_that_makes_a_regex_backtrack_is_matched_in_one_pass() -> None:
    """The issue's glob against a path of 100,000 characters: a backtracking matcher would
    not finish (30 characters took 25 s); this one visits each character once."""
    glob = "*a*a*a*a*a*a*a*a*a*a*a*a*b"
    matcher = Wildmatch(glob)
    assert matcher.match("a" * 100_000) is False
    assert matcher.match("a" * 100_000 + "b") is True


def test_an_unreadable_glob_matches_nothing() -> None:
    assert glob_matches("src/[ab", "src/a") is False
    assert glob_matches("src/[z-a]", "src/a") is False


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", ".", "/", "ab", "**"]), min_size=1, max_size=6).map(
        "".join
    ),
    st.lists(st.sampled_from(["a", "b", ".", "/", "ab", "\n"]), max_size=10).map("".join),
)
def test_globs_without_wildcards_take_the_string_path_and_agree(glob: str, path: str) -> None:
    assert glob_matches(glob, path) is reference(glob, path)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(GLOB_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(st.sampled_from(PATH_PIECES), max_size=10).map("".join),
)
def test_a_glob_set_agrees(glob: str, path: str) -> None:
    """``GlobSet`` (health, import, ingestion) runs the globs that cannot backtrack on ``re``."""
    from cuecard.core._repofiles import GlobSet

    assert GlobSet([glob]).match(path) is reference(glob, path)


def test_a_glob_set_never_hands_a_backtracking_glob_to_re() -> None:
    from cuecard.core._repofiles import GlobSet

    globs = ["*a*a*a*a*a*a*a*a*a*a*a*a*b", "a/**/b/**/c", "src/**", "**/*.py", "docs/*/x"]
    assert [backtracks_linearly(g) for g in globs] == [False, False, True, True, True]
    assert GlobSet(globs[:2]).match("a" * 100_000) is False


SEGMENTS = st.sampled_from(["a", "b", "a.py", ".py", "py", "b.sql", "-", "*", "", " ", "\n"])
QUICK_GLOBS = st.one_of(
    st.lists(st.sampled_from(GLOB_PIECES), min_size=1, max_size=8).map("".join),
    st.tuples(
        st.sampled_from(["", "", "**/", "**/*", "/", "!", "#"]),
        st.lists(SEGMENTS, min_size=1, max_size=3).map("/".join),
        st.sampled_from(["", "", "/**", "/", " "]),
    ).map("".join),
)
QUICK_PATHS = st.one_of(
    st.lists(st.sampled_from(PATH_PIECES), max_size=10).map("".join),
    st.lists(SEGMENTS, max_size=5).map("/".join),
)


@settings(max_examples=3000, deadline=None)
@given(QUICK_GLOBS, QUICK_PATHS)
def test_the_index_s_string_tests_agree_with_the_matcher(glob: str, path: str) -> None:
    """The hook answers the usual glob shapes without the matcher (``quick_glob_match``);
    when it answers, it says what the matcher says."""
    from cuecard.core.engine._index import quick_glob_match

    answer = quick_glob_match(glob, path)
    assert answer is None or answer == glob_matches(glob, path), (glob, path, answer)


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("src/billing/**", "src/billing/a.py", True),
        ("src/billing/**", "src/billing", False),
        ("src/billing/**", "src/billingx/a.py", False),
        ("src/billing/**", "lib/src/billing/a.py", False),
        ("**/billing/**", "lib/src/billing/a.py", True),
        ("src/app.py", "src/app.py", True),
        ("src/app.py", "lib/src/app.py", False),
        ("app.py", "lib/src/app.py", True),
        ("**/app.py", "lib/src/app.py", True),
        ("**/app.py", "lib/src/xapp.py", False),
        ("**/*.py", "lib/src/app.py", True),
        ("**/*.py", "lib/app.py/README", True),  # a folder the glob names covers its files
        ("**/*.py", "lib/app.pyc", False),
        ("**/*.sql", ".sql", True),
    ],
)
def test_the_usual_shapes_are_answered_without_the_matcher(glob: str, path: str, hit: bool) -> None:
    from cuecard.core.engine._index import quick_glob_match

    assert quick_glob_match(glob, path) is hit
    assert glob_matches(glob, path) is hit
