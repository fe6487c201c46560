"""One CLI layout: every command comes from a table (name, help line, module) and a cold command
imports only its own modules, none of another command nor another distribution."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import cuecard.core.cli.vault
from cuecard.core import Store
from cuecard.core.cli import BUILTINS, Command, build_parser
from cuecard.core.cli.vault import SUBCOMMANDS as VAULT
from cuecard.dsh_adapter.cli import SUBCOMMANDS as DSH
from cuecard.hooks.cli import COMMANDS as HOOKS
from cuecard.ui.cli import register as ui_command
from cuecard.wp_projection import status_report
from cuecard.wp_projection.cli import SUBCOMMANDS as WP
from tests._support.cli import run_cli

# The modules each satellite's cuecard.commands entry points name, as installed.
ENTRY_MODULES = {e.name: e.module for e in entry_points(group="cuecard.commands")}
DISTRIBUTIONS = ("cuecard.hooks", "cuecard.dsh_adapter", "cuecard.wp_projection", "cuecard.ui")


def _table() -> dict[tuple[str, ...], list[str]]:
    """Each command's path and the command modules running it imports, group first."""
    paths: dict[tuple[str, ...], list[str]] = {}
    for name, command in BUILTINS.items():
        paths[(name,)] = [command.module]
    for name, command in VAULT.items():
        paths[("vault", name)] = [cuecard.core.cli.vault.__name__, command.module]
    for group, table in (("dsh", DSH), ("wp", WP)):
        paths[(group,)] = [ENTRY_MODULES[group]]
        for name, command in table.items():
            paths[(group, name)] = [ENTRY_MODULES[group], command.module]
    for name, command in {**HOOKS, "ui": ui_command}.items():
        paths[(name,)] = [ENTRY_MODULES[name], command.module]
    return paths


PATHS = _table()
COMMAND_MODULES = {m for modules in PATHS.values() for m in modules}

# Runs each command line in a forked child of one cold interpreter that has imported only
# cuecard.core.cli, and prints the cuecard modules each child ended with.
PROBE = """
import json, os, sys
from cuecard.core.cli import main
found = []
for argv in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            main(argv)
        except SystemExit:
            pass
        loaded = [m for m in sys.modules if m.startswith(("cuecard", "importlib.metadata"))]
        os.write(write, json.dumps(loaded).encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    found.append(json.loads(b"".join(chunks)))
print(json.dumps(found))
"""


def _probe(argvs: list[list[str]], cwd: Path) -> list[set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argvs)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=True,
    )
    return [set(modules) for modules in json.loads(done.stdout)]


def test_the_tables_name_every_command_the_parser_has() -> None:
    parser = build_parser()
    top = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(top, argparse._SubParsersAction)
    assert set(top.choices) == {p[0] for p in PATHS}
    for group in ("vault", "dsh", "wp"):
        sub = top.choices[group]
        inner = next(a for a in sub._actions if a.dest.endswith("_command"))
        assert set(inner.choices or ()) == {p[1] for p in PATHS if p[0] == group and len(p) == 2}


