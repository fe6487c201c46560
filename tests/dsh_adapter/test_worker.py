"""``python -I -m cuecard.dsh_adapter serve``: the worker the plugins keep, over its protocol."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests._support.dsh import Home, line, serve, vault_cli


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


def test_bad_text_in_any_field_is_an_error_answer_and_the_worker_goes_on(seeded: Home) -> None:
    hostile = [
        b'{"id": "\\ud800", "op": "hello"}\n',
        b'{"id": 2, "op": "recall", "text": "staging \\udfff port"}\n',
        b'{"id": 3, "op": "call", "tool": "search", "request": {"query": "8443 \\udc80"}}\n',
        b'{"id": 4, "op": "call", "tool": "submit", "request": {"fact": "The port \\ud83d is"}}\n',
        b'{"id": 5, "op": "hello", "pad": "\xff\xfe"}\n',
        b'{"id": 6, "op": "hello", "pad": ' + b"[" * 200 + b"]" * 200 + b"}\n",
    ]
    answers = serve([*hostile, line({"id": 7, "op": "hello"})])
    assert len(answers) == len(hostile) + 1
    for answer in answers[:-1]:
        assert answer["id"] is None
        assert "the request" in str(answer["error"])
    assert "lone surrogate (U+D800)" in str(answers[0]["error"])
    assert "not UTF-8" in str(answers[4]["error"])
    assert "deeper than" in str(answers[5]["error"])
    assert answers[-1]["id"] == 7
    assert answers[-1]["ok"] is True
    files = [p for p in seeded.vault.rglob("*") if p.is_file()]
    assert not any(b"The port" in p.read_bytes() for p in files)


def test_an_unreadable_recall_index_is_rebuilt_once_and_the_tools_say_so(home: Home) -> None:
    """The plugins' worker: the memory tools and recall answer after one rebuild, the line
    comes back as a notice (the plugins print it on the host's standard error); a second failure
    is an answer naming the file and the fix. No traceback anywhere."""
    vault_cli("vault", "submit", "--agent", "t", stdin=f"- {FACT}\n")
    vault_cli("vault", "apply", "--auto")
    index = Path(json.loads(vault_cli("vault", "status", "--json"))["index"]["path"])
    index.write_bytes(b"not a database" * 500)
    search = {"op": "call", "tool": "search", "request": {"query": "staging port"}}
    first, second, recalled = serve([
        line({"id": 1, **search}), line({"id": 2, **search}),
        line({"id": 3, "op": "recall", "text": "staging port?", "mode": "always"}),
    ])  # fmt: skip
    response = first["response"]
    assert isinstance(response, dict)
    assert response["ok"] is True
    assert FACT in response["output"]
    assert first["notices"] == [
        f"cuecard: the recall index {index} could not be read (file is not a database); "
        f"rebuilding it from {home.vault}"
    ]
    assert "notices" not in second  # once
    assert "notices" not in recalled
    assert FACT in str(recalled["output"])
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    index.mkdir()  # cannot be opened, nor deleted to be rebuilt
    [broken] = serve([line({"id": 4, **search})])
    response = broken["response"]
    assert isinstance(response, dict)
    assert response["ok"] is False
    assert str(response["error"]).startswith(f"the recall index {index} cannot be read")
    assert "Traceback" not in json.dumps(broken)


FACT = "The staging server listens on port 8443 behind the VPN."
