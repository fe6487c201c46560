"""DSH recall (cuecard-dsh-adapter's worker) and the hook (cuecard-hooks) share one delivery
ledger: a project memory recalled in a session is not delivered again by ``cuecard-hook``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cuecard.core.engine import ADVISORY
from cuecard.dsh_adapter._recall import INSTRUCTIONS
from tests._support.dsh import Home, line, serve


def test_recall_in_a_session_gives_each_project_memory_once_per_epoch(
    dsh_seeded: Home, project: Path
) -> None:
    from tests._support.cli import run_cli

    added = run_cli(
        "add", "--topic", "ops/staging", "--kind", "fact", "--title", "Staging port",
        "--body", "Staging answers on port 8443 behind the VPN.",
        "--not-derivable", "set in the ops repository", "--on", "prompt", "--keywords", "staging",
        cwd=project,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    ask = {"op": "recall", "text": "which port does the staging server use?",
           "project": str(project), "session": "session-1"}  # fmt: skip
    first, second, other = serve([
        line({"id": 1, **ask}),
        line({"id": 2, **ask}),
        line({"id": 3, **ask, "session": "session-2"}),
    ])  # fmt: skip
    assert "Staging answers on port 8443" in str(first["output"])
    assert "Staging answers on port 8443" not in str(second["output"])  # delivered this epoch
    assert "listens on port 8443" in str(second["output"])  # vault facts are not rationed
    assert "Staging answers on port 8443" in str(other["output"])  # another session
    # the hook sees the recall's delivery in the same ledger: it does not deliver it again
    payload = {"session_id": "session-1", "cwd": str(project), "hook_event_name":
               "UserPromptSubmit", "prompt": "the staging server port?"}  # fmt: skip
    hook = subprocess.run(
        [str(Path(sys.executable).with_name("cuecard-hook")), "claude", "UserPromptSubmit"],
        input=json.dumps(payload), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert "Staging answers on port 8443" not in hook.stdout


def test_a_recalled_project_memory_is_a_delivery_health_counts(
    dsh_seeded: Home, project: Path
) -> None:
    from tests._support.cli import run_cli

    added = run_cli(
        "add", "--topic", "ops/staging", "--kind", "fact", "--title", "Staging port",
        "--body", "Staging answers on port 8443 behind the VPN.",
        "--not-derivable", "set in the ops repository", "--on", "prompt", "--keywords", "staging",
        cwd=project,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    [answer] = serve([line({"id": 1, "op": "recall", "text": "which port does staging use?",
                            "project": str(project), "session": "session-1"})])  # fmt: skip
    output = str(answer["output"])
    assert "Staging answers on port 8443" in output
    assert output.endswith(f"</memory-data>\n{INSTRUCTIONS}\n{ADVISORY}")
    health = run_cli("health", "--json", cwd=project)
    assert health.returncode == 0, health.stderr
    report = json.loads(health.stdout)
    [memory] = [m for m in report["memories"] if m["title"] == "Staging port"]
    assert memory["fires"] == {"recall": 1}
    assert memory["last_delivered"] is not None
    [delivery] = report["last_deliveries"]
    assert delivery["session"] == "session-1"
    assert delivery["event"] == "prompt"
    assert (delivery["delivered"], delivery["size"]) == (1, len(output))
    assert delivery["ids"] == [[memory["id"], "recall"]]
