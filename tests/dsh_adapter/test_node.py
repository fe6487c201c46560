"""The plugins' own tests: Node's test runner against the real DSH host packages from npm.

``scripts/deps/dsh-node.sh`` installs them (``npm ci``) before pytest runs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.credentials import CREDENTIALS, fragments

JS = Path(__file__).resolve().parents[2] / "packages" / "dsh-adapter" / "js"


@pytest.mark.slow
def test_node_plugin_tests_pass(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "Node.js >= 20 is needed for the DSH plugin tests"
    assert (JS / "node_modules" / "@deepseek-ai" / "dsh-tools").is_dir(), (
        "run scripts/deps/dsh-node.sh (scripts/test does) to install the plugins' dependencies"
    )
    tests = sorted(str(p.relative_to(JS)) for p in (JS / "test").glob("*.test.mjs"))
    assert len(tests) >= 2
    corpus = tmp_path / "credentials.json"
    corpus.write_text(json.dumps({"credentials": [
        {"family": c.family, "text": c.text, "fragments": list(fragments(c))} for c in CREDENTIALS
    ]}))  # fmt: skip
    env = {**os.environ, "CUECARD_TEST_PYTHON": sys.executable, "TMPDIR": str(tmp_path),
           "CUECARD_TEST_CREDENTIALS": str(corpus)}  # fmt: skip
    for key in ("CUECARD_VAULT", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env.pop(key, None)
    done = subprocess.run(
        [node, "--test", "--test-concurrency=2", *tests],
        cwd=JS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    summary = dict(re.findall(r"^# (tests|pass|fail|cancelled|skipped) (\d+)$", done.stdout, re.M))
    failures = "\n".join(re.findall(r"^not ok .*$", done.stdout, re.M))
    assert done.returncode == 0, f"{failures}\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    assert summary.get("fail") == "0", summary
    assert summary.get("cancelled") == "0", summary
    assert summary.get("skipped") == "0", summary  # the corpus test ran
    assert int(summary.get("pass", "0")) >= 15, summary
