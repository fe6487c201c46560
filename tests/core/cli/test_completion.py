"""`cuecard completion bash|zsh`: scripts generated from the command tables, run by the real
shells (zsh from scripts/deps/zsh.sh)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cuecard.core.cli import BUILTINS
from cuecard.core.cli.vault import SUBCOMMANDS as VAULT
from tests._support.cli import run_cli

BASH = """
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
_cuecard
printf '%s\\n' "${COMPREPLY[@]}"
"""

ZSH = """
compdef() { :; }
compadd() { print -rl -- "${@:2}"; }
_files() { print -- '(files)'; }
source "$1"
shift
words=("$@")
CURRENT=$#
_cuecard
"""


def _script(tmp_path: Path, shell: str) -> Path:
    result = run_cli("completion", shell, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    path = tmp_path / f"cuecard.{shell}"
    path.write_text(result.stdout)
    return path


def _complete(shell: str, script: Path, *words: str) -> list[str]:
    program = shutil.which(shell)
    if program is None:
        pytest.skip(f"no {shell} here (scripts/deps/zsh.sh installs it)")
    flags = ["-f"] if shell == "zsh" else ["--norc", "--noprofile"]
    done = subprocess.run(
        [program, *flags, "-c", BASH if shell == "bash" else ZSH, shell, str(script), *words],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    found = done.stdout.split()
    # zsh filters by the word typed itself; do the same for comparison
    return sorted(w for w in found if w.startswith(words[-1]) or w == "(files)")


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_offers_the_tables_commands_and_options(tmp_path: Path, shell: str) -> None:
    script = _script(tmp_path, shell)
    assert sorted(set(BUILTINS) - set(_complete(shell, script, "cuecard", ""))) == []
    assert _complete(shell, script, "cuecard", "sta") == ["status"]
    assert sorted(VAULT) == _complete(shell, script, "cuecard", "vault", "")
    assert _complete(shell, script, "cuecard", "vault", "se") == ["search"]
    assert _complete(shell, script, "cuecard", "vault", "search", "--l") == ["--limit"]
    # options after a positional argument still belong to the command
    assert "--json" in _complete(shell, script, "cuecard", "list", "--")
    assert _complete(shell, script, "cuecard", "--v") == ["--version"]


def test_zsh_falls_back_to_files_where_no_table_has_words(tmp_path: Path) -> None:
    script = _script(tmp_path, "zsh")
    assert _complete("zsh", script, "cuecard", "ingest", "") == ["(files)"]


def test_an_unknown_shell_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("completion", "fish", cwd=tmp_path)
    assert result.returncode == 2
    assert "invalid choice" in result.stderr
