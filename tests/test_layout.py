"""The workspace rules: one namespace, five distributions, light package imports."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "core": "core",
    "hooks": "hooks",
    "dsh-adapter": "dsh_adapter",
    "wp-projection": "wp_projection",
    "ui": "ui",
}


def test_no_distribution_ships_the_namespace_init() -> None:
    assert list(ROOT.glob("packages/*/src/cuecard/__init__.py")) == []


@pytest.mark.parametrize("folder", sorted(PACKAGES))
def test_each_package_has_its_files(folder: str) -> None:
    base = ROOT / "packages" / folder
    package = base / "src" / "cuecard" / PACKAGES[folder]
    for path in (
        base / "pyproject.toml",
        base / "README.md",
        base / "CHANGELOG.md",
        package / "__init__.py",
        package / "__about__.py",
        package / "py.typed",
    ):
        assert path.is_file(), path
    assert "## Unreleased" in (base / "CHANGELOG.md").read_text()
    assert (ROOT / "tests" / PACKAGES[folder]).is_dir()


@pytest.mark.parametrize("folder", sorted(set(PACKAGES) - {"core"}))
def test_satellites_pin_core_with_a_range(folder: str) -> None:
    project = tomllib.loads((ROOT / "packages" / folder / "pyproject.toml").read_text())["project"]
    core = [d for d in project["dependencies"] if d.startswith("cuecard-core")]
    assert core, "a satellite depends on cuecard-core"
    assert "==" not in core[0] and ">=" in core[0] and "<" in core[0]
    assert not [d for d in project["dependencies"] if d.startswith("cuecard-") and d not in core]


@pytest.mark.parametrize("module", sorted(PACKAGES.values()))
def test_all_lists_exactly_the_public_names(module: str) -> None:
    package = importlib.import_module(f"cuecard.{module}")
    assert package.__all__ == sorted(package.__all__)
    for name in package.__all__:  # every listed name resolves (lazily or not)
        assert getattr(package, name) is not None
    own = {  # every public object the package itself defines or re-exports is listed
        name
        for name, value in vars(package).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and getattr(value, "__module__", "").startswith("cuecard.")
    }
    assert own <= set(package.__all__)


def test_root_pyproject_is_not_a_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "project" not in config
    assert len(config["tool"]["hatch"]["envs"]["default"]["workspace"]["members"]) == 5


def test_importing_core_pulls_in_nothing_heavy() -> None:
    code = (
        "import sys, cuecard.core, cuecard.core._text, cuecard.core._fsio, cuecard.core._globs\n"
        "heavy = ('pydantic', 're2', 'httpx', 'numpy', 'pathspec')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
