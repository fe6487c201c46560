"""A logging ``cuecard-hook`` put first on the PATH: it records what the harness sent (argv,
the payload as received, what cuecard answered, the exit status and the hook's wall time) as one
JSON line per call, then answers exactly as the real ``cuecard-hook`` did.

The harness finds it as it finds the real one (the committed hook command looks ``cuecard-hook``
up on the PATH), so a recording run is an ordinary run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e._support._harnesses import VENV_BIN

SHIM = """#!{python}
import json, subprocess, sys, time
data = sys.stdin.buffer.read()
start = time.monotonic()
done = subprocess.run([{hook!r}, *sys.argv[1:]], input=data, capture_output=True)
took = (time.monotonic() - start) * 1000
try:
    payload = json.loads(data)
except ValueError:
    payload = data.decode("utf-8", "replace")
with open({log!r}, "a", encoding="utf-8") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "payload": payload,
                          "stdout": done.stdout.decode("utf-8", "replace"),
                          "stderr": done.stderr.decode("utf-8", "replace"),
                          "exit": done.returncode, "ms": round(took, 1)}}) + "\\n")
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
sys.exit(done.returncode)
"""


def make_recorder(folder: Path) -> tuple[Path, Path]:
    """A folder holding the logging ``cuecard-hook`` (put it first on the PATH), and its log."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "calls.jsonl"
    shim = folder / "cuecard-hook"
    text = SHIM.format(python=sys.executable, hook=str(VENV_BIN / "cuecard-hook"), log=str(log))
    shim.write_text(text, encoding="utf-8")
    shim.chmod(0o755)
    return folder, log


def calls(log: Path) -> list[dict[str, Any]]:
    """The recorded calls, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text("utf-8").splitlines() if line]
