"""The suite never writes into the developer's home: the root conftest gives the session a home
of its own (``tests._support.home``), and what a search or a DSH hook writes lands there."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from tests._support import home
from tests._support.cli import run_cli
from tests._support.dsh import dsh
from tests._support.project import add_migration_trap


def sessions() -> tuple[home.RealHome, Path]:
    assert home.REAL is not None, "the root conftest did not isolate the session"
    assert home.SESSION is not None, "the root conftest did not isolate the session"
    return home.REAL, home.SESSION.home


def test_the_session_and_its_children_run_in_a_home_of_their_own() -> None:
    real, session = sessions()
    assert session != real.home
    assert real.home not in session.parents
    child = subprocess.run(
        [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    env = json.loads(child.stdout)
    assert env["HOME"] == str(session)
    for name, relative in home.XDG.items():
        assert env[name] == str(session / relative), name
    assert not set(home.DROPPED) & set(env)


def test_a_folder_vault_search_keeps_its_index_out_of_the_real_home(tmp_path: Path) -> None:
    real, session = sessions()
    name = f"vault-{uuid.uuid4().hex[:12]}"
    root = tmp_path / name
    assert run_cli("vault", "init", "--vault", str(root), cwd=tmp_path).returncode == 0
    note = root / "notes" / "environment.md"
    note.write_text(note.read_text() + "- deploys go through the staging gate\n", "utf-8")
    found = run_cli("vault", "search", "staging", "--json", "--vault", str(root), cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["count"] == 1
    # the index exists, nowhere in the real cache, in the session's
    assert list(real.cuecard_cache.glob(f"vaults/{name}-*")) == []
    made = list((session / ".cache" / "cuecard" / "vaults").glob(f"{name}-*"))
    assert [p for p in made if (p / "recall.sqlite3").is_file()], made


def test_a_dsh_hook_keeps_what_it_handed_out_of_the_real_home(project: Path) -> None:
    real, session = sessions()
    add_migration_trap(project)
    session_id = f"isolation-{uuid.uuid4().hex}"
    payload = {
        "session_id": session_id,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "edit",
        "tool_input": {"file_path": str(project / "migrations" / "0001.sql")},
        "tool_response": "The file was edited.",
    }
    done = dsh("hook", "PostToolUse", stdin=json.dumps(payload), cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Applied migrations are immutable" in done.stdout
    handed = Path("cuecard", "dsh-handed", hashlib.sha256(session_id.encode()).hexdigest()[:24])
    assert not (real.cuecard_config.parent / handed).with_suffix(".json").exists()
    assert (session / ".config" / handed).with_suffix(".json").is_file()
    assert os.environ["HOME"] == str(session)


def test_gits_environment_is_dropped_and_restored(tmp_path: Path) -> None:
    developer = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Exported Name",
        "GIT_COMMITTER_EMAIL": "exported@example.com",
        "GIT_DIR": str(tmp_path / "elsewhere.git"),
    }
    environ = dict(developer)
    suite = home.REAL, home.SESSION
    session = home.isolate(environ)
    try:
        assert not [
            name for name in environ if name.startswith("GIT_") and name != "GIT_CONFIG_NOSYSTEM"
        ]
        assert environ["GIT_CONFIG_NOSYSTEM"] == "1"
        repo = tmp_path / "repo"
        git = ["git", "-c", "user.name=seed", "-c", "user.email=seed@example.com"]
        subprocess.run(["git", "init", "-q", str(repo)], check=True, env=environ)
        subprocess.run(
            [*git, "commit", "-q", "--allow-empty", "-m", "seed"], cwd=repo, check=True, env=environ
        )
        author = subprocess.run(
            ["git", "log", "-1", "--format=%an <%ae>"],
            cwd=repo,
            check=True,
            env=environ,
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert author == "seed <seed@example.com>"
    finally:
        home.restore(session, environ)
        home.REAL, home.SESSION = suite
    assert environ == developer
