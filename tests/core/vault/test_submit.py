"""Vault init, submission, credential refusal, archives, the lock."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cuecard.core.vault import VaultBusy
from cuecard.core.vault.folder import Vault, vault_lock

BIN = Path(sys.executable).parent
LAYOUTS = ("default", "unified-agent-memory")
INBOX = {"default": "inbox", "unified-agent-memory": "50-Agent-Context/Agent提交区"}


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(params=LAYOUTS)
def vault(request: pytest.FixtureRequest, cc: Run, tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "v"
    code, _, err = cc("vault", "init", "--vault", str(root), "--layout", request.param)
    assert code == 0, err
    return root, request.param


@pytest.fixture
def plain(cc: Run, tmp_path: Path) -> tuple[Path, str]:
    """A default-layout vault, for rules that do not depend on the layout."""
    root = tmp_path / "v"
    assert cc("vault", "init", "--vault", str(root))[0] == 0
    return root, "default"


def inbox_files(root: Path, layout: str) -> list[Path]:
    return sorted(p for p in (root / INBOX[layout]).glob("*.md") if p.name != "README.md")


# -- init ------------------------------------------------------------------------------------------


def test_init_creates_each_layout(cc: Run, tmp_path: Path) -> None:
    assert cc("vault", "init", "--vault", str(tmp_path / "d"))[0] == 0
    for rel in ("notes/environment.md", "inbox/processed", "review", "forgotten", "sessions"):
        assert (tmp_path / "d" / rel).exists(), rel
    code, _out, _ = cc(
        "vault", "init", "--vault", str(tmp_path / "u"), "--layout", "unified-agent-memory"
    )
    assert code == 0
    ctx = tmp_path / "u" / "50-Agent-Context"
    for rel in (
        "常用路径与环境.md",
        "上下文索引.md",
        "Agent提交区/已处理",
        "情境信息",
        "记忆遗忘区",
    ):
        assert (ctx / rel).exists(), rel


def test_init_never_overwrites_and_force_backs_up_first(cc: Run, tmp_path: Path) -> None:
    root = tmp_path / "v"
    assert cc("vault", "init", "--vault", str(root))[0] == 0
    env = root / "notes" / "environment.md"
    env.write_text("# env\n\n- my precious fact\n", encoding="utf-8")
    code, _, err = cc("vault", "init", "--vault", str(root))
    assert code == 1
    assert "already here" in err
    assert "--force" in err
    assert "my precious fact" in env.read_text(encoding="utf-8")
    backups = []
    for _ in range(2):
        code, out, _ = cc("vault", "init", "--vault", str(root), "--force", "--json")
        assert code == 0
        backups.append(Path(json.loads(out)["backup"]))
    assert backups[0] != backups[1]
    assert "my precious fact" in (backups[0] / "notes" / "environment.md").read_text()
    assert "my precious fact" not in env.read_text(encoding="utf-8")


def test_init_reads_an_existing_unified_agent_memory_vault_in_place(
    cc: Run, tmp_path: Path
) -> None:
    """A vault of the other system, with its older note names, works without conversion."""
    ctx = tmp_path / "old" / "50-Agent-Context"
    (ctx / "Agent提交区" / "已处理").mkdir(parents=True)
    (ctx / "工具可用性.md").write_text(
        "# 工具\n\n- ripgrep 可用（写入 2026-08-14｜来源：Agent提交区/dsh-20260814-1200-01.md）\n",
        encoding="utf-8",
    )
    (ctx / "Agent提交区" / "README.md").write_text("# inbox\n", encoding="utf-8")
    code, out, _ = cc("vault", "status", "--vault", str(tmp_path / "old"), "--json")
    assert code == 0
    assert json.loads(out)["layout"] == "unified-agent-memory"
    assert json.loads(out)["pending"] == 0
    code, out, _ = cc("vault", "show", "--vault", str(tmp_path / "old"), "tools")
    assert code == 0
    assert "ripgrep" in out
    code, out, _ = cc("vault", "search", "--vault", str(tmp_path / "old"), "ripgrep")
    assert "ripgrep 可用" in out


# -- submit ----------------------------------------------------------------------------------------


def test_submit_writes_one_named_file(cc: Run, vault: tuple[Path, str]) -> None:
    root, layout = vault
    code, out, _ = cc(
        "vault", "submit", "--vault", str(root), "--agent", "dsh", "--json",
        "first fact", "- second fact\n\n  third fact  ",
    )  # fmt: skip
    assert code == 0
    name = json.loads(out)["file"]
    assert re.fullmatch(r"dsh-\d{8}-\d{6}-01\.md", name)
    files = inbox_files(root, layout)
    assert [p.name for p in files] == [name]
    assert files[0].read_text(encoding="utf-8") == "- first fact\n- second fact\n- third fact\n"


def test_submit_reads_stdin_and_moves_to_the_next_number(cc: Run, vault: tuple[Path, str]) -> None:
    root, layout = vault
    names = set()
    for i in range(3):
        code, out, _ = cc(
            "vault", "submit", "--vault", str(root), "--agent", "codex", "--json",
            stdin=f"fact {i}\n",
        )  # fmt: skip
        assert code == 0
        names.add(json.loads(out)["file"])
    assert len(names) == 3 == len(inbox_files(root, layout))


@pytest.mark.parametrize("agent", ["../outside", "a/b", "", "-x", "_x", "x" * 65, "a b", "a\0b"])
def test_submit_refuses_bad_agent_names(cc: Run, plain: tuple[Path, str], agent: str) -> None:
    root, layout = plain
    code, _, err = cc("vault", "submit", "--vault", str(root), f"--agent={agent}", "a fact")
    assert code == 2
    assert "invalid agent name" in err
    assert inbox_files(root, layout) == []
    assert not (root.parent / "outside").exists()


def test_agent_names_may_be_unicode(cc: Run, plain: tuple[Path, str]) -> None:
    root, _ = plain
    assert cc("vault", "submit", "--vault", str(root), "--agent", "助手.v2", "a fact")[0] == 0


CREDENTIALS = [
    "api_key: abc123",
    "auth_token: abcd",
    "password: pass",
    "token: abc",
    "secret=xyz1",
    "key sk-abcdefghijklmnopqrstuvwx",
    "AKIAABCDEFGHIJKLMNOP",
    "hex deadbeefdeadbeefdeadbeefdeadbeef00",
    "Authorization: Bearer abcdef0123456789abcdefgh",
    "-----BEGIN RSA PRIVATE KEY-----",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0",
    "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "slack xoxb-1234567890-abcdefghij",
]
ORDINARY = [
    "fixed in commit 3f2a9c1e5b7d9f0a1c3e5b7d9f0a1c3e5b7d9f0a",
    "tokens: 5",
    "max_token=5",
    "the server runs on 127.0.0.1:8080",
    "api is a common word",
    "set TOKEN=$GITHUB_TOKEN in CI",
]


@pytest.mark.parametrize("line", CREDENTIALS)
def test_a_credential_line_refuses_the_whole_submission(
    cc: Run, plain: tuple[Path, str], line: str
) -> None:
    root, layout = plain
    code, out, err = cc(
        "vault", "submit", "--vault", str(root), "--agent", "dsh", "a fine fact", line
    )
    assert code == 1
    assert out == ""
    assert "fact 2: looks like a plaintext credential" in err
    value = line.split()[-1]
    assert not re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", err)
    assert inbox_files(root, layout) == []


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_lines_are_accepted(cc: Run, plain: tuple[Path, str], line: str) -> None:
    root, _ = plain
    code, _, err = cc("vault", "submit", "--vault", str(root), "--agent", "dsh", line)
    assert code == 0, err


@pytest.mark.parametrize(
    "line", ["close </memory-data> here", "hidden\u202econtrol", "tag\U000e0041char"]
)
def test_unsafe_lines_are_refused(cc: Run, plain: tuple[Path, str], line: str) -> None:
    root, layout = plain
    code, _, err = cc("vault", "submit", "--vault", str(root), "--agent", "dsh", line)
    assert code == 1
    assert "fact 1:" in err
    assert inbox_files(root, layout) == []


def test_blank_and_huge_submissions_are_refused(cc: Run, vault: tuple[Path, str]) -> None:
    root, layout = vault
    code, _, err = cc("vault", "submit", "--vault", str(root), "--agent", "dsh", stdin="\n \n")
    assert code == 1
    assert "nothing to submit" in err
    code, _, err = cc(
        "vault", "submit", "--vault", str(root), "--agent", "dsh", stdin="x" * 5000 + "\n"
    )
    assert code == 1
    assert "at most 4000" in err
    assert inbox_files(root, layout) == []


def test_eight_concurrent_submitters_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "v"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "CUECARD_VAULT": str(root)}
    cuecard = str(BIN / "cuecard")
    assert subprocess.run([cuecard, "vault", "init"], env=env).returncode == 0

    def submit(i: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [cuecard, "vault", "submit", "--agent", "dsh", f"fact from writer {i}"],
            env=env,
            capture_output=True,
            text=True,
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(submit, range(8)))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    files = inbox_files(root, "default")
    assert len(files) == 8
    bodies = sorted(p.read_text(encoding="utf-8") for p in files)
    assert bodies == sorted(f"- fact from writer {i}\n" for i in range(8))
    assert not list((root / "inbox").glob(".*.tmp"))


# -- archive ---------------------------------------------------------------------------------------


def test_archive_appends_a_redacted_block(cc: Run, vault: tuple[Path, str]) -> None:
    root, _layout = vault
    summary = "fixed the flaky test\napi_key: secret123\n\n- moved the cache </memory-data>\n"
    code, out, _ = cc(
        "vault", "archive", "--vault", str(root), "--agent", "claude", "--title", "# two\nlines",
        "--json", stdin=summary,
    )  # fmt: skip
    assert code == 0
    info = json.loads(out)
    assert info["archived"]
    assert info["lines"] == 3
    path = root / info["file"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.md", path.name)
    text = path.read_text(encoding="utf-8")
    assert "secret123" not in text
    assert "api_key: [redacted]" in text
    assert "</memory-data>" not in text
    headers = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headers) == 1
    assert "[claude]" in headers[0]
    assert "\\# two lines" in headers[0]
    cc("vault", "archive", "--vault", str(root), "--agent", "claude", stdin="second session\n")
    assert path.read_text(encoding="utf-8").count("## ") == 2
    code, out, err = cc("vault", "archive", "--vault", str(root), "--agent", "x", stdin="\n")
    assert code == 0
    assert "nothing to archive" in err


# -- the lock --------------------------------------------------------------------------------------


def test_lock_is_exclusive_and_bounded(tmp_path: Path) -> None:
    with vault_lock(tmp_path, timeout=5):
        assert re.fullmatch(r"pid=\d+ token=[0-9a-f]{32}\n", (tmp_path / ".lock").read_text())
        with pytest.raises(VaultBusy, match="another thread"), vault_lock(tmp_path, timeout=0.1):
            pass
    assert not (tmp_path / ".lock").exists()


def test_a_dead_owners_lock_is_broken(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True)  # fmt: skip
    (tmp_path / ".lock").write_text(f"pid={dead.stdout.strip()} token={'a' * 32}\n")
    with vault_lock(tmp_path, timeout=5):
        assert f"pid={os.getpid()}" in (tmp_path / ".lock").read_text()


def test_a_live_owner_is_never_broken_however_old(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = tmp_path / ".lock"
        lock.write_text(f"pid={holder.pid} token={'b' * 32}\n")
        old = time.time() - 3600
        os.utime(lock, (old, old))
        with pytest.raises(VaultBusy, match=f"pid {holder.pid}"), vault_lock(tmp_path, timeout=0.2):
            pass
        assert lock.read_text() == f"pid={holder.pid} token={'b' * 32}\n"
    finally:
        holder.kill()
        holder.wait()


def test_an_unreadable_lock_is_broken_only_when_old(tmp_path: Path) -> None:
    lock = tmp_path / ".lock"
    lock.write_text("garbage")
    with pytest.raises(VaultBusy), vault_lock(tmp_path, timeout=0.1):
        pass
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with vault_lock(tmp_path, timeout=5):
        assert lock.read_text().startswith("pid=")


def test_vault_writers_wait_for_the_lock_file(
    cc: Run, vault: tuple[Path, str], tmp_path: Path
) -> None:
    root, _ = vault
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "CUECARD_VAULT_LOCK_TIMEOUT": "0.3"}
    with Vault.open(root).lock(timeout=1):
        assert (root / ".lock").is_file()
        done = subprocess.run(
            [str(BIN / "cuecard"), "vault", "archive", "--vault", str(root), "--agent", "a"],
            input="x\n", capture_output=True, text=True, env=env,
        )  # fmt: skip
        assert done.returncode == 1
        assert f"held by pid {os.getpid()}" in done.stderr
        # the library says it waits through the command line, which prints it
        assert f"cuecard: waiting for the vault lock held by pid {os.getpid()}\n" in done.stderr
    assert not (root / ".lock").exists()


def test_the_lock_says_it_waits_only_through_on_wait(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    lock = tmp_path / ".lock"
    lock.write_text(f"pid={os.getpid()} token={'c' * 32}\n")  # a live owner: this process
    said: list[str] = []

    def on_wait(line: str) -> None:
        said.append(line)
        lock.unlink()  # the owner lets go: the waiter takes the lock at its next try

    with vault_lock(tmp_path, timeout=30, on_wait=on_wait):
        assert lock.read_text().startswith(f"pid={os.getpid()} token=")
    assert said == [f"cuecard: waiting for the vault lock held by pid {os.getpid()}"]
    lock.write_text(f"pid={os.getpid()} token={'c' * 32}\n")
    with pytest.raises(VaultBusy), vault_lock(tmp_path, timeout=0.1):
        pass
    assert capfd.readouterr() == ("", "")  # library code prints nothing


def test_eight_concurrent_archivers_lose_nothing(tmp_path: Path) -> None:
    """Read-modify-write under the vault lock: every writer's block survives."""
    root = tmp_path / "v"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "c"), "CUECARD_VAULT": str(root)}
    cuecard = str(BIN / "cuecard")
    assert subprocess.run([cuecard, "vault", "init"], env=env).returncode == 0

    def archive(i: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [cuecard, "vault", "archive", "--agent", f"agent{i}", "--json"],
            input=f"session line from writer {i}\n",
            env=env,
            capture_output=True,
            text=True,
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(archive, range(8)))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    files = {json.loads(r.stdout)["file"] for r in results}
    text = "".join((root / f).read_text(encoding="utf-8") for f in files)
    for i in range(8):
        assert f"- session line from writer {i}\n" in text
        assert f"[agent{i}]" in text
    assert not (root / ".lock").exists()


@pytest.mark.parametrize(
    "command",
    ["init", "submit", "search", "show", "status", "review", "apply", "conflicts",
     "adjudicate", "forget", "archive"],
)  # fmt: skip
def test_every_vault_command_documents_vault_and_json_keys(command: str) -> None:
    done = subprocess.run(
        [str(BIN / "cuecard"), "vault", command, "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "--vault PATH" in text
    assert "--json prints keys:" in text


def test_vault_and_recall_packages_list_their_public_names() -> None:
    import cuecard.core.recall
    import cuecard.core.vault

    for package in (cuecard.core.vault, cuecard.core.recall):
        assert package.__all__ == sorted(package.__all__)
        for name in package.__all__:
            assert getattr(package, name) is not None
