"""The cuecard CLI: add, list, show, status, schema, usage errors and exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests._support.cli import run_cli

ADD = [
    "add",
    "--topic",
    "billing/retries",
    "--kind",
    "trap",
    "--title",
    "charge() is not idempotent",
    "--body",
    "Never retry charge() without the idempotency key.",
    "--not-derivable",
    "Learned from an incident.",
]


def test_version(tmp_path: Path) -> None:
    result = run_cli("--version", cwd=tmp_path)
    assert result.returncode == 0
    first, *rest = result.stdout.splitlines()
    assert first.startswith("cuecard 0.")
    assert f"cuecard-core {first.split()[1]}" in rest
    assert all(re.fullmatch(r"cuecard-[a-z-]+ \S+", line) for line in rest), rest


def test_add_prints_the_id_alone_and_makes_one_clause(project: Path) -> None:
    result = run_cli(
        *ADD,
        "--on",
        "edit",
        "--on",
        "write",
        "--paths",
        "billing/**",
        "--symbols",
        "charge",
        cwd=project,
    )
    assert result.returncode == 0, result.stderr
    memory_id = result.stdout.strip()
    assert len(result.stdout.splitlines()) == 1
    shown = json.loads(run_cli("show", memory_id[:6], "--json", cwd=project).stdout)
    assert shown["id"] == memory_id
    assert shown["origin"] == "user_explicit"
    assert shown["status"] == "active"
    assert shown["triggers"] == [
        {
            "on": ["edit", "write"],
            "paths": ["billing/**"],
            "symbols": ["charge"],
            "commands": [],
            "keywords": [],
        }
    ]


def test_add_without_triggers_is_recall_only(project: Path) -> None:
    memory_id = run_cli(*ADD, cwd=project).stdout.strip()
    assert json.loads(run_cli("show", memory_id, "--json", cwd=project).stdout)["triggers"] == []


def test_a_narrowing_flag_without_on_is_a_usage_error(project: Path) -> None:
    result = run_cli(*ADD, "--paths", "billing/**", cwd=project)
    assert result.returncode == 2
    assert "--paths narrow a trigger clause; name its event kinds with --on" in result.stderr
    assert list((project / ".cuecard/memories").iterdir()) == []


def test_a_refusal_exits_1_and_writes_nothing(project: Path) -> None:
    result = run_cli(*ADD, "--on", "edit", "--paths", "../x", cwd=project)
    assert result.returncode == 1
    assert 'triggers[0].paths[0] "../x" leaves the repository' in result.stderr
    assert result.stdout == ""
    assert list((project / ".cuecard/memories").iterdir()) == []


def test_list_json_and_status_filter(project: Path) -> None:
    run_cli(*ADD, cwd=project)
    out = json.loads(run_cli("list", "--json", cwd=project).stdout)
    assert set(out) == {"memories", "problems"}
    assert {"id", "topic", "kind", "status", "title"} <= set(out["memories"][0])
    none = json.loads(run_cli("list", "--status", "candidate", "--json", cwd=project).stdout)
    assert none["memories"] == []


def test_status_json(project: Path) -> None:
    run_cli(*ADD, cwd=project)
    out = json.loads(run_cli("status", "--json", cwd=project).stdout)
    assert out["opted_in"] is True
    assert out["live"] == 1
    assert out["memories"] == {"active": 1}


def test_show_unknown_id(project: Path) -> None:
    result = run_cli("show", "ffffffff", cwd=project)
    assert result.returncode == 1
    assert "no memory ffffffff" in result.stderr
    hostile = run_cli("show", "../../etc/passwd", cwd=project)
    assert hostile.returncode == 1
    assert "is not a memory id" in hostile.stderr


def test_schema_memory_is_json_schema(tmp_path: Path) -> None:
    schema = json.loads(run_cli("schema", "memory", cwd=tmp_path).stdout)
    assert schema["title"] == "Memory"
    assert {"id", "topic", "kind", "status", "not_derivable", "triggers"} <= set(
        schema["properties"]
    )


@pytest.mark.parametrize("command", ["list", "show", "status", "init"])
def test_help_documents_json_keys(tmp_path: Path, command: str) -> None:
    result = run_cli(command, "--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "--json" in result.stdout


def test_a_bad_config_is_named(project: Path) -> None:
    config = project / ".cuecard/config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "delivery_limit": 10}))
    result = run_cli("status", cwd=project)
    assert result.returncode == 1
    assert "delivery_limit input should be greater than or equal to 2000" in result.stderr
