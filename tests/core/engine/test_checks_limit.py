"""Check evaluation's time limit is written down where checks are documented, and measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_core_readme_states_the_time_limit_of_checks() -> None:
    text = " ".join((ROOT / "packages/core/README.md").read_text(encoding="utf-8").split())
    section = text[text.index("## Checks") :]
    assert "linear in the text" in section
    assert "first 256 KB" in section
    assert "a file over 1 MB is read as its first 256 KB" in section
    assert "tools/bench/checks.py" in section


def test_the_benchmark_measures_the_worst_case_and_prints_one_json_object() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools/bench/checks.py"), "--repeat", "1", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    result = json.loads(out.stdout)
    assert result["judged_bytes"] == 256 * 1024
    assert {c["pattern"] for c in result["cases"]} >= {"nested quantifier (a+)+$", "(x+x+)+y"}
    assert result["worst"] in result["cases"]
    assert [row["chars"] for row in result["scaling"]] == [65536, 131072, 262144, 1048576]
