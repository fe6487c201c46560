"""Installers: merged, idempotent, backed up, quoted; uninstall leaves the rest alone."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.harnesses import portable_command
from cuecard.hooks._install import SKILLS, install, merge_hooks, quote_path, uninstall
from tests._support.cli import run_cli
from tests._support.hooks import HOOK, build_repo

FOREIGN = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


def settings(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def commands(config: dict[str, object]) -> list[str]:
    hooks = config.get("hooks", {})
    assert isinstance(hooks, dict)
    return [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]


def test_claude_install_merges_backs_up_and_is_idempotent(tmp_path: Path) -> None:
    target = tmp_path / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text(json.dumps(FOREIGN))
    report = install("claude", project=tmp_path, home=tmp_path / "home")
    merged = settings(target)
    assert merged["permissions"] == FOREIGN["permissions"]
    assert "./guard.sh" in commands(merged)
    assert "notify-send hi" in commands(merged)
    ours = [c for c in commands(merged) if "cuecard-hook" in c]
    # the committed file holds no path of this machine
    assert sorted(ours) == sorted(
        portable_command("claude", e)
        for e in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                  "PostToolUseFailure", "Stop")
    )  # fmt: skip
    assert str(Path.cwd()) not in target.read_text()
    assert "/.venv/" not in target.read_text()
    # no matcher: every tool ("*" is no valid regular expression for a matcher)
    assert merged["hooks"]["PreToolUse"][1] == {
        "hooks": [
            {"type": "command", "command": portable_command("claude", "PreToolUse"), "timeout": 10}
        ]
    }
    assert json.loads((tmp_path / ".claude/settings.json.cuecard.bak").read_text()) == FOREIGN
    assert str(target) in report.written
    for name in SKILLS:
        assert (
            (tmp_path / ".claude/skills" / name / "SKILL.md")
            .read_text()
            .startswith(f"---\nname: {name}\n")
        )
    again = install("claude", project=tmp_path, home=tmp_path / "home")
    assert again.written == []
    assert again.backups == []
    # settings, two skills, .mcp.json, settings.local.json (its hooks, then the MCP approval)
    assert len(again.unchanged) == 6
    assert settings(target) == merged
    # cuecard's own hooks are replaced instead of a second set added
    target.write_text(json.dumps(merge_hooks(FOREIGN, "claude", "/old/cuecard-hook")))
    install("claude", project=tmp_path, home=tmp_path / "home")
    assert len([c for c in commands(settings(target)) if "cuecard-hook" in c]) == 6
    removed = uninstall("claude", project=tmp_path, home=tmp_path / "home")
    assert settings(target) == FOREIGN
    assert not (tmp_path / ".claude/skills/cuecard-save").exists()
    # two skills and their folder, .mcp.json, settings.local.json
    assert len(removed.removed) == 5
    assert not (tmp_path / ".mcp.json").exists()


def test_the_local_settings_run_the_same_hooks_for_a_start_in_a_subfolder(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(make)"]}}))
    report = install("claude", project=tmp_path, home=tmp_path / "home")
    shared = settings(tmp_path / ".claude" / "settings.json")
    mine = settings(local)
    # the same commands, so that Claude Code started at the root runs each once
    assert commands(mine) == commands(shared)
    assert all("cuecard-hook" in c and str(tmp_path) not in c for c in commands(mine))
    assert mine["permissions"] == {"allow": ["Bash(make)"]}
    assert mine["enabledMcpjsonServers"] == ["cuecard"]
    assert any("starts in a subfolder" in note for note in report.notes)
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".claude/settings.local.json"], cwd=tmp_path
    )
    assert ignored.returncode == 0
    assert install("claude", project=tmp_path, home=tmp_path / "home").written == []
    uninstall("claude", project=tmp_path, home=tmp_path / "home")
    assert settings(local) == {"permissions": {"allow": ["Bash(make)"]}}
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_a_path_of_this_machine_goes_to_the_git_ignored_local_settings(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shared = tmp_path / ".claude" / "settings.json"
    report = install(
        "claude", project=tmp_path, home=tmp_path / "home", hook_path="/opt/cc/cuecard-hook"
    )
    local = tmp_path / ".claude" / "settings.local.json"
    assert not shared.exists()
    assert commands(settings(local))[0] == "/opt/cc/cuecard-hook claude SessionStart"
    assert any("git ignores it" in note for note in report.notes)
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".claude/settings.local.json"], cwd=tmp_path
    )
    assert ignored.returncode == 0
    again = install(
        "claude", project=tmp_path, home=tmp_path / "home", hook_path="/opt/cc/cuecard-hook"
    )
    assert again.written == []
    exclude = (tmp_path / ".git/info/exclude").read_text().splitlines()
    assert exclude.count("/.claude/settings.local.json") == 1


def charge_edit(repo: Path, session: str) -> dict[str, object]:
    """A PreToolUse payload of an Edit of ``src/billing/charge.py`` (the trap memory fires)."""
    return {
        "session_id": session,
        "cwd": str(repo),
        "tool_name": "Edit",
        "tool_input": {"file_path": "src/billing/charge.py", "old_string": "a", "new_string": "b"},
    }


def test_the_portable_command_is_a_quiet_no_op_without_cuecard(tmp_path: Path) -> None:
    repo = build_repo(tmp_path / "repo")
    install("claude", project=repo, home=tmp_path / "home")
    config = settings(repo / ".claude/settings.json")
    command = config["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = charge_edit(repo, "portable")
    tools = tmp_path / "bin"
    tools.mkdir()
    os.symlink(HOOK, tools / "cuecard-hook")
    for path, delivered in ((f"{tools}:/usr/bin:/bin", True), ("/usr/bin:/bin", False)):
        result = subprocess.run(
            ["sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
            cwd=repo, env={"PATH": path, "HOME": str(tmp_path / "home")},
        )  # fmt: skip
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        assert ("charge() is not idempotent" in result.stdout) is delivered
        assert delivered or result.stdout == ""


def test_user_scope_writes_in_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install("claude", project=tmp_path / "p", user=True, home=home, hook_path="/x/cuecard-hook")
    assert (home / ".claude/settings.json").is_file()
    assert not (tmp_path / "p").exists()
    install("opencode", project=tmp_path / "p", user=True, home=home, hook_path="/x/cuecard-hook")
    assert (home / ".config/opencode/plugins/cuecard.js").is_file()


@pytest.mark.parametrize(
    ("path", "quoted"),
    [
        ("/usr/bin/cuecard-hook", "/usr/bin/cuecard-hook"),
        ("/home/me/My Tools/cuecard-hook", "'/home/me/My Tools/cuecard-hook'"),
        ("/home/o'neil/cuecard-hook", "'/home/o'\"'\"'neil/cuecard-hook'"),
        (
            "C:\\Program Files\\cuecard\\cuecard-hook.exe",
            '"C:\\Program Files\\cuecard\\cuecard-hook.exe"',
        ),
        (
            "C:/Users/me/venv/Scripts/cuecard-hook.exe",
            '"C:/Users/me/venv/Scripts/cuecard-hook.exe"',
        ),
    ],
)
def test_paths_are_quoted(path: str, quoted: str) -> None:
    assert quote_path(path) == quoted
    assert merge_hooks({}, "codex", path)["hooks"]["Stop"][0]["hooks"][0]["command"] == (
        f"{quoted} codex Stop"
    )


def test_the_installed_command_runs_from_a_path_with_spaces(tmp_path: Path) -> None:
    repo = build_repo(tmp_path / "my repo")
    tools = tmp_path / "My Tools"
    tools.mkdir()
    os.symlink(HOOK, tools / "cuecard-hook")
    install("claude", project=repo, home=tmp_path / "home", hook_path=str(tools / "cuecard-hook"))
    config = settings(repo / ".claude/settings.local.json")
    command = config["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = charge_edit(repo, "spaces")
    env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
    result = subprocess.run(
        ["bash", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
        cwd=repo, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "charge() is not idempotent" in result.stdout


def test_codex_grok_and_opencode(tmp_path: Path) -> None:
    hook = "/opt/cuecard hook/cuecard-hook"
    codex = install("codex", project=tmp_path, home=tmp_path / "h", environ={})
    hooks = settings(tmp_path / ".codex/hooks.json")["hooks"]
    assert set(hooks) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "PostCompact",
    }
    assert any(note.startswith("trusted the 6 hooks written") for note in codex.notes)
    grok_report = install("grok", project=tmp_path, home=tmp_path / "h")
    assert not any("also runs the hooks" in note for note in grok_report.notes)
    install("claude", project=tmp_path, home=tmp_path / "h")
    again = install("grok", project=tmp_path, home=tmp_path / "h")
    assert any("Grok Build also runs the hooks in" in note for note in again.notes)
    grok = settings(tmp_path / ".grok/hooks/cuecard.json")
    assert commands(grok)[0] == portable_command("grok", "SessionStart")
    install("opencode", project=tmp_path, home=tmp_path / "h")
    plugin = (tmp_path / ".opencode/plugins/cuecard.js").read_text()
    assert 'const CUECARD_HOOK = "cuecard-hook";' in plugin
    assert (tmp_path / ".opencode/skills/cuecard-review/SKILL.md").is_file()
    # a path of this machine goes to the person's own files, quoted
    install("grok", project=tmp_path, user=True, home=tmp_path / "h", hook_path=hook)
    grok = settings(tmp_path / "h/.grok/hooks/cuecard.json")
    assert commands(grok)[0] == "'/opt/cuecard hook/cuecard-hook' grok SessionStart"
    install("opencode", project=tmp_path, user=True, home=tmp_path / "h", hook_path=hook)
    plugin = (tmp_path / "h/.config/opencode/plugins/cuecard.js").read_text()
    assert 'const CUECARD_HOOK = "/opt/cuecard hook/cuecard-hook";' in plugin
    for harness in ("codex", "grok", "opencode"):
        uninstall(harness, project=tmp_path, home=tmp_path / "h")
    # nothing of cuecard's is left behind: not an empty `{}`, not an empty folder
    for folder in (".codex", ".grok", ".opencode"):
        assert not (tmp_path / folder).exists(), folder


@pytest.mark.parametrize(
    ("harness", "shared"),
    [
        ("codex", ".codex/hooks.json"),
        ("opencode", ".opencode/plugins/cuecard.js"),
        ("grok", ".grok/hooks/cuecard.json"),
    ],
)
def test_a_path_of_this_machine_never_goes_into_a_committed_hook_file(
    tmp_path: Path, harness: str, shared: str
) -> None:
    """Codex, OpenCode and Grok Build have no git-ignored hook file in a project: a project
    install with ``--hook-command`` is refused with the reason and the command that works, and
    writes nothing; ``--user`` puts the path in the person's own configuration."""
    root = tmp_path / "p"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "CODEX_HOME": str(home / ".codex")}  # fmt: skip
    hook = str(tmp_path / "bin" / "cuecard-hook")
    refused = run_cli("install", harness, "--hook-command", hook, cwd=root, env=env)
    assert refused.returncode != 0
    message = " ".join(refused.stderr.split())
    assert f"{root / shared} is the project's file, meant to be committed" in message, message
    assert f"cuecard install {harness} --user --hook-command PATH" in message
    assert not (root / shared).exists()
    assert not [p for p in root.rglob("*") if ".git" not in p.parts and ".cuecard" not in p.parts]
    done = run_cli("install", harness, "--user", "--no-mcp", "--hook-command", hook, cwd=root,
                   env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not (root / shared).exists()
    mine = {"codex": ".codex/hooks.json", "opencode": ".config/opencode/plugins/cuecard.js",
            "grok": ".grok/hooks/cuecard.json"}[harness]  # fmt: skip
    assert hook in (home / mine).read_text(encoding="utf-8")


def test_claude_plugin_layout(tmp_path: Path) -> None:
    plugin = tmp_path / "cuecard-plugin"
    install(
        "claude", project=tmp_path, home=tmp_path / "h", hook_path="/x/cuecard-hook", plugin=plugin
    )
    manifest = settings(plugin / ".claude-plugin/plugin.json")
    assert manifest["name"] == "cuecard"
    assert "Stop" in settings(plugin / "hooks/hooks.json")["hooks"]
    assert (plugin / "skills/cuecard-save/SKILL.md").is_file()
    assert not (tmp_path / ".claude").exists()


def test_a_broken_settings_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    target = tmp_path / ".claude" / "settings.json"
    target.parent.mkdir()
    target.write_text("{broken")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    before = sorted(p for p in tmp_path.rglob("*") if ".git" not in p.parts)
    result = run_cli("install", "claude", cwd=tmp_path)
    assert result.returncode == 1
    assert "settings.json: not readable as JSON" in result.stderr
    assert target.read_text() == "{broken"
    # nothing changed, not even an opt-in
    assert sorted(p for p in tmp_path.rglob("*") if ".git" not in p.parts) == before


def test_cli_install_initialises_the_project_and_prints_json(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = run_cli("install", "claude", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {
        "harness",
        "scope",
        "written",
        "unchanged",
        "removed",
        "backups",
        "notes",
    }
    assert (tmp_path / ".cuecard/config.json").is_file()
    assert report["notes"][0].startswith("initialised cuecard in")
    hook_cmd = commands(settings(tmp_path / ".claude/settings.json"))[0]
    assert hook_cmd == portable_command("claude", "SessionStart")
    again = json.loads(run_cli("install", "claude", "--json", cwd=tmp_path).stdout)
    assert again["written"] == []
    result = run_cli("uninstall", "claude", cwd=tmp_path)
    assert result.returncode == 0
    assert "cuecard uninstall for claude (project): done" in result.stderr
    usage = run_cli("install", "cursor", cwd=tmp_path)
    assert usage.returncode == 2


def test_a_private_settings_file_keeps_its_mode_and_its_backup_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"env": {"API_TOKEN": "not-for-others"}}))
    path.chmod(0o600)
    install("claude", project=tmp_path / "p", user=True, home=home, hook_path="/x/cuecard-hook")
    assert "cuecard-hook" in path.read_text()
    backup = path.with_name("settings.json.cuecard.bak")
    assert [oct(p.stat().st_mode & 0o777) for p in (path, backup)] == ["0o600", "0o600"]


