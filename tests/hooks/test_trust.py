"""Codex hook trust as ``cuecard install codex`` records it in the user's config.toml."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path
from typing import Any

from cuecard.core.harnesses import codex_hash, codex_hooks, codex_trust_state, portable_command
from cuecard.hooks._install import install

# (hooks.json, keys and hashes) as Codex 0.171.0's app-server reported them (hooks/list)
HOOKS_FILE = Path("/tmp/cc-known/proj/.codex/hooks.json")
PRE = {
    "type": "command",
    "timeout": 10,  # the hook command cuecard wrote then, whose hash Codex reported
    "command": "sh -c 'command -v cuecard-hook >/dev/null 2>&1 || exit 0; "
    "exec cuecard-hook codex PreToolUse'",
}
STOP = {"type": "command", "timeout": 15, "command": "/opt/cuecard hook/cuecard-hook codex Stop"}
FIRST = {"hooks": {"PreToolUse": [{"hooks": [PRE]}], "Stop": [{"matcher": "x", "hooks": [STOP]}]}}
MATCHERS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a",
                                                      "timeout": 10}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "b"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "c"}]}],
        "UserPromptSubmit": [{"matcher": "x", "hooks": [{"type": "command", "command": "d"}]}],
        "PostCompact": [{"matcher": "x", "hooks": [{"type": "command", "command": "e"}]}],
    }
}  # fmt: skip
KNOWN: list[tuple[dict[str, Any], dict[str, str]]] = [
    (FIRST, {
        "pre_tool_use": "acae9d6cbaff382fb29c65575c91b0f40ac26f62563ec32b03d5ddbd688d6a4b",
        "stop": "d35f91618a147b4faa4afdecde961763cfb28b9cc96b73adb5116dd2a4cdf3ba",
    }),
    (MATCHERS, {
        "pre_tool_use": "33bee54376ddfc9483ec76dbf12a7bdedfe5b72c4204b921f4862f70a2ce6550",
        "post_tool_use": "ecf4219a7508403bc671d91bef871261cfb0c225dcf67c5ec47c68ab0694b874",
        "post_compact": "2b85d4bea446cde2269a0252fda57aec310bfe91e6125453b52c20a659a98be1",
        "session_start": "6392f4a99d252ef76baa767030c179825a948b2905127d3caf76002fa16d413a",
        "user_prompt_submit": "517fd3abd9e563a12c22cbd835d4e4e63885a80d82ab5e446e70e69a4a3064c9",
    }),
]  # fmt: skip


def test_keys_and_hashes_are_codexs_own() -> None:
    ours = {h.key: h.hash for h in codex_hooks(HOOKS_FILE, FIRST)}
    assert ours == {f"{HOOKS_FILE}:{e}:0:0": f"sha256:{v}" for e, v in KNOWN[0][1].items()}
    for config, known in KNOWN:
        for event, groups in config["hooks"].items():
            name = next(e for e in known if e.replace("_", "") == event.lower())
            group = groups[0]
            found = codex_hash(name, group.get("matcher"), group["hooks"][0])
            assert found == f"sha256:{known[name]}", event


def test_trust_is_recorded_keeping_the_rest_and_is_idempotent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    original = '# mine\nmodel = "gpt-5.5"\n\n[features]\nplugins = false\n'
    config.write_text(original)
    report = install("codex", project=tmp_path / "p", home=home, environ={})
    text = config.read_text()
    assert text.startswith(original)
    parsed = tomllib.loads(text)
    assert parsed["model"] == "gpt-5.5"
    assert parsed["features"] == {"plugins": False}
    hooks_file = tmp_path / "p" / ".codex" / "hooks.json"
    hooks = codex_hooks(hooks_file, json.loads(hooks_file.read_text()))
    assert len(hooks) == 6
    assert set(codex_trust_state(parsed, hooks).values()) == {"trusted"}
    assert str(config) in report.written
    again = install("codex", project=tmp_path / "p", home=home, environ={})
    assert config.read_text() == text
    assert str(config) not in again.written
    assert all(h.key.endswith(":0:0") for h in hooks)
    assert json.loads(hooks_file.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == (
        portable_command("codex", "Stop")
    )


def test_a_stale_hash_is_replaced_in_place(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install("codex", project=tmp_path / "p", home=home, environ={})
    config = home / ".codex" / "config.toml"
    text = config.read_text()
    first = text.split('trusted_hash = "', 1)[1].split('"', 1)[0]
    config.write_text(text.replace(first, "sha256:older", 1))
    install("codex", project=tmp_path / "p", home=home, environ={})
    assert config.read_text() == text


def test_codex_home_and_no_trust_and_a_broken_config(tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    report = install("codex", project=tmp_path / "p", home=tmp_path / "h", trust=False,
                     environ={"CODEX_HOME": str(codex_home)})  # fmt: skip
    assert not (codex_home / "config.toml").exists()
    note = next(n for n in report.notes if n.startswith("Codex skips hooks until"))
    tables = note.split(f"add to {codex_home / 'config.toml'}:\n", 1)[1]
    assert len(tomllib.loads(tables)["hooks"]["state"]) == 6
    codex_home.mkdir()
    (codex_home / "config.toml").write_text("[broken\n")
    report = install("codex", project=tmp_path / "p", home=tmp_path / "h",
                     environ={"CODEX_HOME": str(codex_home)})  # fmt: skip
    assert (codex_home / "config.toml").read_text() == "[broken\n"
    assert any(n.startswith("Codex trust not recorded:") for n in report.notes)


def test_a_private_config_stays_private_when_trust_is_recorded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "gpt-5.5"\n\n[mcp_servers.db.env]\nDB_PASSWORD = "hunter2"\n')
    config.chmod(0o600)
    report = install("codex", project=tmp_path / "p", home=home, environ={})
    assert str(config) in report.written
    assert "hooks.state" in config.read_text()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
