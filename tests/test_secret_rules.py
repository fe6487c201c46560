"""Core's generated credential rules are those of the pinned detect-secrets release: the module
``tools/secrets/detect_secrets_rules.py`` writes equals the one committed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_rules_match_the_pinned_detect_secrets() -> None:
    pin = next(
        line.split()[0]
        for line in (ROOT / "tools/requirements-test.txt").read_text().splitlines()
        if line.startswith("detect-secrets==")
    )
    from importlib.metadata import version

    assert f"detect-secrets=={version('detect-secrets')}" == pin
    script = ROOT / "tools/secrets/detect_secrets_rules.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_dsh_plugins_rules_are_cores() -> None:
    """The DSH plugins' second pass (packages/dsh-adapter/js/shared/secrets.js) is generated from
    core's rules; ``tools/secrets/js_rules.py --check`` finds it up to date."""
    script = ROOT / "tools/secrets/js_rules.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
