"""scripts/check-deps reuses a Node part that scripts/test finds installed (its stamp current)
instead of downloading it again; CI (CI=true, a clean clone) and --fresh install every part from
nothing through the loopback registry, which scripts/check-install runs in CI.

Only the plugins' test packages take part here (the DeepSeek Harness host and the harness CLIs are
skipped by their variables), so that nothing is downloaded once they are installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAMP = ROOT / "packages" / "dsh-adapter" / "js" / "node_modules" / ".cuecard-stamp"


def test_check_deps_reuses_a_part_whose_stamp_is_current() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(CUECARD_SKIP_DSH_HOST="1", CUECARD_SKIP_HARNESSES="1")
    # what scripts/test does first: the part installed, its stamp current (no download when so)
    subprocess.run(["bash", "scripts/deps/dsh-node.sh"], cwd=ROOT, env=env, check=True, timeout=900)
    before = STAMP.stat()
    done = subprocess.run(
        ["scripts/check-deps"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    after = STAMP.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), done.stderr
    assert "0 parts installed" in done.stderr
    assert "reused, their stamps current" in done.stderr
    assert "npm ci (the plugins' test packages)" in done.stderr
