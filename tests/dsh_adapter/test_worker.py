"""``python -I -m cuecard.dsh_adapter serve``: the worker the plugins keep, over its protocol."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.dsh import Home


def serve(lines: list[bytes], cwd: Path | None = None) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-I", "-m", "cuecard.dsh_adapter", "serve"],
        input=b"".join(lines),
        capture_output=True,
        cwd=cwd,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def line(value: object) -> bytes:
    return json.dumps(value).encode() + b"\n"


def test_the_worker_answers_each_request_in_order_and_survives_bad_ones(
    seeded: Home, project: Path
) -> None:
    answers = serve([
        line({"id": 1, "op": "hello"}),
        line({"id": 2, "op": "call", "tool": "memory_search", "request": {"query": "staging"}}),
        b"{not json\n",
        line({"id": 3, "op": "call", "tool": "show", "request": {"doc": "../x"}}),
        b"\n",
        line({"id": 4, "op": "recall", "text": "Which port does the staging server use?"}),
        line({"id": 5, "op": "recall", "text": "Write a haiku about autumn"}),
        line({"id": 6, "op": "delete"}),
        line({"id": 7, "op": "call", "tool": "search", "request": {"query": "8443"},
              "project": str(project)}),
    ])  # fmt: skip
    assert [a.get("id") for a in answers] == [1, 2, None, 3, 4, 5, 6, 7]
    hello = answers[0]
    assert hello["ok"] is True
    assert hello["vault"] == str(seeded.vault)
    assert hello["python"] == sys.executable
    response = answers[1]["response"]
    assert isinstance(response, dict)
    assert "listens on port 8443" in str(response["output"])
    assert "error" in answers[2]
    assert answers[3]["code"] == 1
    assert "separator" in str(answers[3]["response"])
    assert "listens on port 8443" in str(answers[4]["output"])
    assert answers[5] == {"id": 5, "output": "", "topics": [], "searched": False}
    assert "unknown" in str(answers[6]["error"])
    assert answers[7]["code"] == 0


def test_an_overlong_line_is_refused_and_the_next_one_answered(seeded: Home) -> None:
    from cuecard.dsh_adapter._worker import MAX_LINE

    huge = b'{"id": 1, "op": "hello", "pad": "' + b"x" * (MAX_LINE + 10) + b'"}\n'
    answers = serve([huge, line({"id": 2, "op": "hello"})])
    assert answers[0]["id"] is None
    assert "over" in str(answers[0]["error"])
    assert answers[1]["id"] == 2
    assert answers[1]["ok"] is True


def test_stray_output_cannot_break_the_protocol(seeded: Home) -> None:
    script = (
        "import os, sys\n"
        "from cuecard.dsh_adapter import _worker\n"
        "def noisy(request, vault):\n"
        "    print('a stray line')\n"
        "    os.write(1, b'raw bytes on fd 1\\n')\n"
        "    return {'ok': True}\n"
        "_worker._OPS['noisy'] = noisy\n"
        "sys.exit(_worker.serve())\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", script],
        input=line({"id": 9, "op": "noisy"}) + line({"id": 10, "op": "hello"}),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert answers[0] == {"id": 9, "ok": True}
    assert answers[1]["id"] == 10
    assert b"a stray line" in done.stderr
    assert b"raw bytes on fd 1" in done.stderr


def test_recall_in_a_session_gives_each_project_memory_once_per_epoch(
    seeded: Home, project: Path
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


def test_hello_names_a_vault_that_is_missing_or_not_a_vault(
    isolated: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    [missing] = serve([line({"id": 1, "op": "hello"})])
    assert missing["ok"] is True
    assert "does not exist" in str(missing["vault_problem"])
    plain = isolated.root / "plain"
    plain.mkdir()
    monkeypatch.setenv("CUECARD_VAULT", str(plain))
    [not_a_vault] = serve([line({"id": 1, "op": "hello"})])
    assert "is not a vault" in str(not_a_vault["vault_problem"])
    monkeypatch.delenv("CUECARD_VAULT")
    [unset] = serve([line({"id": 1, "op": "hello"})])
    assert "CUECARD_VAULT" in str(unset["vault_problem"])
    assert unset["vault"] is None
