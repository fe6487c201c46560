"""Text that is not UTF-8 (a byte of an argument, the standard input or a file, a lone surrogate
in JSON) or JSON nested too deeply: every command answers one line and exit 1, never a
traceback, and writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests._support.cli import BIN, Run

ADD = [
    "add", "--topic", "billing/retries", "--kind", "trap", "--title", "Retries double charge",
    "--body", "The gateway retries a timed-out charge itself.", "--not-derivable",
    "Only the gateway's dashboard shows it.",
]  # fmt: skip


def _cuecard(
    args: list[bytes], cwd: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The installed command with raw bytes as arguments and standard input."""
    env = {**os.environ, **(env or {})}
    env.pop("CUECARD_PROJECT_DIR", None)
    return subprocess.run(
        [os.fsencode(BIN / "cuecard"), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )


def _one_line(result: subprocess.CompletedProcess[bytes]) -> str:
    err = result.stderr.decode("utf-8")
    assert result.returncode == 1, err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    assert result.stdout == b""
    return err


def _memories(project: Path) -> list[Path]:
    return sorted((project / ".cuecard" / "memories").glob("*.json"))


@pytest.mark.parametrize(
    "flag", ["--title", "--body", "--not-derivable", "--topic"], ids=lambda f: f.strip("-")
)
def test_add_refuses_an_argument_that_is_not_utf8(project: Path, flag: str) -> None:
    args = [a.encode() for a in ADD]
    args[args.index(flag.encode()) + 1] += b" \xff\xfe sk-live-secret"
    err = _one_line(_cuecard(args, project))
    assert f"the value of {flag}" in err
    assert "0xff" in err
    assert "secret" not in err  # the argument is not printed back
    assert _memories(project) == []


def test_add_refuses_a_lone_surrogate_in_process(project: Path, cc: Run, monkeypatch) -> None:
    monkeypatch.chdir(project)
    args = list(ADD)
    args[args.index("--body") + 1] = "half an emoji \ud83d"
    code, out, err = cc(*args)
    assert (code, out) == (1, "")
    assert "lone surrogate (U+D83D)" in err
    assert len(err.splitlines()) == 1
    assert _memories(project) == []


def _proposal(**fields: object) -> dict[str, object]:
    return {
        "topic": "billing/retries",
        "kind": "trap",
        "title": "Retries double charge",
        "body": "The gateway retries a timed-out charge itself; never retry on our side.",
        "not_derivable": "Only the gateway's dashboard shows it.",
        **fields,
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (json.dumps(_proposal(title="Retries \ud800 double charge")).encode(), "lone surrogate"),
        (json.dumps(_proposal(body="\udfff" * 3)).encode(), "body: holds a lone surrogate"),
        (
            json.dumps(_proposal(title="Retries double charge"))
            .encode()
            .replace(b"double", b"\xff"),
            "not UTF-8 text (byte 0xff",
        ),
        (
            json.dumps(_proposal(triggers=[{"on": ["edit"], "paths": ["a\udc80b"]}])).encode(),
            "triggers[0].paths[0]: holds a lone surrogate",
        ),
    ],
    ids=["title-surrogate", "body-surrogates", "latin1-byte", "glob-surrogate"],
)
def test_ingest_refuses_a_proposal_that_is_not_utf8(
    project: Path, raw: bytes, expected: str
) -> None:
    inbox = project / ".cuecard" / "inbox"
    (inbox / "p.json").write_bytes(raw)
    result = _cuecard([b"ingest"], project)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr.decode()
    out = result.stdout.decode("utf-8")
    assert out.startswith("cuecard refused p.json: ")
    assert len(out.splitlines()) == 1, out
    assert expected in out
    assert _memories(project) == []
    assert list(inbox.iterdir()) == []
    kept = list((project / ".cuecard" / "local" / "inbox-refused").iterdir())
    assert len(kept) == 1
    kept[0].read_text(encoding="utf-8")  # what is kept is UTF-8 itself


def test_ingest_refuses_a_file_name_that_is_not_utf8(project: Path) -> None:
    err = _one_line(_cuecard([b"ingest", b".cuecard/inbox/p\xff.json"], project))
    assert "argument 2: holds the byte 0xff (not UTF-8)" in err


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        ([b"vault", b"submit", b"--agent", b"a"], b"The staging port is \xff 8443\n"),
        ([b"vault", b"submit", b"--agent", b"a\xff", b"The staging port is 8443"], b""),
        ([b"vault", b"search", b"staging \xff"], b""),
        ([b"recall", b"\xffstaging"], b""),
        ([b"match", b"--event", b"edit", b"--path", b"src/\xff.py"], b""),
    ],
    ids=["submit-stdin", "submit-agent", "search-argument", "recall-argument", "match-path"],
)
def test_other_commands_answer_one_line_too(
    project: Path, tmp_path: Path, args: list[bytes], stdin: bytes
) -> None:
    vault = tmp_path / "vault"
    env = {"CUECARD_VAULT": str(vault)}
    init = _cuecard([b"vault", b"init"], project, env=env)
    assert init.returncode == 0, init.stderr
    before = sorted(p.relative_to(vault) for p in vault.rglob("*"))
    err = _one_line(_cuecard(args, project, stdin, env=env))
    assert "UTF-8" in err
    assert sorted(p.relative_to(vault) for p in vault.rglob("*")) == before
