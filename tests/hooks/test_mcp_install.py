"""`cuecard install HARNESS` registers `cuecard mcp` in the harness's own MCP configuration
(portable in a project: no path of this machine), `--no-mcp` leaves it out, `cuecard uninstall`
takes it out and leaves the rest of the file as it was."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cuecard.hooks._errors import InstallError
from cuecard.hooks._install import install, uninstall
from tests._support.cli import run_cli

FILES = {
    "claude": ".mcp.json",
    "codex": ".codex/config.toml",
    "opencode": "opencode.json",
    "grok": ".grok/config.toml",
}
FOREIGN_TOML = '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
FOREIGN_JSON = {"$schema": "https://example.invalid/schema.json", "theme": "dark"}


def read(path: Path) -> dict[str, Any]:
    text = path.read_text()
    value = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    assert isinstance(value, dict)
    return value


def server(harness: str, config: dict[str, Any]) -> Any:
    key = {"claude": "mcpServers", "opencode": "mcp"}.get(harness, "mcp_servers")
    return config[key]["cuecard"]


def command_line(harness: str, entry: dict[str, Any]) -> list[str]:
    if harness == "opencode":
        return list(entry["command"])
    return [entry["command"], *entry["args"]]


@pytest.mark.parametrize("harness", sorted(FILES))
def test_a_project_install_registers_a_portable_server(harness: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    report = install(harness, project=tmp_path, home=home, trust=False)
    path = tmp_path / FILES[harness]
    assert str(path) in report.written
    entry = server(harness, read(path))
    line = command_line(harness, entry)
    agent = {"claude": "claude-code"}.get(harness, harness)
    assert line[:2] == ["sh", "-c"]
    assert line[2].endswith(f"exec cuecard mcp --agent {agent}")
    text = path.read_text()
    assert str(tmp_path) not in text, "no path of this machine in a committed file"
    assert ".venv" not in text
    if harness == "claude":
        assert entry["type"] == "stdio"
        local = read(tmp_path / ".claude/settings.local.json")
        assert local["enabledMcpjsonServers"] == ["cuecard"]
    if harness == "grok":
        assert entry["enabled"] is True
    again = install(harness, project=tmp_path, home=home, trust=False)
    assert str(path) in again.unchanged
    removed = uninstall(harness, project=tmp_path, home=home)
    assert str(path) in removed.removed
    assert not path.exists()
    assert not (tmp_path / ".claude/settings.local.json").exists()


@pytest.mark.parametrize("harness", sorted(FILES))
def test_uninstall_keeps_what_was_there_before(harness: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = tmp_path / FILES[harness]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".toml":
        path.write_text(FOREIGN_TOML)
    else:
        key = "mcpServers" if harness == "claude" else "mcp"
        path.write_text(json.dumps({**FOREIGN_JSON, key: {"docs": {"command": "docs-mcp"}}}))
    before = path.read_text()
    install(harness, project=tmp_path, home=home, trust=False)
    merged = read(path)
    assert server(harness, merged)
    uninstall(harness, project=tmp_path, home=home)
    if path.suffix == ".toml":
        assert path.read_text() == before
    else:
        assert read(path) == json.loads(before)


@pytest.mark.parametrize("harness", ["codex", "grok"])
def test_a_server_named_cuecard_that_cuecard_did_not_write_is_refused(
    harness: str, tmp_path: Path
) -> None:
    path = tmp_path / FILES[harness]
    path.parent.mkdir(parents=True)
    path.write_text('[mcp_servers.cuecard]\ncommand = "other"\n')
    with pytest.raises(InstallError, match="did not write"):
        install(harness, project=tmp_path, home=tmp_path / "home", trust=False)
    done = run_cli("install", harness, "--no-trust", cwd=tmp_path)
    assert done.returncode == 1
    assert not (tmp_path / ".cuecard").exists(), "refused before anything was written"
    assert path.read_text() == '[mcp_servers.cuecard]\ncommand = "other"\n'


def test_no_mcp_leaves_the_server_out(tmp_path: Path) -> None:
    done = run_cli("install", "claude", "--no-mcp", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / ".mcp.json").exists()
    assert (tmp_path / ".claude/settings.json").exists()


def test_a_user_install_runs_this_installation_by_its_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "CODEX_HOME": str(home / "codexhome")}
    install("codex", project=tmp_path, user=True, home=home, trust=False, environ=env)
    entry = server("codex", read(home / "codexhome" / "config.toml"))
    assert Path(entry["command"]).name == "cuecard"
    assert Path(entry["command"]).is_absolute()
    assert entry["args"] == ["mcp", "--agent", "codex"]


def test_the_portable_command_ends_quietly_where_cuecard_is_absent(tmp_path: Path) -> None:
    install("claude", project=tmp_path, home=tmp_path / "home")
    entry = server("claude", read(tmp_path / ".mcp.json"))
    done = subprocess.run(
        [entry["command"], *entry["args"]],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
