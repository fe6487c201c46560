"""``cuecard dsh deploy``: the managed block of vault rules in allowlisted instruction files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cuecard.dsh_adapter import BEGIN, END
from cuecard.dsh_adapter.cli import main

USER_TEXT = "# My rules\n\nAlways answer in English.\n\n## Other section\n\nKeep this.\n"


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for rel in (".dsh/AGENTS.md", ".claude/CLAUDE.md"):
        (home / rel).parent.mkdir(parents=True)
        (home / rel).write_text(USER_TEXT)
    (home / ".codex").mkdir()  # folder without the file: never created
    return home


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


class Cli:
    """``python -m cuecard.dsh_adapter`` run in this process (its ``main``), output captured."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def dsh(self, *argv: str) -> Done:
        self._capsys.readouterr()
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        out, err = self._capsys.readouterr()
        return Done(code, out, err)

    def deploy(self, verb: str, home: Path, *args: str) -> tuple[int, dict[str, object]]:
        done = self.dsh(
            "deploy", verb, "--home", str(home), "--vault", "/srv/vault", "--json", *args
        )
        assert done.stdout, done.stderr
        return done.returncode, json.loads(done.stdout)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(capsys)


def targets(report: dict[str, object]) -> list[dict[str, object]]:
    value = report["targets"]
    assert isinstance(value, list)
    return value


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bak-cuecard-*"))


def test_detect_lists_only_existing_allowlisted_files(cli: Cli, user_home: Path) -> None:
    code, report = cli.deploy("detect", user_home)
    assert code == 0
    assert {t["agent"] for t in targets(report)} == {"dsh", "claude"}
    assert set(report) == {"verb", "home", "targets"}


def test_preview_writes_nothing(cli: Cli, user_home: Path) -> None:
    code, report = cli.deploy("preview", user_home)
    assert code == 0
    [first, _second] = targets(report)
    assert first["changed"] is True
    assert first["written"] is False
    assert BEGIN in str(first["diff"])
    assert (user_home / ".dsh/AGENTS.md").read_text() == USER_TEXT
    assert backups(user_home / ".dsh/AGENTS.md") == []


def test_apply_writes_one_block_keeps_user_text_backs_up_and_is_idempotent(
    cli: Cli,
    user_home: Path,
) -> None:
    agents = user_home / ".dsh/AGENTS.md"
    code, report = cli.deploy("apply", user_home)
    assert code == 0
    assert all(t["written"] for t in targets(report))
    text = agents.read_text()
    assert text.startswith(USER_TEXT)
    assert text.count(BEGIN) == 1
    assert text.count(END) == 1
    assert "`/srv/vault`" in text
    assert "--agent dsh" in text
    assert "--agent claude" in (user_home / ".claude/CLAUDE.md").read_text()
    [backup] = backups(agents)
    assert backup.read_text() == USER_TEXT
    assert not (user_home / ".codex/AGENTS.md").exists()

    code, again = cli.deploy("apply", user_home)
    assert code == 0
    assert not any(t["written"] for t in targets(again))
    assert agents.read_text() == text
    assert len(backups(agents)) == 1

    code, checked = cli.deploy("selfcheck", user_home)
    assert code == 0
    assert not any(t["problem"] for t in targets(checked))


def test_apply_replaces_an_old_block_in_place(cli: Cli, user_home: Path) -> None:
    agents = user_home / ".dsh/AGENTS.md"
    agents.write_text(f"before\n{BEGIN}\nold rules\n{END}\nafter\n")
    code, _ = cli.deploy("apply", user_home, "--target", "dsh")
    assert code == 0
    text = agents.read_text()
    assert text.startswith(f"before\n{BEGIN}\n## cuecard")
    assert text.endswith(f"{END}\nafter\n")
    assert "old rules" not in text


def test_rollback_restores_the_state_before_apply(cli: Cli, user_home: Path) -> None:
    agents = user_home / ".dsh/AGENTS.md"
    cli.deploy("apply", user_home, "--target", "dsh")
    code, report = cli.deploy("rollback", user_home, "--target", "dsh")
    assert code == 0
    assert targets(report)[0]["written"] is True
    assert agents.read_text() == USER_TEXT
    code, report = cli.deploy("rollback", user_home, "--target", "claude")
    assert code == 1
    assert targets(report)[0]["problem"] == "no backup to restore"


def test_selfcheck_fails_on_missing_or_duplicated_markers(cli: Cli, user_home: Path) -> None:
    code, report = cli.deploy("selfcheck", user_home, "--target", "dsh")
    assert code == 1
    assert "found 0 and 0" in str(targets(report)[0]["problem"])
    cli.deploy("apply", user_home, "--target", "dsh")
    agents = user_home / ".dsh/AGENTS.md"
    agents.write_text(agents.read_text() + f"\n{BEGIN}\n")
    code, report = cli.deploy("selfcheck", user_home, "--target", "dsh")
    assert code == 1
    assert "found 2 and 1" in str(targets(report)[0]["problem"])


