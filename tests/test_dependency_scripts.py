"""The set-up and dependency scripts' shared shell parts (scripts/deps/_lib.sh): the Node version
the README names is the one checked, a phase says how long it took, a failed command's own error
is shown, and no script drops the user's npm configuration."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "scripts" / "deps" / "_lib.sh"


def _lib(script: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path or "/usr/bin:/bin", "RETRY_PAUSE": "0", "HOME": "/nonexistent"}
    return subprocess.run(
        ["/bin/bash", "-c", f'LABEL=t; source "{LIB}"; {script}'],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def _node_min() -> int:
    found = re.search(r"^NODE_MIN=(\d+)$", LIB.read_text(encoding="utf-8"), re.M)
    assert found is not None
    return int(found.group(1))


def test_the_readme_names_the_node_version_the_scripts_check() -> None:
    for doc in ("README.md", "CONTRIBUTING.md"):
        named = set(re.findall(r"Node\.js (\d+) or newer", (ROOT / doc).read_text("utf-8")))
        assert named == {str(_node_min())}, doc


@pytest.mark.parametrize(
    ("version", "ok"), [("v18.19.0", False), ("v20.1.0", True), ("v22.3.1", True)]
)
def test_need_node_checks_the_version(tmp_path: Path, version: str, ok: bool) -> None:
    for tool, text in (("node", version), ("npm", "10.0.0")):
        (tmp_path / tool).write_text(f"#!/bin/sh\necho {text}\n")
        (tmp_path / tool).chmod(0o755)
    result = _lib("need_node", f"{tmp_path}:/usr/bin:/bin")
    assert (result.returncode == 0) is ok, result.stderr
    if not ok:
        assert f"Node.js {_node_min()} or newer is required" in result.stderr
        assert version.lstrip("v") in result.stderr


def test_need_node_names_what_is_missing(tmp_path: Path) -> None:
    result = _lib("need_node", str(tmp_path))
    assert result.returncode == 1
    assert "with npm is required (none on the PATH)" in result.stderr


def test_a_phase_is_one_line_with_its_time() -> None:
    result = _lib('phase "Python packages" true')
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert lines[0] == "t: Python packages…"
    assert re.fullmatch(r"t: Python packages: done in \d+ s", lines[1])
    failed = _lib('phase "apt: chromium" false')
    assert failed.returncode == 1
    assert re.fullmatch(r"t: apt: chromium: failed after \d+ s", failed.stderr.splitlines()[1])


def test_retry_shows_the_failing_commands_own_error() -> None:
    result = _lib("""retry sh -c 'echo "SELF_SIGNED_CERT_IN_CHAIN here" >&2; exit 3'""")
    assert result.returncode == 1
    assert result.stderr.count("\n    SELF_SIGNED_CERT_IN_CHAIN here\n") == 3, result.stderr
    assert "failed (attempt 3 of 3)" in result.stderr
    quiet = _lib("retry sh -c 'echo progress'")
    assert quiet.returncode == 0
    assert quiet.stderr == quiet.stdout == "", "a command that works says nothing"


def test_npm_settings_pass_the_users_configuration(tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    (prefix / "etc").mkdir(parents=True)
    (prefix / "etc" / "npmrc").write_text("cafile=/corp/ca.pem\nregistry=https://mirror.test/\n")
    result = subprocess.run(
        ["/bin/bash", "-c", f'LABEL=t; source "{LIB}"; npm_settings'],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), "PREFIX": str(prefix)},
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    if result.returncode == 127 or "npm: command not found" in result.stderr:
        pytest.skip("no npm on the PATH")
    assert "cafile=/corp/ca.pem\n" in result.stdout
    assert "registry=https://mirror.test/\n" in result.stdout


def test_no_script_drops_the_users_npm_configuration_or_hides_errors() -> None:
    scripts = [ROOT / "scripts" / "setup", *sorted((ROOT / "scripts" / "deps").glob("*.sh"))]
    for script in scripts:
        code = "\n".join(
            line
            for line in script.read_text("utf-8").splitlines()
            if not line.lstrip().startswith("#")
        )
        assert "--prefix" not in code, f"{script.name}: npm --prefix reads another global npmrc"
        assert "--silent" not in code, script.name
        assert "reporter=silent" not in code, script.name
