"""Capture: user corrections, failure-then-fix evidence, and the footprint they are read from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cuecard.core.engine import Footprint, has_correction, touched_paths
from cuecard.hooks._capture import command_key, evidence, is_correction, request_text
from tests._support.internals import MAX_BYTES, PREVIEW_CHARS

CORRECTIONS = [
    "No, that's not what I asked for.",
    "no. revert that",
    "That's wrong: the key comes from the order.",
    "this is not right, use the helper",
    "You broke the billing tests.",
    "you didn't run the migrations",
    "I told you to keep the old API.",
    "Please undo the last change.",
    "Use the retry helper instead.",
    "Don't touch the generated files.",
    "Stop changing the config.",
    "Wrong file: the logic lives in charge.py.",
    "Eso no es lo que te pedí.",
    "No uses print, usa el logger.",
    "Te dije que no cambies la API.",
]
NOT_CORRECTIONS = [
    "Do not forget to update the roadmap after this.",
    "Run the suite and stop the UI server when done.",
    "Use zod for the tool schema.",
    "No tests exist for this branch yet, add some.",
    "Undoing is not in scope here.",
    "Necesito que no se rompa el build en Windows.",
    "Add retries to the charge flow.",
    "Nothing else to do today, thanks!",
    "Now deploy it to staging.",
    "Explain why the tests are slow.",
    "Write a migration for the new column.",
]


@pytest.mark.parametrize("prompt", CORRECTIONS)
def test_corrections_are_detected(prompt: str) -> None:
    assert is_correction(prompt)


@pytest.mark.parametrize("prompt", NOT_CORRECTIONS)
def test_ordinary_prompts_are_not_corrections(prompt: str) -> None:
    assert not is_correction(prompt)


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("pytest -x tests/test_a.py", "pytest"),
        ("/usr/bin/pytest", "pytest"),
        ("python -m pytest -q", "python -m pytest"),
        ("python3.12 -m mypy src", "python -m mypy"),
        ("git commit -m 'x'", "git commit"),
        ("npm --silent test", "npm test"),
        ("CI=1 cargo build --release", "cargo build"),
        ("", ""),
    ],
)
def test_command_keys(command: str, key: str) -> None:
    assert command_key(command) == key


def tool(kind: str, outcome: str, command: str = "", t: float = 0.0) -> dict[str, object]:
    record: dict[str, object] = {"e": "tool", "t": t, "tool": "x", "kind": kind, "outcome": outcome}
    if command:
        record["command"] = command
    return record


PROMPT = {"e": "prompt", "t": 1.0}


def test_failure_then_fix_after_an_edit() -> None:
    turn = [
        PROMPT,
        tool("run", "fail", "pytest -q"),
        tool("edit", "ok"),
        tool("run", "ok", "pytest -q"),
    ]
    found = evidence(turn)
    assert found is not None
    assert found.reasons == ("`pytest` failed, then succeeded after a change",)
    assert "cuecard-save" in request_text(found)
    assert ".cuecard/inbox/" in request_text(found)


def test_failure_then_fix_with_other_arguments() -> None:
    turn = [PROMPT, tool("run", "fail", "npm test"), tool("run", "ok", "npm test -- --runInBand")]
    assert evidence(turn) is not None


@pytest.mark.parametrize(
    "turn",
    [
        [PROMPT, tool("run", "fail", "pytest"), tool("run", "ok", "pytest")],  # a flaky rerun
        [PROMPT, tool("run", "fail", "pytest"), tool("edit", "ok")],  # never fixed
        [PROMPT, tool("run", "fail", "pytest"), tool("edit", "ok"), tool("run", "ok", "ruff .")],
        [PROMPT, tool("run", "ok", "pytest"), tool("edit", "ok"), tool("run", "ok", "pytest")],
        [PROMPT, tool("edit", "fail"), tool("edit", "ok")],  # a refused edit is not knowledge
        [PROMPT, tool("run", "fail", "pytest"), tool("edit", "ok"), tool("run", "fail", "pytest")],
        [PROMPT, tool("run", "unknown", "pytest"), tool("edit", "ok"), tool("run", "ok", "pytest")],
    ],
)
def test_no_evidence(turn: list[dict[str, object]]) -> None:
    assert evidence(turn) is None


def test_only_the_current_turn_counts() -> None:
    earlier = [
        PROMPT,
        tool("run", "fail", "pytest"),
        tool("edit", "ok"),
        tool("run", "ok", "pytest"),
    ]
    assert evidence(earlier) is not None
    assert evidence([*earlier, {"e": "prompt", "t": 9.0}, tool("edit", "ok")]) is None


def test_a_correction_counts_only_after_the_agent_acted() -> None:
    correction = {"e": "prompt", "t": 5.0, "correction": True, "preview": "no, wrong file"}
    assert evidence([correction, tool("edit", "ok")]) is None
    found = evidence([PROMPT, tool("edit", "ok"), correction])
    assert found is not None
    assert found.reasons == ('the user corrected you ("no, wrong file")',)


def test_evidence_keys_differ_per_evidence_set() -> None:
    a = [
        PROMPT,
        tool("run", "fail", "pytest", 2),
        tool("edit", "ok"),
        tool("run", "ok", "pytest", 3),
    ]
    b = [*a, {"e": "prompt", "t": 4.0}, *a[1:3], tool("run", "ok", "pytest", 5)]
    found_a, found_b = evidence(a), evidence(b)
    assert found_a is not None
    assert found_b is not None
    assert found_a.key != found_b.key


# -- the footprint --------------------------------------------------------------------------------


def test_the_footprint_keeps_no_prompt_text(tmp_path: Path) -> None:
    fp = Footprint(str(tmp_path), "s/1", clock=lambda: 100.0)
    fp.prompt(correction=False, preview="the secret plan")
    fp.prompt(correction=True, preview="No, wrong: token=abcdef123456 " + "x" * 500)
    fp.tool("Bash", "run", command="curl -H 'Authorization: Bearer abc123def456ghi789jkl' x",
            paths=["src/a.py", "src/a.py"], outcome="fail", exit_code=2)  # fmt: skip
    text = Path(fp.path).read_text()
    assert "secret plan" not in text
    assert "abcdef123456" not in text
    assert "abc123def456" not in text
    records = fp.records()
    assert records[0] == {"t": 100.0, "e": "prompt"}
    assert records[1]["correction"] is True
    assert len(records[1]["preview"]) == PREVIEW_CHARS
    assert records[2]["paths"] == ["src/a.py"]
    assert records[2]["exit"] == 2
    assert "[redacted]" in records[2]["command"]
    assert Path(fp.path).parent.name.startswith("s_1~")  # a safe folder name


def test_the_footprint_stops_taking_calls_past_4_mb(tmp_path: Path) -> None:
    fp = Footprint(str(tmp_path), "big")
    os.makedirs(os.path.dirname(fp.path))
    with open(fp.path, "w") as handle:
        handle.write(json.dumps({"e": "tool", "kind": "edit", "paths": ["a"]}) + "\n")
        handle.write("x" * MAX_BYTES + "\n")
    assert fp.tool("Edit", "edit", paths=["b"]) is False
    assert fp.prompt(correction=True, preview="no") is False
    fp.stop("k1")
    records = fp.records()
    assert [r["e"] for r in records] == ["tool", "stop"]  # the torn line is skipped
    assert fp.asked() == {"k1"}


def test_readers_for_ingestion(tmp_path: Path) -> None:
    fp = Footprint(str(tmp_path), "s")
    fp.prompt(correction=True, preview="no")  # before the agent did anything
    assert not has_correction(str(tmp_path), "s")
    fp.tool("Edit", "edit", paths=["src/a.py"])
    fp.tool("Read", "read", paths=["src/a.py", "docs/b.md"])
    fp.prompt(correction=True, preview="no, wrong file")
    assert has_correction(str(tmp_path), "s")
    assert touched_paths(str(tmp_path), "s") == ["src/a.py", "src/a.py", "docs/b.md"]
    assert fp.touched() == {"src/a.py": 2, "docs/b.md": 1}
    assert [r["e"] for r in fp.turn()] == ["prompt"]
