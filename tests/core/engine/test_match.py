"""``cuecard match`` classifies an event as the hooks do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.cli import Run
from tests._support.project import add, make_project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cc: Run) -> Path:
    store = make_project(tmp_path / "repo")
    add(
        store,
        title="Edits of src need a migration",
        triggers=[{"on": ["edit"], "paths": ["src/**"]}],
    )
    add(
        store,
        title="New files in src are registered",
        triggers=[{"on": ["write"], "paths": ["src/**"]}],
    )
    (store.root / "src").mkdir()
    (store.root / "src" / "a.py").write_text("x = 1\n")
    monkeypatch.chdir(store.root)
    assert cc("compile")[0] == 0
    return store.root


def titles(cc: Run, *args: str) -> tuple[str, list[str]]:
    code, out, err = cc("match", *args, "--json")
    assert code == 0, err
    report = json.loads(out)
    return report["event"]["kind"], [d["title"] for d in report["deliveries"]]


def test_a_write_over_an_existing_file_is_an_edit_as_in_the_hooks(project: Path, cc: Run) -> None:
    assert titles(cc, "--event", "write", "--path", "src/a.py") == (
        "edit", ["Edits of src need a migration"],
    )  # fmt: skip
    assert titles(cc, "--event", "write", "--path", "src/new.py") == (
        "write", ["New files in src are registered"],
    )  # fmt: skip
    assert titles(cc, "--event", "edit", "--path", str(project / "src/a.py"))[0] == "edit"


@pytest.mark.parametrize("path", ["../elsewhere/a.py", "/etc/passwd", "src/../../x.py"])
def test_a_path_outside_the_repository_is_an_error(project: Path, cc: Run, path: str) -> None:
    code, out, err = cc("match", "--event", "edit", "--path", path)
    assert code == 2
    assert out == ""
    assert f"--path {path}: outside the repository" in err
