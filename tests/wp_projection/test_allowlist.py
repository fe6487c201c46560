"""The projection's names are an allowlist, one rule on both sides: the receiver's path rules and
the PHP bridge's check before sending are run over the same table and must agree row by row."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cuecard.wp_projection import FILENAME_PATTERN, PathRefused, record_path
from tests._support.wp_bridge import PHP, needs_php
from tests._support.wp_corpus import ALLOWLIST_TABLE

BRIDGE = (
    Path(__file__).resolve().parents[2]
    / "packages/wp-projection/src/cuecard/wp_projection/bridge/cuecard-bridge.php"
)

TABLE = ALLOWLIST_TABLE
IDS = [name[:40] for name, _ in TABLE]


def _python_accepts(name: str) -> bool:
    try:
        record_path("s", "agent", 1, 0, "admin", name)
    except PathRefused:
        return False
    return True


@pytest.mark.parametrize(("name", "accepted"), TABLE, ids=IDS)
def test_the_receiver_applies_the_allowlist(name: str, accepted: bool) -> None:
    assert _python_accepts(name) is accepted


@needs_php
def test_the_bridge_applies_the_same_rule_to_the_same_table(tmp_path: Path) -> None:
    assert PHP is not None
    table = tmp_path / "table.json"
    table.write_text(json.dumps([name for name, _ in TABLE]))
    script = tmp_path / "check.php"
    script.write_text(
        "<?php define('ABSPATH', '/'); function add_action() {} "
        f"include {json.dumps(str(BRIDGE))}; "
        "$out = array(); foreach (json_decode(file_get_contents($argv[1]), true) as $n) "
        "{ $out[] = Cuecard_Bridge::refused_filename($n); } "
        "echo json_encode(array('pattern' => Cuecard_Bridge::FILENAME_PATTERN, 'why' => $out));"
    )
    done = subprocess.run(
        [PHP, str(script), str(table)], capture_output=True, text=True, check=True, timeout=60
    )
    answer = json.loads(done.stdout)
    assert answer["pattern"] == FILENAME_PATTERN
    disagree = [
        (name, accepted, why)
        for (name, accepted), why in zip(TABLE, answer["why"], strict=True)
        if (why is None) is not accepted
    ]
    assert disagree == []
