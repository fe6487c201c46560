"""Opting in: a first memory file is enough, ``cuecard init`` refuses a folder inside a project
(unless ``--force``) and converts a DeltaDictum store it finds, and doctor names nested projects."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests._support.cli import Run, run_cli
from tests._support.deltadictum import make_dd

MEMORY = {
    "schema_version": 1,
    "id": "5d0c7f0e-3c1a-4f7e-9a51-0f3f7b2f4c11",
    "topic": "deploy/slots",
    "kind": "trap",
    "status": "active",
    "title": "Deploy with the blue and green slots",
    "body": "Swap the slots; never deploy onto the live one.",
    "not_derivable": "Learned in the March outage.",
    "triggers": [{"on": ["edit"], "paths": ["app/**"]}],
    "origin": "user_explicit",
    "source": "test",
    "created_at": "2026-11-01T00:00:00+00:00",
    "updated_at": "2026-11-01T00:00:00+00:00",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "app/x.py").write_text("x = 1\n")
    return root


@pytest.fixture
def here(repo: Path, cc: Run, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(repo)
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    return cc


def test_a_first_memory_file_opts_the_project_in(repo: Path, here: Run) -> None:
    memories = repo / ".cuecard/memories"
    memories.mkdir(parents=True)
    (memories / f"{MEMORY['id']}.json").write_text(json.dumps(MEMORY))
    code, out, err = here("list")
    assert code == 0, err
    assert "deploy/slots" in out
    code, out, err = here("match", "--event", "edit", "--path", "app/x.py")
    assert code == 0, err
    assert "Swap the slots" in out, err
    assert not (repo / ".cuecard/config.json").exists()
    code, out, _ = here("doctor", "--json")
    assert json.loads(out)["opted_in"] is True
    code, out, err = here("init", "--json")
    assert code == 0, err
    assert (repo / ".cuecard/config.json").is_file(), err


def test_an_empty_memories_folder_is_not_an_opt_in(repo: Path, here: Run) -> None:
    (repo / ".cuecard/memories").mkdir(parents=True)
    code, _, err = here("list")
    assert code == 1
    assert "has not opted in" in err


def test_init_inside_a_project_is_refused_without_force(repo: Path, here: Run) -> None:
    assert here("init")[0] == 0
    sub = repo / "app"
    code, _, err = here("init", str(sub))
    assert code == 2
    assert f"lies inside the cuecard project at {repo}" in err
    assert "--force" in err
    assert not (sub / ".cuecard").exists()
    code, out, err = here("init", "--force", "--json", str(sub))
    assert code == 0, err
    assert json.loads(out)["created"] is True, err
    assert here("init", str(sub))[0] == 0  # already a project of its own: nothing refused


def test_doctor_names_nested_projects(repo: Path, here: Run) -> None:
    assert here("init")[0] == 0
    assert here("init", "--force", str(repo / "app"))[0] == 0
    _, out, _ = here("doctor", "--json")
    nested = [n for n in json.loads(out)["notes"] if n["check"] == "nested"]
    assert len(nested) == 1
    assert nested[0]["message"].startswith("app/ holds a cuecard project")
    assert "nested" in here("doctor")[1]


def test_init_converts_a_deltadictum_store(repo: Path) -> None:
    make_dd(repo)
    result = run_cli("init", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["migrated"] == 7
    assert len(list((repo / ".cuecard/memories").glob("*.json"))) == 7
    again = run_cli("init", cwd=repo)
    assert "already initialised" in again.stderr
    assert "converted 0 memories" in again.stderr
    assert len(list((repo / ".cuecard/memories").glob("*.json"))) == 7
