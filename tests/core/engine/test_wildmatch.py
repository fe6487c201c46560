"""The glob matcher agrees with git (``git check-ignore --no-index``) and with pathspec where
pathspec agrees with git, and its work per path character does not grow with the glob."""

from __future__ import annotations

import random
import sys
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuecard.core.engine._wildmatch import (
    Wildmatch,
    backtracks_linearly,
    glob_error,
    glob_matches,
)
from tests._support.globs import CASES, git_check_ignore

CATCH_ALLS = ["*/", "**/", "**/*/**", "/**/", "**/**/", "foo/**/", "foo/**", "foo/", "**"]
GLOB_PIECES = ["a", "b", ".", "-", "/", "*", "**", "?", "[ab]", "[!a]", "[^b]", "[a-c]", "[]a]",
               "[[:alpha:]]", "[[:digit:]x]", "[:]", "!", "#", " ", "x/", "/**/", "**/", "*/",
               "foo", "foo/", "é", "[é]"]  # fmt: skip
SEGMENTS = ["a", "b", "ab", "ba", "x.py", ".a", "foo", "bar", "a b", " ", "!", "#", "*", "[",
            "]", "é", "\n", "\t", "1"]  # fmt: skip
ADVERSARIAL_GLOBS = st.sampled_from(
    [
        "*a" + "?" * 197,
        "*a" + "?" * 20 + "b",
        "**/*a*a*a*b",  # git's own matcher backtracks: more stars take it seconds
        "a/**/b/**/a/**/b/**/*",
        "*" + "[ab]" * 30,
        "**/*/**/*/**/*/**",
        "/**/a/**/",
        "*" * 50 + "a",
    ]
)
GLOBS = st.one_of(
    st.sampled_from(CATCH_ALLS),
    st.lists(st.sampled_from(GLOB_PIECES), min_size=1, max_size=6).map("".join),
    ADVERSARIAL_GLOBS,
)
PATHS = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6).map("/".join),
    st.tuples(st.sampled_from(["a", "b", "ab"]), st.integers(20, 120)).map(lambda t: t[0] * t[1]),
    st.lists(st.sampled_from(["a" * 30, "b" * 25, "ab" * 12, "foo"]), min_size=2, max_size=5).map(
        "/".join
    ),
)


def git_compares_bytes(glob: str, path: str) -> bool:
    """git compares bytes, the matcher characters: ``?`` or a class meets a character outside
    ASCII (one character, several bytes)."""
    return ("?" in glob or "[" in glob) and not (glob + path).isascii()


def pathspec_departure(glob: str, path: str) -> str | None:
    """Why pathspec's answer may differ from git's (and the matcher's), or ``None``."""
    if "\n" in path:
        return "pathspec's regular expressions do not let * or ? match a newline"
    if glob.rstrip(" ").endswith("/**/"):
        return "pathspec lets a folders-only glob ending in /**/ match a file in that folder"
    if "***" in glob:
        return "pathspec takes a run of three * for *, git for ** (a/***/b is a/**/b)"
    if "[" in glob and any(mark in glob for mark in ("[!", "[^", "[:", "-")):
        return "pathspec lets a negated class or a range match /, and knows no [:name:]"
    return None


def pathspec_says(glob: str, path: str) -> bool | None:
    """pathspec's ``GitIgnoreSpec``, or ``None`` when it refuses the glob, or when the glob has
    more than four ``*``: pathspec's regular expressions backtrack (``*`` × 50 takes it
    longer than anyone waits), so those globs are compared with git only."""
    if glob.count("*") > 4:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pathspec

        try:
            try:
                spec = pathspec.GitIgnoreSpec.from_lines([glob], backend="simple")
            except TypeError:  # pathspec before 1.0: one backend, no choice
                spec = pathspec.GitIgnoreSpec.from_lines([glob])
        except Exception:  # pathspec raises its own errors and re's for a line it cannot read
            return None
        return bool(spec.match_file(path))


def check(globs: list[str], paths: list[str]) -> None:
    """Each pair against git, the path taken for a file and for a folder (made on disk); and
    against pathspec, for a file."""
    git = git_check_ignore(globs, paths)
    git_folders = git_check_ignore(globs, paths, folders=True)
    for glob in globs:
        for path in paths:
            ours = glob_matches(glob, path)
            if not git_compares_bytes(glob, path):
                assert ours is git[glob, path], (glob, path, "git", git[glob, path])
                folder = glob_matches(glob, path, folder=True)
                assert folder is git_folders[glob, path], (glob, path, "a folder", "git")
            spec = pathspec_says(glob, path)
            if spec is not None and spec is not ours:
                assert pathspec_departure(glob, path), (glob, path, "pathspec", spec)
                assert ours is git[glob, path], (glob, path)


def test_the_folder_catch_alls_agree_with_git_and_pathspec() -> None:
    paths = ["a/b", "a", "foo", "foo/bar", "foo/bar/baz", "x/foo/bar", "foo/bar/baz/q.py"]
    check(CATCH_ALLS, paths)
    assert pathspec_says("*/", "a/b") is True  # the comparison with pathspec is made
    for glob in ["*/", "**/", "**/*/**", "/**/", "**/**/"]:  # every path inside a folder
        assert [glob_matches(glob, p) for p in ("a/b", "a", "a/b/c")] == [True, False, True]
    # foo/**/: the folders below foo, so the files below them; not a file directly in foo
    assert [glob_matches("foo/**/", p) for p in ("foo/bar", "foo/bar/baz", "foo")] == [
        False,
        True,
        False,
    ]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(GLOBS, min_size=1, max_size=12, unique=True),
    st.lists(PATHS, min_size=1, max_size=12, unique=True),
)
def test_the_matcher_agrees_with_git_and_pathspec(globs: list[str], paths: list[str]) -> None:
    """Random and adversarial globs × paths, one ``git check-ignore`` per example."""
    check(globs, paths)


