"""Running the DSH host's own command (``dsh plugin --profile P add|remove …``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cuecard.dsh_adapter._errors import DshAdapterError

__all__ = ["run_dsh"]


def run_dsh(command: list[str], dsh_home: str | None) -> None:
    """Run ``command`` (``[dsh, "plugin", …]``), with ``DSH_HOME`` set when ``dsh_home`` is
    given; a failure raises with the end of its output."""
    env = dict(os.environ)
    if dsh_home:
        env["DSH_HOME"] = str(Path(dsh_home).absolute())
    verb = " ".join(command[1:2] + command[4:5])
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise DshAdapterError(f"`dsh {verb}` could not be run: {exc}") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise DshAdapterError(f"`dsh {verb}` failed (exit {done.returncode}): {tail}")