def test_every_command_s_help_line_comes_from_its_table(tmp_path: Path) -> None:
    """``cuecard --help`` and each group's ``--help`` list the table's lines, imported nothing."""
    rows: dict[tuple[str, ...], Command] = {}
    rows.update({(n,): c for n, c in BUILTINS.items()})
    rows.update({("vault", n): c for n, c in VAULT.items()})
    rows.update({("wp", n): c for n, c in WP.items()})
    rows.update({("dsh", n): c for n, c in DSH.items()})
    rows.update({(n,): c for n, c in {**HOOKS, "ui": ui_command}.items()})
    for group in ((), ("vault",), ("wp",), ("dsh",)):
        done = subprocess.run(
            [str(Path(sys.executable).parent / "cuecard"), *group, "--help"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env={"COLUMNS": "400", "PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
            check=True,
        )
        listed = " ".join(done.stdout.split())
        for path, command in rows.items():
            if path[:-1] == group:
                assert f"{command.name} {command.help}" in listed, (group, command.name)


@pytest.mark.parametrize("group", [None, "vault", "dsh", "wp", "hooks"])
def test_a_cold_command_imports_only_its_own_modules(group: str | None, tmp_path: Path) -> None:
    hooks: set[tuple[str, ...]] = {("install",), ("uninstall",), ("demo",), ("ui",)}
    if group == "hooks":
        chosen = sorted(hooks)
    elif group is None:
        chosen = sorted(p for p in PATHS if len(p) == 1 and p not in hooks and p[0] in BUILTINS)
    else:
        chosen = sorted(p for p in PATHS if p[0] == group)
    for path, loaded in zip(
        chosen, _probe([[*p, "--help"] for p in chosen], tmp_path), strict=True
    ):
        assert loaded & COMMAND_MODULES == set(PATHS[path]), path
        others = {m for m in loaded if m.startswith(DISTRIBUTIONS)}
        if path[0] in BUILTINS:  # a built-in never scans the entry points
            assert not others, (path, others)
            assert "importlib.metadata" not in loaded, (path, others)
        elif path[0] not in {"install", "uninstall"}:  # these load the (un)installers' options
            own = PATHS[path][0].rsplit(".cli", 1)[0]
            assert {m for m in others if not m.startswith(own)} == set(), path


def test_running_a_cold_command_imports_no_other_command(project: Path) -> None:
    """Not only --help: `cuecard list` and `cuecard wp status` run for real."""
    root = project / "wp-root"
    root.mkdir()
    argvs = [["list", "--json"], ["wp", "status", "--root", str(root), "--json"]]
    listed, status = _probe(argvs, project)
    assert listed & COMMAND_MODULES == {BUILTINS["list"].module}
    assert Store.__module__ in listed  # it ran
    assert not {m for m in listed if m.startswith(DISTRIBUTIONS)}
    assert status & COMMAND_MODULES == {ENTRY_MODULES["wp"], WP["status"].module}
    assert status_report.__module__ in status  # it ran
    assert not {m for m in status if m.startswith(DISTRIBUTIONS[:2] + DISTRIBUTIONS[3:])}


def test_a_command_registers_into_a_plain_argparse_group_at_once() -> None:
    """A ``Command`` is a ``register(subparsers)``: given subparsers that are not lazy (another
    program's parser), it imports its module at once and lists the table's help line."""
    import argparse

    parser = argparse.ArgumentParser(prog="other")
    sub = parser.add_subparsers(dest="command")
    BUILTINS["list"](sub)
    assert "list memories" in parser.format_help()
    args = parser.parse_args(["list", "--status", "active"])
    assert args.status == "active"
    assert args.run.__module__ == BUILTINS["list"].module


def test_version_names_every_installed_distribution(tmp_path: Path) -> None:
    result = run_cli("--version", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    names = [line.split()[0] for line in lines[1:]]
    for name in ("core", "hooks", "dsh-adapter", "wp-projection", "ui"):
        assert f"cuecard-{name}" in names, lines


def test_messages_go_to_stderr_and_json_to_stdout(tmp_path: Path) -> None:
    """The README's promise: a command's messages on stderr; its --json object on stdout."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    vault = tmp_path / "vault"
    assert run_cli("vault", "init", "--vault", str(vault), cwd=tmp_path).returncode == 0
    steps = [
        (["init"], "initialised"),
        (["compile"], "compiled 0 live memories"),
        (["maintain"], "rolled up"),
        (["install", "claude"], "cuecard install for claude (project): done"),
        (
            ["vault", "submit", "--vault", str(vault), "--agent", "a", "ports are 8080"],
            "submitted 1",
        ),
    ]
    for argv, said in steps:
        result = run_cli(*argv, cwd=repo)
        assert result.returncode == 0, (argv, result.stderr)
        assert said in result.stderr, argv
        assert result.stdout == "", argv
        as_json = run_cli(*argv, "--json", cwd=repo)
        assert as_json.returncode == 0, (argv, as_json.stderr)
        assert isinstance(json.loads(as_json.stdout), dict), argv
