"""A value a choice flag refuses is never printed back (a credential pasted into ``--kind``
stays off the screen); the error names the allowed values instead. Every choice of every
command, the satellites' included, found by walking the whole parser."""

from __future__ import annotations

import argparse

import pytest

from cuecard.core.cli import build_parser, main

SECRET = "ghp_" + "Q7x" * 12  # shaped like a GitHub token


def _choice_actions(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.Action]]:
    """(command path, action) for every action with choices, subcommands included."""
    found: list[tuple[tuple[str, ...], argparse.Action]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):  # the lazy ones too
            found.append((path, action))
            for name, child in action.choices.items():
                found.extend(_choice_actions(child, (*path, name)))
        elif action.choices is not None:
            found.append((path, action))
    return found


CHOICES = _choice_actions(build_parser())
assert len(CHOICES) >= 20, "the walk lost the commands"  # add --kind, list --status, install …


def _args(path: tuple[str, ...], action: argparse.Action) -> list[str]:
    if action.option_strings:
        return [*path, action.option_strings[0], SECRET]
    return [*path, SECRET]  # a positional choice (a command, a harness, a format) comes first


@pytest.mark.parametrize(
    ("path", "action"),
    CHOICES,
    ids=[" ".join(_args(p, a)).replace(SECRET, "VALUE") for p, a in CHOICES],
)
def test_a_refused_choice_is_not_printed_back(
    path: tuple[str, ...], action: argparse.Action, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(_args(path, action))
    assert ended.value.code == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert "Q7x" not in out + err
    named = err.rsplit("choose one of: ", 1)[-1].strip().split(", ")
    assert set(named) == {str(c) for c in action.choices or ()}
