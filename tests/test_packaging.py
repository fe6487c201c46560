"""Each distribution carries the metadata an index and a user need: license, readme, classifiers.

Building them and installing cuecard from the wheels is CI's scripts/check-install; this checks
the declarations it builds from.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ["core", "hooks", "dsh-adapter", "wp-projection", "ui"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_distribution_declares_its_metadata(folder: str) -> None:
    base = ROOT / "packages" / folder
    project = tomllib.loads((base / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    # the project's licence first; beside it only the licences of third-party text it ships
    assert project["license-files"][0] == "LICENSE"
    for other in project["license-files"][1:]:
        assert Path(other).name.startswith("LICENSE-"), other
        assert (base / other).is_file(), other
    assert (base / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert project["readme"] == "README.md"
    assert (base / "README.md").is_file()
    assert project["authors"]
    assert project["keywords"]
    classifiers = project["classifiers"]
    assert classifiers == sorted(classifiers)
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert project["requires-python"] == ">=3.11"


def test_the_sdist_of_a_package_with_an_include_list_ships_the_license() -> None:
    text = (ROOT / "packages" / "dsh-adapter" / "pyproject.toml").read_text(encoding="utf-8")
    sdist = tomllib.loads(text)["tool"]["hatch"]["build"]["targets"]["sdist"]
    assert {"LICENSE", "/LICENSE"} & set(sdist["include"])
