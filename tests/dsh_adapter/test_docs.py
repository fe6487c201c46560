"""Every plugin setting and every ``cuecard dsh`` command is documented in the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cuecard.dsh_adapter.cli import SUBCOMMANDS
from tests._support.dsh import dsh

PACKAGE = Path(__file__).resolve().parents[2] / "packages" / "dsh-adapter"
README = (PACKAGE / "README.md").read_text()


def config_keys(plugin: str) -> list[str]:
    source = (PACKAGE / "js" / plugin / "lib" / "index.js").read_text()
    block = source[source.index("export const Config = forgiving(z.object({") :]
    block = block[: block.index("\n}))")]
    return re.findall(r"^  (\w+): z\.", block, re.M)


@pytest.mark.parametrize("plugin", ["cuecard-dsh-memory", "cuecard-dsh-discipline"])
def test_every_plugin_setting_is_documented(plugin: str) -> None:
    keys = config_keys(plugin)
    assert len(keys) >= 4
    section = README[README.index(f"### `{plugin}`") :]
    for key in keys:
        assert f"| `{key}` |" in section, key


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_command_is_documented_and_has_help(command: str) -> None:
    assert f"`cuecard dsh {command}" in README
    done = dsh(command, "--help")
    assert done.returncode == 0
    assert "usage:" in done.stdout


def test_every_tool_is_documented() -> None:
    source = (PACKAGE / "js" / "cuecard-dsh-memory" / "lib" / "index.js").read_text()
    tools = re.findall(r"name: '(memory_\w+)'", source)
    assert sorted(tools) == ["memory_search", "memory_show", "memory_status", "memory_submit"]
    for tool in tools:
        assert f"| `{tool}` |" in README