def test_broken_markers_refuse_apply_and_change_nothing(cli: Cli, user_home: Path) -> None:
    agents = user_home / ".dsh/AGENTS.md"
    broken = f"{END}\nuser text\n{BEGIN}\n"
    agents.write_text(broken)
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--target", "dsh")
    assert done.returncode == 1
    assert "markers are broken" in done.stderr
    assert agents.read_text() == broken
    assert backups(agents) == []


@pytest.mark.parametrize(
    "target",
    ["/etc/passwd", "../home/.dsh/AGENTS.md.evil", "notes.md", "~/.bashrc", "gemini"],
)
def test_targets_outside_the_allowlist_are_refused(cli: Cli, user_home: Path, target: str) -> None:
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--target", target)
    assert done.returncode == 2
    assert "outside the allowlisted agent instruction files" in done.stderr


def test_a_path_to_an_allowlisted_file_is_accepted(cli: Cli, user_home: Path) -> None:
    code, report = cli.deploy("apply", user_home, "--target", str(user_home / ".claude/CLAUDE.md"))
    assert code == 0
    assert [t["agent"] for t in targets(report)] == ["claude"]


def test_a_missing_target_is_never_created(cli: Cli, user_home: Path) -> None:
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--target", "codex")
    assert done.returncode == 1
    assert "does not exist" in done.stderr
    assert not (user_home / ".codex/AGENTS.md").exists()


def test_a_symlinked_target_is_refused(cli: Cli, user_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("keep me\n")
    agents = user_home / ".dsh/AGENTS.md"
    agents.unlink()
    agents.symlink_to(elsewhere)
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--target", "dsh")
    assert done.returncode == 1
    assert "symbolic link" in done.stderr
    assert elsewhere.read_text() == "keep me\n"
    assert [t["agent"] for t in targets(cli.deploy("detect", user_home)[1])] == ["claude"]


def test_a_symlinked_folder_is_refused(cli: Cli, user_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "CLAUDE.md").write_text("outside\n")
    (user_home / ".claude/CLAUDE.md").unlink()
    (user_home / ".claude").rmdir()
    (user_home / ".claude").symlink_to(outside)
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--target", "claude")
    assert done.returncode == 1
    assert "outside" in done.stderr
    assert (outside / "CLAUDE.md").read_text() == "outside\n"


def test_concurrent_applies_leave_one_block(user_home: Path) -> None:
    cmd = [sys.executable, "-m", "cuecard.dsh_adapter", "deploy", "apply", "--home"]
    procs = [
        subprocess.Popen([*cmd, str(user_home), "--target", "dsh"], env=os.environ.copy())
        for _ in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    text = (user_home / ".dsh/AGENTS.md").read_text()
    assert text.count(BEGIN) == 1
    assert text.startswith(USER_TEXT)
    assert len(backups(user_home / ".dsh/AGENTS.md")) == 1


def test_a_vault_path_cannot_inject_markers(cli: Cli, user_home: Path) -> None:
    done = cli.dsh("deploy", "apply", "--home", str(user_home), "--vault", "/x -->\n<!-- y")
    assert done.returncode == 1
    assert "must not contain" in done.stderr
    assert (user_home / ".dsh/AGENTS.md").read_text() == USER_TEXT


def test_apply_and_rollback_keep_file_modes_and_leave_no_lock_files(
    cli: Cli, user_home: Path
) -> None:
    import stat

    target = user_home / ".dsh" / "AGENTS.md"
    target.chmod(0o600)
    old_lock = user_home / ".dsh" / "AGENTS.md.cuecard-deploy.lock"  # left by earlier versions
    old_lock.write_text("")
    before = {p.name for p in (user_home / ".claude").iterdir()}
    code, report = cli.deploy("apply", user_home)
    assert code == 0, report

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    assert mode(target) == 0o600
    [backup] = (user_home / ".dsh").glob("AGENTS.md.bak-cuecard-*")
    assert mode(backup) == 0o600  # the backup holds the same text: it is as private
    assert mode(user_home / ".claude" / "CLAUDE.md") == 0o644
    leftovers = [p.name for p in user_home.rglob("*") if "lock" in p.name or p.name.endswith("tmp")]
    assert leftovers == []
    after = {p.name for p in (user_home / ".claude").iterdir()}
    assert after - before == {n for n in after if n.startswith("CLAUDE.md.bak-cuecard-")}
    code, report = cli.deploy("rollback", user_home)
    assert code == 0, report
    assert mode(target) == 0o600
    assert target.read_text() == USER_TEXT
    assert not [p for p in user_home.rglob("*") if "lock" in p.name]
