"""The installed skills: the save skill's examples are proposals that ingestion accepts."""

from __future__ import annotations

import json
import re

import pytest

from cuecard.core import find_secret
from cuecard.hooks._install import SKILLS, data_text
from tests._support.internals import MemoryProposal, RequestProposal

SAVE = data_text("skills", "cuecard-save", "SKILL.md")
EXAMPLES = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", SAVE, re.S)]


def test_the_save_skill_shows_a_memory_an_archive_and_a_revise() -> None:
    kinds = [e.get("request", "memory") for e in EXAMPLES]
    assert kinds == ["memory", "archive", "revise"]
    assert ".cuecard/inbox/<short-name>.json" in SAVE
    assert "cuecard schema proposal" in SAVE


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.get("request", "memory"))
def test_each_example_is_a_valid_proposal(example: dict[str, object]) -> None:
    model = RequestProposal if "request" in example else MemoryProposal
    model.model_validate(example)
    assert find_secret(json.dumps(example)) is None


@pytest.mark.parametrize("name", SKILLS)
def test_skills_have_frontmatter(name: str) -> None:
    text = data_text("skills", name, "SKILL.md")
    front = text.split("---\n")[1]
    assert front.startswith(f"name: {name}\n")
    assert "\ndescription: " in front


def test_the_review_skill_shows_status_and_the_ui() -> None:
    review = data_text("skills", "cuecard-review", "SKILL.md")
    assert "cuecard status" in review
    assert "cuecard ui" in review
