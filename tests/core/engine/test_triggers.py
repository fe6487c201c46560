"""Keyword and command triggers fire on the forms people write (issues 17.1 and 19.4).

Through the CLI: ``cuecard add`` makes the memory, ``cuecard match`` shows what a hook would
deliver, ``cuecard add --help`` documents the syntax, ``cuecard health`` reports a command
trigger that can never fire.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuecard.core.engine._words import normalise_word, words
from tests._support.cli import run_cli

MEMORY = ["--kind", "trap", "--body", "Body of a trigger test memory.", "--not-derivable", "test"]


def add(project: Path, topic: str, *trigger: str) -> str:
    result = run_cli("add", "--topic", topic, "--title", f"Memory {topic}", *MEMORY, *trigger,
                     cwd=project)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def delivered(project: Path, *event: str) -> list[str]:
    result = run_cli("match", "--json", *event, cwd=project)
    assert result.returncode == 0, result.stderr
    return [d["id"] for d in json.loads(result.stdout)["deliveries"]]


PROMPTS = {
    "final-period": ("migration", "…add a changelog entry that mentions the new migration.", True),
    "plural": ("migration", "are the migrations numbered by hand?", True),
    "capital-and-comma": ("migration", "Migration, then deploy", True),
    "parenthesis": ("migration", "(see the migration)", True),
    "possessive": ("migration", "the migration's number", True),
    "inflected-phrase": ("payment retry", "Payment retries fail twice", True),
    "other-word": ("migration", "migrate the database", False),
    "inside-a-word": ("deploy", "the deployment-free build", False),
    "identifier": ("v2", "use the v2 API.", True),
    "part-of-a-hyphenated-word": ("commit", "run the pre-commit hooks", True),
    "hyphenated-keyword": ("pre-commit", "run pre commit again", True),
    "dotted-name": ("node", "upgrade node.js first", True),
}


@pytest.mark.parametrize(("keyword", "prompt", "fires"), PROMPTS.values(), ids=list(PROMPTS))
def test_keywords_match_the_same_word(
    project: Path, keyword: str, prompt: str, fires: bool
) -> None:
    ident = add(project, "words/keyword", "--on", "prompt", "--keywords", keyword)
    assert (delivered(project, "--event", "prompt", "--prompt", prompt) == [ident]) is fires


COMMANDS = {
    "trailing-star": ("rm -rf build*", "rm -rf build-old", True),
    "trailing-star-exact": ("rm -rf build*", "rm -rf build", True),
    "trailing-star-other": ("rm -rf build*", "rm -rf dist", False),
    "trailing-slash-in-command": ("rm -rf build", "rm -rf build/", True),
    "trailing-slash-in-pattern": ("rm -rf build/", "rm -rf build", True),
    "longer-command": ("alembic downgrade", "alembic downgrade -1", True),
    "program-by-path": ("alembic downgrade", "/usr/bin/alembic downgrade", True),
    "in-a-compound": ("rm -rf build*", "make && rm -rf build2 && ls", True),
}


@pytest.mark.parametrize(("pattern", "command", "fires"), COMMANDS.values(), ids=list(COMMANDS))
def test_command_patterns(project: Path, pattern: str, command: str, fires: bool) -> None:
    ident = add(project, "words/command", "--on", "run", "--commands", pattern)
    assert (delivered(project, "--event", "run", "--command", command) == [ident]) is fires


@pytest.mark.parametrize("pattern", ["rm -rf b*ld", "r* -rf build", "rm -rf build**"])
def test_a_wildcard_the_matcher_cannot_honour_is_refused_with_the_syntax(
    project: Path, pattern: str
) -> None:
    result = run_cli("add", "--topic", "words/bad", "--title", "Bad", *MEMORY, "--on", "run",
                     "--commands", pattern, cwd=project)  # fmt: skip
    assert result.returncode == 1
    assert f'triggers[0].commands[0] "{pattern}" uses * other than at the end' in result.stderr
    assert "rm -rf build*" in result.stderr  # the syntax, with an example


def test_add_help_documents_the_trigger_syntax(project: Path) -> None:
    out = run_cli("add", "--help", cwd=project).stdout
    assert "trigger syntax:" in out
    assert "'rm -rf build*'" in out
    assert "a trailing / is ignored" in out
    assert "same word" in out


@given(st.text(max_size=60))
def test_words_are_never_empty_and_ignore_surrounding_punctuation(text: str) -> None:
    found = words(text)
    assert all(found)
    assert words(text + ".") == found
    assert words(f"({text})") == words(text)


@given(st.from_regex(r"[a-z]{3,12}", fullmatch=True))
def test_a_plural_is_the_same_word(word: str) -> None:
    """The rule for a final s: dropped after a part with a vowel before its last letter, and
    never from ``-ss``, ``-us`` or ``-is`` (``status``, ``analysis``)."""
    assert normalise_word(word.capitalize()) == normalise_word(word)
    if any(c in "aeiou" for c in word[:-1]) and not word.endswith(("s", "u", "i")):
        assert normalise_word(word + "s") == normalise_word(word)


@pytest.mark.parametrize(
    ("word", "same"),
    [("policies", "policy"), ("retried", "retry"), ("running", "run"), ("caching", "cache"),
     ("boxes", "box"), ("Migrations.", "migration")],
)  # fmt: skip
def test_inflections_meet(word: str, same: str) -> None:
    assert normalise_word(word) == normalise_word(same)


@pytest.mark.parametrize("word", ["status", "analysis", "user_ids", "v2s", "getUsers", "数据库"])
def test_identifiers_and_non_plurals_are_left_alone(word: str) -> None:
    assert normalise_word(word) == word.lower()


def test_health_and_doctor_report_a_command_trigger_that_can_never_fire(project: Path) -> None:
    never = add(project, "words/never", "--on", "run", "--commands", "make && make test",
                "--commands", 'git commit -m "wip"')  # fmt: skip
    fine = add(project, "words/fine", "--on", "run", "--commands", "rm -rf build*")
    assert delivered(project, "--event", "run", "--command", 'git commit -m "wip"') == []
    health = json.loads(run_cli("health", "--json", cwd=project).stdout)
    dead = {(d["id"], d["command"]): d["reason"] for d in health["dead_commands"]}
    assert set(dead) == {(never, "make && make test"), (never, 'git commit -m "wip"')}
    assert "holds several commands" in dead[(never, "make && make test")]
    assert 'reads as "git commit -m wip"' in dead[(never, 'git commit -m "wip"')]
    assert fine not in {ident for ident, _ in dead}
    doctor = json.loads(run_cli("doctor", "--json", cwd=project).stdout)
    assert doctor["counts"]["dead_commands"] == 2
    assert any(n["check"] == "dead_commands" for n in doctor["notes"])
    text = run_cli("health", cwd=project).stdout
    assert "Command triggers that never fire" in text
    assert "make && make test" in text
