"""The conversational recall benchmark's data file is frozen: it is exactly what its seeded
generator writes, it has all four question kinds in both splits, and every question's evidence
is a fact line of its own conversation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GENERATOR = ROOT / "tools/bench/recall_conversations.py"
DATA = ROOT / "tools/bench/recall_conversation_set.json"


def test_the_committed_set_is_what_the_generator_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "unchanged" in done.stderr


def test_both_splits_hold_every_kind_and_evidence_is_a_turn_of_the_conversation() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    kinds: dict[str, set[str]] = {"dev": set(), "heldout": set()}
    people: dict[str, set[str]] = {"dev": set(), "heldout": set()}
    for conv in data["conversations"]:
        lines = {
            line[2:]
            for body in conv["notes"].values()
            for line in body.splitlines()
            if line.startswith("- ")
        }
        for item in conv["questions"]:
            kinds[conv["split"]].add(item["kind"])
            assert item["evidence"], item
            assert set(item["evidence"]) <= lines, item
        people[conv["split"]] |= {line.split(":", 1)[0] for line in lines}
    assert kinds["dev"] == kinds["heldout"] == {"single", "multi", "time", "open"}
    assert not people["dev"] & people["heldout"]