@pytest.mark.parametrize(("glob", "path", "expected"), CASES, ids=[f"{g}~{p}" for g, p, _ in CASES])
def test_the_documented_cases(glob: str, path: str, expected: bool) -> None:
    from tests._support.internals import expand_braces

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
    assert glob_matches("src/[[:nope:]]", "src/a") is False
    assert glob_matches("src/[z-a]", "src/a") is False  # an empty range, as in git


def test_a_path_longer_than_path_max_is_never_matched() -> None:
    from cuecard.core.engine._budget import Budget
    from cuecard.core.engine._path_limit import path_max

    limit = path_max()
    long = "a/" * (limit // 2) + "b.py"
    assert glob_matches("**/*.py", long) is False
    assert glob_matches("**/*.py", long[-limit:]) is True
    budget = Budget()
    assert budget.paths(("x.py", long)) == ("x.py",)
    assert budget.match("*a" + "?" * 10, long) is None
    assert f"PATH_MAX ({limit} bytes)" in (budget.reason() or "")


def test_a_spent_budget_answers_none_and_says_so() -> None:
    from cuecard.core.engine._budget import Budget

    budget = Budget(steps=3_000)
    path = "ab" * 500
    answers = [budget.match(f"*a{'?' * k}", path) for k in range(1, 6)]
    assert answers[0] is True
    assert None in answers
    assert "matcher steps" in (budget.reason() or "")


def _opcodes(matcher: Wildmatch, path: str) -> int:
    """The bytecode instructions Python runs for ``matcher.match(path)``: the work, counted."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
        return trace

    before = sys.gettrace()
    sys.settrace(trace)
    try:
        matcher.match(path)
    finally:
        sys.settrace(before)
    return count


@pytest.mark.parametrize(
    "family",
    [  # each ends in a "c", which the path never holds: the matcher reads the whole path
        lambda n: "*a" + "?" * n + "c",  # the issue's: a state set that never repeats
        lambda n: "*" + "[ab]" * (n // 4) + "c",
        lambda n: "**/" + "*a" * (n // 2) + "*c",
        lambda n: "**/" + "a/**/" * (n // 5) + "c",
        lambda n: "**/*" + "[!c]" * (n // 4) + "c/**/",
    ],
    ids=["star-questions", "classes", "stars", "folders", "folders-only"],
)
def test_the_work_per_path_character_does_not_grow_with_the_glob(
    family: Callable[[int], str],
) -> None:
    rng = random.Random(7)
    segments = ["".join(rng.choice("ab") for _ in range(250)) for _ in range(8)]
    path = "/".join(segments)  # 2,007 characters, 8 folders deep
    # The most any character costs: a glob whose state set is new at every character, so that
    # no step is remembered (the glob, 42 characters long).
    worst = Wildmatch("*a" + "?" * 40 + "c")
    worst.match("ab/ba")  # what a glob costs once, whatever the path: its character sets
    ceiling = _opcodes(worst, path) / len(path)
    work = {}
    for n in (40, 190):
        matcher = Wildmatch(family(n))
        matcher.match("ab/ba")
        work[n] = _opcodes(matcher, path) / len(path)
        assert matcher.match(path) is False
    assert len(family(190)) >= 180
    assert work[190] <= max(work[40], ceiling) * 1.05 + 1, (work, ceiling)
    assert ceiling < 120, ceiling  # about a hundred instructions per character, whatever the glob


@settings(max_examples=1500, deadline=None)
@given(GLOBS, PATHS)
def test_a_glob_set_agrees(glob: str, path: str) -> None:
    """``GlobSet`` (health, import, ingestion) runs the globs that cannot backtrack on ``re``."""
    from tests._support.internals import GlobSet

    assert GlobSet([glob]).match(path) is glob_matches(glob, path)


def test_a_glob_set_never_hands_a_backtracking_glob_to_re() -> None:
    from tests._support.internals import GlobSet

    globs = ["*a*a*a*a*a*a*a*a*a*a*a*a*b", "a/**/b/**/c", "src/**", "**/*.py", "docs/*/x"]
    assert [backtracks_linearly(g) for g in globs] == [False, False, True, True, True]
    assert GlobSet(globs[:2]).match("a" * 100_000) is False


QUICK_SEGMENTS = st.sampled_from(["a", "b", "a.py", ".py", "py", "b.sql", "-", "*", "", " ", "\n"])
QUICK_GLOBS = st.one_of(
    st.lists(st.sampled_from(GLOB_PIECES), min_size=1, max_size=8).map("".join),
    st.tuples(
        st.sampled_from(["", "", "**/", "**/*", "/", "!", "#"]),
        st.lists(QUICK_SEGMENTS, min_size=1, max_size=3).map("/".join),
        st.sampled_from(["", "", "/**", "/", " "]),
    ).map("".join),
)
QUICK_PATHS = st.one_of(PATHS, st.lists(QUICK_SEGMENTS, max_size=5).map("/".join))


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


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        GLOBS,
        st.lists(st.sampled_from([*GLOB_PIECES, "[", "\\", "[[:nope:]]", "[a"]), max_size=6).map(
            "".join
        ),
    )
)
def test_glob_error_says_what_building_the_matcher_raises(glob: str) -> None:
    raised: str | None = None
    try:
        Wildmatch(glob)
    except ValueError as exc:
        raised = str(exc)
    assert glob_error(glob) == raised