def _without_installers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entry points as where no other distribution installs a harness (cuecard.installers empty),
    however this environment was set up."""
    import importlib.metadata

    real = importlib.metadata.entry_points

    def entry_points(**params: Any) -> Any:
        if params.get("group") in {"cuecard.installers", "cuecard.uninstallers"}:
            return importlib.metadata.EntryPoints(())
        return real(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


@pytest.mark.parametrize(
    "extra", [(), ("--profile", "web", "--json")], ids=["bare", "with-dsh-options"]
)
def test_install_dsh_without_the_dsh_adapter_names_the_distribution_to_install(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: tuple[str, ...],
) -> None:
    from cuecard.core.cli import main

    _without_installers(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with pytest.raises(SystemExit) as exited:
        main(["install", "dsh", *extra])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" not in err
    assert "`cuecard install dsh` needs the cuecard-dsh-adapter distribution" in err
    # the pip of the interpreter running cuecard, not whichever `pip` comes first on the PATH
    assert f"{shlex.quote(sys.executable)} -m pip install cuecard-dsh-adapter" in err
    assert "harnesses installable here: claude, codex, opencode, grok)" in err
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SystemExit) as exited:  # an unknown harness is still an invalid choice
        main(["install", "cursor"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument harness: choose one of: claude, codex, opencode, grok" in err
    assert "cursor" not in err  # a refused value is not printed back
    with pytest.raises(SystemExit) as exited:
        main(["uninstall", "dsh"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "`cuecard uninstall dsh` needs the cuecard-dsh-adapter distribution" in err


def test_install_dsh_where_the_dsh_adapter_is_not_installed(tmp_path: Path) -> None:
    """The same, by the console script, where the distribution is really absent (dist.hooks)."""
    import importlib.util

    if importlib.util.find_spec("cuecard.dsh_adapter") is not None:
        pytest.skip("cuecard-dsh-adapter is installed here (the test above hides it)")
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    (tmp_path / "p").mkdir()
    refused = run_cli("install", "dsh", cwd=tmp_path / "p", env=env)
    assert refused.returncode == 2
    assert "needs the cuecard-dsh-adapter distribution" in refused.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["p"]
    assert list((tmp_path / "p").iterdir()) == []


def _git_status(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(done.stdout.splitlines())


def test_uninstall_codex_leaves_nothing_behind(tmp_path: Path) -> None:
    """Its files go, a file it changed is restored, the trust entries it recorded go, and no
    backup is left in the work tree for a `git add -A` to pick up."""
    root, codex_home = tmp_path / "repo", tmp_path / "codex-home"
    root.mkdir()
    codex_home.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (codex_home / "config.toml").write_text('model = "gpt-5.5"\n')
    foreign = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./lint.sh"}]}]}}
    (root / ".codex").mkdir()
    (root / ".codex/hooks.json").write_text(json.dumps(foreign))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    before = _git_status(root)
    env = {"CODEX_HOME": str(codex_home)}
    done = run_cli("install", "codex", "--json", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    backups = json.loads(done.stdout)["backups"]
    assert backups
    assert all("/.git/cuecard/backups/" in b for b in backups), backups
    config = (codex_home / "config.toml").read_text()
    assert config.count("[hooks.state.") == 6
    done = run_cli("uninstall", "codex", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads((root / ".codex/hooks.json").read_text()) == foreign
    assert (codex_home / "config.toml").read_text() == 'model = "gpt-5.5"\n'
    opted_in = ["?? .cuecard/.gitignore", "?? .cuecard/config.json"]  # the opt-in install made
    assert _git_status(root) == sorted([*before, *opted_in])


def test_uninstall_codex_removes_what_it_alone_made(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    root = tmp_path / "repo"
    env = {"CODEX_HOME": str(codex_home)}
    assert run_cli("install", "codex", cwd=root, env=env).returncode == 0
    assert (root / ".codex/hooks.json").is_file()
    assert run_cli("uninstall", "codex", cwd=root, env=env).returncode == 0
    assert not (root / ".codex").exists()
    assert "[hooks.state." not in (codex_home / "config.toml").read_text()
    assert _git_status(root) == ["?? .cuecard/.gitignore", "?? .cuecard/config.json"]


def _hook_problems(root: Path, env: dict[str, str]) -> list[str]:
    done = run_cli("doctor", "--json", cwd=root, env=env)
    report = json.loads(done.stdout)
    return [p["message"] for p in report["problems"] if p["check"] == "hooks"]


def test_doctor_checks_the_opencode_plugin_as_it_checks_the_other_hook_files(
    tmp_path: Path,
) -> None:
    """The plugin is JavaScript, not JSON: doctor reads the command it runs all the same, in the
    project and in the user's configuration, and reports a missing ``cuecard-hook`` as it does
    for Claude Code's, Codex's and Grok Build's files."""
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CODEX_HOME": str(home)}
    # cuecard-hook from an absolute PATH entry, as installed; or not there at all
    tools = tmp_path / "tools"
    tools.mkdir()
    os.symlink(HOOK, tools / "cuecard-hook")
    present = {**env, "PATH": f"{tools}:/usr/bin:/bin"}
    absent = {**env, "PATH": "/usr/bin:/bin"}
    for harness in ("claude", "opencode"):
        root = tmp_path / harness
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        assert run_cli("install", harness, "--no-mcp", cwd=root, env=present).returncode == 0
        assert _hook_problems(root, present) == []
        missing = _hook_problems(root, absent)
        # Claude Code's: settings.json and the git-ignored settings.local.json, each named
        assert len(missing) == (2 if harness == "claude" else 1), missing
        assert all("the hooks do not run cuecard here: cuecard-hook is not on the PATH" in m
                   for m in missing)  # fmt: skip
    plugin = tmp_path / "opencode" / ".opencode" / "plugins" / "cuecard.js"
    assert missing[0].startswith(f"{plugin}:")
    # a path of this machine that is gone, in the user-level plugin
    plain = tmp_path / "plain"
    plain.mkdir()
    user = run_cli("install", "opencode", "--user", "--no-mcp", "--hook-command",
                   str(tmp_path / "gone" / "cuecard-hook"), cwd=plain, env=present)  # fmt: skip
    assert user.returncode == 0, user.stderr
    found = _hook_problems(plain, present)
    assert len(found) == 1, found
    assert str(home / ".config" / "opencode" / "plugins" / "cuecard.js") in found[0]
    assert f"{tmp_path / 'gone' / 'cuecard-hook'} does not exist" in found[0]


@pytest.mark.parametrize("planted", [".claude", ".claude/settings.json", ".mcp.json"])
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_committed_link_in_a_harness_folder_is_never_written_through(
    tmp_path: Path, planted: str, command: str
) -> None:
    """A project's harness files are changed through the confined layer: a link a commit put
    at any depth of them refuses the install or uninstall (exit 1, naming it), and what it
    points at outside the project is left byte for byte."""
    project, outside = tmp_path / "p", tmp_path / "outside"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (outside / ".claude").mkdir(parents=True)
    kept = json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [HOOK]}]}})
    (outside / ".claude" / "settings.json").write_text(kept)
    (outside / ".mcp.json").write_text('{"mcpServers": {}}')
    if planted == ".claude/settings.json":
        (project / ".claude").mkdir()
    (project / planted).symlink_to(outside / planted)
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    result = run_cli(command, "claude", cwd=project)
    assert result.returncode == 1, result.stderr
    assert f"{project / planted} is a symbolic link" in result.stderr
    assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in outside.rglob("*")) == [".claude", ".mcp.json", "settings.json"]
