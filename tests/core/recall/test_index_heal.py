"""A recall index is a cache: one that cannot be read is rebuilt from its source once, with one
line saying so; a second failure is an error naming the file and the fix; doctor checks it;
``cuecard vault reindex`` rebuilds it. Through the installed ``cuecard`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support.cli import run_cli

FACT = "The staging server listens on port 8443 behind the VPN."


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "vault"
    monkeypatch.setenv("CUECARD_VAULT", str(where))
    for args, stdin in ((["vault", "init"], None), (["vault", "submit", "--agent", "t"], FACT),
                        (["vault", "apply", "--auto"], None)):  # fmt: skip
        done = run_cli(*args, cwd=tmp_path, stdin=stdin)
        assert done.returncode == 0, done.stderr
    return where


def index_path(cwd: Path) -> Path:
    done = run_cli("vault", "status", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["index"]["path"])


def test_an_unreadable_vault_index_is_rebuilt_once_and_said(vault: Path, tmp_path: Path) -> None:
    index = index_path(tmp_path)
    index.write_bytes(b"garbage, not a database" * 200)
    doctor = run_cli("doctor", "--json", cwd=tmp_path)
    [found] = [p for p in json.loads(doctor.stdout)["problems"] if p["check"] == "recall"]
    assert found["message"] == f"the recall index {index} cannot be read (file is not a database)"
    assert "cuecard vault reindex" in found["hint"]
    done = run_cli("vault", "search", "staging port", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert FACT in done.stdout
    assert done.stderr == (
        f"cuecard: the recall index {index} could not be read (file is not a database); "
        f"rebuilding it from {vault}\n"
    )
    again = run_cli("vault", "search", "staging port", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (0, "")  # healed: nothing more to say
    doctor = run_cli("doctor", "--json", cwd=tmp_path)
    assert not [p for p in json.loads(doctor.stdout)["problems"] if p["check"] == "recall"]


def test_an_index_that_cannot_be_rebuilt_is_an_error_naming_the_file_and_the_fix(
    vault: Path, tmp_path: Path
) -> None:
    index = index_path(tmp_path)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    index.mkdir()  # not a file: SQLite cannot open it, and it cannot be deleted as one
    for args in (["vault", "search", "staging"], ["vault", "status"], ["vault", "reindex"]):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 1, (args, done.stdout)
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith(f"cuecard: the recall index {index} cannot be "), done.stderr
        assert "delete" in done.stderr or "remove it by hand" in done.stderr
    index.rmdir()
    done = run_cli("vault", "reindex", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["path"], report["facts"]) == (str(index), 1)
    assert report["notes"] >= 1
    assert FACT in run_cli("vault", "search", "staging", cwd=tmp_path).stdout


def test_an_unreadable_project_index_is_rebuilt_by_the_next_search(tmp_path: Path) -> None:
    import subprocess

    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for args in (["init"], ["add", "--topic", "ops/port", "--kind", "fact", "--title", "Port",
                 "--body", FACT, "--not-derivable", "ops repo", "--on", "prompt",
                 "--keywords", "staging"]):  # fmt: skip
        assert run_cli(*args, cwd=root).returncode == 0
    assert FACT in run_cli("recall", "staging", cwd=root).stdout
    index = root / ".cuecard" / "local" / "recall.sqlite3"
    index.write_bytes(b"\0" * 4096)
    doctor = run_cli("doctor", "--json", cwd=root)
    assert any(
        p["message"] == f"the recall index {index} cannot be read (file is not a database)"
        for p in json.loads(doctor.stdout)["problems"]
    ), doctor.stdout
    done = run_cli("recall", "staging", cwd=root)
    assert done.returncode == 0, done.stderr
    assert FACT in done.stdout
    assert done.stderr.count("could not be read") == 1
    assert "Traceback" not in done.stderr


def test_recall_in_a_project_whose_local_folder_is_a_link_writes_nothing_through_it(
    vault: Path, tmp_path: Path
) -> None:
    """A committed ``.cuecard/local`` link: ``cuecard recall`` builds no project index through
    it (before, ``recall.sqlite3`` landed in the link's target), says why the project's
    memories were not searched, and still answers from the vault."""
    import shutil
    import subprocess

    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert run_cli("init", cwd=root).returncode == 0
    local = root / ".cuecard" / "local"
    shutil.rmtree(local, ignore_errors=True)
    local.symlink_to(elsewhere)
    done = run_cli("recall", "staging", cwd=root)
    assert done.returncode == 0, done.stderr
    assert FACT in done.stdout
    assert f"project memories not searched: {local} is a symbolic link" in done.stderr
    assert list(elsewhere.iterdir()) == []
