"""The real DSH host (``@deepseek-ai/dsh`` 0.1.0-rc.8 on Node 22) as the tests run it.

``scripts/deps/dsh-node.sh`` installs it with pnpm into packages/dsh-adapter/js/.dsh-host;
``CUECARD_SKIP_DSH_HOST=1`` skips that, and these tests with it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

HOST = Path(__file__).resolve().parents[2] / "packages" / "dsh-adapter" / "js" / ".dsh-host"
NODE22 = HOST / "node22" / "bin"
PNPM = HOST / "pnpm" / "node_modules" / ".bin"
DSH = HOST / "host" / "node_modules" / ".bin" / "dsh"
# rc.8 always watches the user patch layer, which needs the hmr row on (see the host's notes).
HMR_ON = "- id: hmr\n  disabled: false\n"
DECODE = (
    "const z=require('zlib'),fs=require('fs');const b=fs.readFileSync(process.argv[1]);"
    "const m=Buffer.from([0x28,0xb5,0x2f,0xfd]);const at=[];let i=0;"
    "while((i=b.indexOf(m,i))!==-1){at.push(i);i+=4}"
    "let out='';for(let k=0;k<at.length;k++){try{out+=z.zstdDecompressSync("
    "b.subarray(at[k],at[k+1]??b.length)).toString()}catch(e){}}process.stdout.write(out)"
)


def require_host() -> None:
    """Skip when the host was deliberately not installed; fail when it is missing otherwise."""
    if os.environ.get("CUECARD_SKIP_DSH_HOST") == "1":
        pytest.skip("CUECARD_SKIP_DSH_HOST=1: the DSH host was not installed")
    assert DSH.is_file(), "run scripts/deps/dsh-node.sh (scripts/test does) to install the DSH host"
    assert (NODE22 / "node").is_file(), (
        "run scripts/deps/dsh-node.sh (scripts/test does) to install the DSH host"
    )


def host_env(base: Mapping[str, str], dsh_home: Path) -> dict[str, str]:
    """``base`` with Node 22 and pnpm first on PATH, a DSH home of its own, telemetry off."""
    env = {
        **base,
        "PATH": os.pathsep.join([str(NODE22), str(PNPM), base.get("PATH", "")]),
        "DSH_HOME": str(dsh_home),
        "DSH_TELEMETRY_DISABLED": "1",
    }
    env.pop("DEEPSEEK_API_KEY", None)
    env.pop("CUECARD_PROJECT_DIR", None)
    return env


def hmr_patch(folder: Path) -> Path:
    patch = folder / "hmr-on.yml"
    patch.write_text(HMR_ON)
    return patch


def session_events(dsh_home: Path) -> list[dict[str, Any]]:
    """The events of the latest session under ``dsh_home`` (its zstd JSONL log, read by Node
    22)."""
    logs = (dsh_home / "sessions").glob("*/session-*/session.jsonl.zstd")
    log = max(logs, key=lambda p: p.stat().st_mtime_ns)
    done = subprocess.run(
        [str(NODE22 / "node"), "-e", DECODE, str(log)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def text_of(event: Mapping[str, Any]) -> str:
    return "".join(b.get("text", "") for b in event["data"].get("content", []))
