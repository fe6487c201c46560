"""One credential detector for every surface of core: the corpus of fake credentials (over 60
service families) is refused by ``cuecard add``, ``cuecard ingest``, ``cuecard vault submit`` and
``cuecard import``, each without echoing it, and every placeholder is accepted by each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuecard.core.engine._secrets import find_secret, redact
from tests._support.cli import Run
from tests._support.credentials import (
    CREDENTIALS,
    GENERIC,
    PLACEHOLDERS,
    Credential,
    fragments,
)


@pytest.fixture
def cli(project: Path, cc: Run, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``cuecard ARGS...`` in this process, in the project."""
    monkeypatch.chdir(project)
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    return cc


def _echoes(credential: Credential, *texts: str) -> list[str]:
    return [piece for piece in fragments(credential) for text in texts if piece in text]


def test_the_corpus_spans_sixty_families_and_thirty_placeholders() -> None:
    services = {c.family for c in CREDENTIALS} - GENERIC
    assert len(services) >= 60
    assert {c.family for c in CREDENTIALS} >= GENERIC
    assert len(set(PLACEHOLDERS)) >= 30


def test_the_detector_names_every_credential_and_redacts_it() -> None:
    missed = [c.family for c in CREDENTIALS if find_secret(c.text) is None]
    assert missed == []
    echoed = [
        c.family for c in CREDENTIALS if _echoes(c, redact(c.text), find_secret(c.text) or "")
    ]
    assert echoed == []


def test_the_detector_takes_every_placeholder() -> None:
    assert [p for p in PLACEHOLDERS if find_secret(p) is not None] == []
    assert [p for p in PLACEHOLDERS if redact(p) != p] == []


@pytest.mark.parametrize("text", ["\ud800", "key \udfff AKIA", "password: \ud800abc12345", "é" * 9])
def test_the_detector_takes_lone_surrogates(text: str) -> None:
    find_secret(text)
    assert len(redact(text)) >= 0


def test_a_credential_next_to_a_lone_surrogate_is_still_found() -> None:
    credential = CREDENTIALS[1]
    text = f"\ud800 {credential.text} \udfff"
    assert find_secret(text) is not None
    shown = redact(text)
    assert credential.secret not in shown
    assert shown.startswith("\ud800")
    assert shown.endswith("\udfff")


HOSTILE = [
    "password=" + "_." * 40 + "_!",
    "token: " + "a." * 5000 + "!",
    "secret=" + "a_" * 5000 + "!",
    "Bearer " + "0" * 100_000 + " ",
    "commit " + "a" * 100_000 + "!",
    "eyJ" + "eyJ" * 30_000 + ".",
    "https://" + "a:" * 30_000 + "@",
]


