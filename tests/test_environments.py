"""The test environments: scripts/setup's .venv and hatch's per-distribution matrix install the
same test tools, and each `dist.<package>` environment holds core and that distribution only."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HATCH = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
FOLDERS = {"core": "core", "hooks": "hooks", "dsh_adapter": "dsh-adapter", "ui": "ui"}
FOLDERS["wp_projection"] = "wp-projection"


def _requirement(line: str) -> str:
    return re.sub(r"\s+", "", line.split("#")[0].split(";")[0])


def test_every_hatch_dependency_is_a_requirement_scripts_setup_installs() -> None:
    wanted = {_requirement(d) for d in HATCH["envs"]["default"]["dependencies"]}
    lines = (ROOT / "tools/requirements-test.txt").read_text(encoding="utf-8").splitlines()
    listed = {_requirement(line) for line in lines if _requirement(line)}
    core = tomllib.loads((ROOT / "packages/core/pyproject.toml").read_text(encoding="utf-8"))
    vectors = {_requirement(d) for d in core["project"]["optional-dependencies"]["vectors"]}
    assert wanted - listed == vectors, "a test dependency is missing from requirements-test.txt"
    dist = HATCH["envs"]["dist"]
    added = dist["overrides"]["matrix"]["package"]["dependencies"]
    assert {_requirement(d) for d in dist["dependencies"]} | {
        _requirement(entry["value"]) for entry in added
    } == wanted, "the full environment and the matrix install different test tools"


def test_the_matrix_has_one_environment_per_distribution_with_core_and_it_only() -> None:
    dist = HATCH["envs"]["dist"]
    (matrix,) = dist["matrix"]
    assert sorted(matrix["package"]) == sorted(FOLDERS)
    assert sorted(p.name for p in (ROOT / "packages").iterdir() if p.is_dir()) == sorted(
        FOLDERS.values()
    )
    base = [member["path"] for member in dist["workspace"]["members"]]
    assert base == ["packages/core"]
    extra = dist["overrides"]["matrix"]["package"]["workspace"]["members"]
    for package, folder in FOLDERS.items():
        added = [entry["value"] for entry in extra if package in entry["if"]]
        assert added == ([] if package == "core" else [f"packages/{folder}"]), package
    for package in FOLDERS:
        assert (ROOT / "tests" / package).is_dir(), package


def test_scripts_test_runs_each_distribution_in_its_environment_and_the_rest_once() -> None:
    script = (ROOT / "scripts/test").read_text(encoding="utf-8")
    assert "for package in core hooks dsh_adapter wp_projection ui; do" in script
    assert 'run "dist.$package:test"' in script
    assert "pytest tests/integration tests/e2e tests/test_*.py" in script
    tops = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert tops == {*FOLDERS, "integration", "e2e", "_support"}, "a test folder no run covers"
