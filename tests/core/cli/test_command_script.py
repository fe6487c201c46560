"""The installed ``cuecard`` command is a script of its own (the core wheel's shared-scripts),
not an installer's entry-point wrapper, which imports ``re``: a cold search through the real
command imports neither ``re`` nor argparse."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cuecard.core.cli import _fast

BIN = Path(sys.executable).parent


def test_the_command_runs_a_cold_search_without_re_or_argparse(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUECARD")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    root = tmp_path / "vault"
    cuecard = str(BIN / "cuecard")

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
        return done

    run(cuecard, "vault", "init", "--vault", str(root))
    (root / "notes" / "env.md").write_text("# env\n\n- the beaver port is 4242\n", "utf-8")
    assert "beaver port" in run(cuecard, "vault", "search", "--vault", str(root), "beaver").stdout
    done = run(sys.executable, "-X", "importtime", cuecard, "vault", "search", "--vault", str(root),
               "beaver")  # fmt: skip
    assert "beaver port is 4242" in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert _fast.__name__ in imported  # the timing lines were read (the fast path ran)
    assert {"re", "argparse", "pydantic"} & imported == set()
    assert run(cuecard, "--version").stdout.startswith("cuecard ")