def test_hostile_values_are_judged_in_bounded_time() -> None:
    """Values built to make a backtracking pattern take exponential or quadratic time are judged
    in a child process that must end (a liveness bound, not a timing)."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from cuecard.core.engine._secrets import find_secret, redact\n"
        "for text in json.load(sys.stdin):\n"
        "    find_secret(text)\n"
        "    redact(text)\n"
        "print('done')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(HOSTILE),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() == "done", done.stderr


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000", "\x0b", "\x1f"])
def test_a_credential_behind_an_unusual_space_is_still_found(space: str) -> None:
    for text in (f"password{space}:{space}hunter22x", f"Bearer{space}abcdefghij0123456789abcdef"):
        assert find_secret(text) is not None, repr(text)
        assert "[redacted]" in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "git show 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
        "git reset --hard 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "the token budget is 4096",
        "the access token: rotated monthly",
        "password: see the team vault",
    ],
)
def test_ordinary_text_is_no_credential(text: str) -> None:
    assert find_secret(text) is None
    assert redact(text) == text


def _add(cli: Run, number: int, body: str) -> tuple[int, str, str]:
    return cli(
        "add", "--topic", f"corpus/m{number}", "--kind", "fact", "--title", f"Corpus {number}",
        "--body", body, "--not-derivable", "The deploy notes say so.",
    )  # fmt: skip


def test_add_refuses_every_credential_without_echo(project: Path, cli: Run) -> None:
    refused = []
    for number, credential in enumerate(CREDENTIALS):
        code, out, err = _add(cli, number, f"Deploys use {credential.text} today.")
        assert "credential" in err, credential.family
        if code == 1:
            refused.append(credential.family)
        assert _echoes(credential, out, err) == [], credential.family
    assert refused == [c.family for c in CREDENTIALS]
    assert list((project / ".cuecard/memories").glob("*.json")) == []


def test_add_takes_every_placeholder(project: Path, cli: Run) -> None:
    for number, text in enumerate(PLACEHOLDERS):
        code, _, err = _add(cli, number, f"Configure it as {text} in the settings.")
        assert code == 0, (text, err)
    assert len(list((project / ".cuecard/memories").glob("*.json"))) == len(PLACEHOLDERS)


def _proposal(number: int, body: str) -> str:
    return json.dumps(
        {
            "topic": f"corpus/p{number}",
            "kind": "fact",
            "title": f"Corpus proposal {number}",
            "body": body,
            "not_derivable": "The deploy notes say so.",
            "triggers": [{"on": ["edit"], "paths": [f"corpus{number}/**"]}],
        }
    )


def test_ingest_refuses_every_credential_without_echo(project: Path, cli: Run) -> None:
    inbox = project / ".cuecard/inbox"
    for number, credential in enumerate(CREDENTIALS):
        (inbox / f"p{number:03d}.json").write_text(
            _proposal(number, f"Deploys use {credential.text} today."), encoding="utf-8"
        )
    _, out, err = cli("ingest", "--json")
    outcomes = {Path(r["proposal"]).name: r["outcome"] for r in json.loads(out)["results"]}
    assert outcomes == {f"p{n:03d}.json": "refused" for n in range(len(CREDENTIALS))}
    kept = [p.read_text(encoding="utf-8") for p in (project / ".cuecard/local").rglob("*.*")]
    for credential in CREDENTIALS:
        assert _echoes(credential, out, err, *kept) == [], credential.family
    assert list((project / ".cuecard/memories").glob("*.json")) == []


def test_ingest_takes_every_placeholder(project: Path, cli: Run) -> None:
    inbox = project / ".cuecard/inbox"
    for number, text in enumerate(PLACEHOLDERS):
        body = f"Configure it as {text} in the settings."
        (inbox / f"p{number:03d}.json").write_text(_proposal(number, body), encoding="utf-8")
    _, out, err = cli("ingest", "--json")
    refused = [r for r in json.loads(out)["results"] if r["outcome"] == "refused"]
    assert refused == [], err


@pytest.fixture
def vault(cc: Run, tmp_path: Path) -> Path:
    root = tmp_path / "v"
    assert cc("vault", "init", "--vault", str(root))[0] == 0
    return root


def test_vault_submit_refuses_every_credential_without_echo(cc: Run, vault: Path) -> None:
    for credential in CREDENTIALS:
        code, out, err = cc(
            "vault", "submit", "--vault", str(vault), "--agent", "dsh", "a fact", credential.text
        )
        assert (code, out) == (1, ""), credential.family
        assert "fact 2: looks like a plaintext credential" in err, credential.family
        assert _echoes(credential, err) == [], credential.family
    assert [p for p in (vault / "inbox").glob("*.md") if p.name != "README.md"] == []


def test_vault_submit_takes_every_placeholder(cc: Run, vault: Path) -> None:
    code, _, err = cc("vault", "submit", "--vault", str(vault), "--agent", "dsh", *PLACEHOLDERS)
    assert code == 0, err


def _rule(body: str) -> str:
    return f"---\npaths: src/**\n---\n# Deploy\n\n{body}\n"


def test_import_skips_every_rule_holding_a_credential_without_echo(project: Path, cli: Run) -> None:
    (project / "src").mkdir()
    (project / "src/app.py").write_text("x = 1\n")
    rules = project / ".claude/rules"
    rules.mkdir(parents=True)
    for number, credential in enumerate(CREDENTIALS):
        (rules / f"r{number:03d}.md").write_text(_rule(f"Deploy with {credential.text} now."))
    code, out, err = cli("import", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["imported"] == []
    skipped = {item["file"]: item["reason"] for item in report["skipped"]}
    for number in range(len(CREDENTIALS)):
        assert "credential" in skipped[f".claude/rules/r{number:03d}.md"]
    for credential in CREDENTIALS:
        assert _echoes(credential, out, err) == [], credential.family


def test_import_takes_every_placeholder(project: Path, cli: Run) -> None:
    (project / "src").mkdir()
    (project / "src/app.py").write_text("x = 1\n")
    rules = project / ".claude/rules"
    rules.mkdir(parents=True)
    for number, text in enumerate(PLACEHOLDERS):
        (rules / f"r{number:03d}.md").write_text(_rule(f"Configure it as {text} in settings."))
    code, out, err = cli("import", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["skipped"] == []
    assert len(report["imported"]) == len(PLACEHOLDERS)
