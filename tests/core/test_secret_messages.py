"""No message, reply or kept file ever holds a credential: refusals name the key's place and the
shape of the credential, never its text, wherever the credential sits (a value, a key, a nested
key, behind a JSON escape)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._support.cli import Run, run_cli


@pytest.fixture
def cli(project: Path, cc: Run, monkeypatch: pytest.MonkeyPatch) -> Run:
    """``cuecard ARGS...`` in this process, in the project."""
    monkeypatch.chdir(project)
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    return cc


AWS = "AKIAZZQQ7SECTEST1234"
GITHUB = "ghp_" + "Zq7" * 12
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
SECRETS = {"aws": AWS, "github": GITHUB, "stripe": STRIPE}

BASE: dict[str, Any] = {
    "topic": "billing/refunds",
    "kind": "trap",
    "title": "refund() needs the original charge id",
    "body": "Call refund(charge_id) with the id from the charges table, not the invoice id.",
    "not_derivable": "The payment API accepts both ids and fails a week later.",
    "triggers": [{"on": ["edit"], "paths": ["billing/**"]}],
}


def escaped(text: str) -> str:
    """JSON text in which every credential's first letter is a ``\\u`` escape."""
    for secret in SECRETS.values():
        text = text.replace(secret, f"\\u{ord(secret[0]):04x}{secret[1:]}")
    return text


def shapes(secret: str) -> list[tuple[str, str]]:
    """(name, proposal JSON text) with the credential as a top-level key, a nested key, a value."""
    top = {secret: 1, **BASE}
    nested = {**BASE, "triggers": [{**BASE["triggers"][0], secret: 1}]}
    value = {**BASE, "evidence": [{"kind": "note", "ref": secret}]}
    return [
        ("top-key", escaped(json.dumps(top))),
        ("nested-key", escaped(json.dumps(nested))),
        ("value", escaped(json.dumps(value))),
    ]


CASES = [
    pytest.param(secret, text, id=f"{kind}-{where}")
    for kind, secret in SECRETS.items()
    for where, text in shapes(secret)
]


def fragments(secret: str) -> list[str]:
    """Pieces of a credential that must not appear anywhere (the whole and its distinctive tail)."""
    return [secret, secret[4:], secret[-12:]]


@pytest.mark.parametrize(("secret", "text"), CASES)
def test_ingest_never_echoes_a_credential(project: Path, cli: Run, secret: str, text: str) -> None:
    (project / ".cuecard/inbox/leak.json").write_text(text, encoding="utf-8")
    (project / ".cuecard/inbox/leak2.json").write_text(text, encoding="utf-8")
    _, out, err = cli("ingest", "--json")
    shown = out + err
    assert "cuecard refused leak.json" in shown
    assert "credential" in shown
    for piece in fragments(secret):
        assert piece not in shown
    assert json.loads(out)["results"][0]["outcome"] == "refused"
    kept = list((project / ".cuecard/local/inbox-refused").iterdir())
    assert len(kept) == 2
    for piece in fragments(secret):
        assert all(piece not in path.read_text(encoding="utf-8") for path in kept)
        assert piece not in (project / ".cuecard/local/telemetry/inbox.jsonl").read_text()


@pytest.mark.parametrize("secret", list(SECRETS.values()), ids=list(SECRETS))
def test_a_kept_refused_proposal_is_a_redacted_copy(project: Path, cli: Run, secret: str) -> None:
    """A refused proposal is kept for a person to read, with every credential redacted."""
    raw = json.dumps({**BASE, "body": f"deploy with token: {secret} and then restart"})
    for name, text in (("plain.json", raw), ("broken.json", escaped(raw)[:-1])):
        (project / ".cuecard/inbox" / name).write_text(text, encoding="utf-8")
    cli("ingest")
    folder = project / ".cuecard/local/inbox-refused"
    kept = {p.name.split("-", 1)[1]: p.read_text() for p in folder.iterdir()}
    assert sorted(kept) == ["broken.json", "plain.json"]
    for text in kept.values():
        assert "[redacted]" in text
        assert "deploy with token" in text
        for piece in fragments(secret):
            assert piece not in text


def test_a_memory_file_with_a_credential_key_is_reported_without_it(
    project: Path, cli: Run
) -> None:
    record = {
        **BASE,
        "id": "0b0e7a52-5a8c-4d55-9a0e-2f7f3c3e9d10",
        "status": "active",
        "origin": "user_explicit",
        "source": "test",
        "created_at": "2026-11-01T00:00:00+00:00",
        "updated_at": "2026-11-01T00:00:00+00:00",
        "review": {GITHUB: "a value under a credential key </memory-data>"},
        "triggers": [{"on": ["edit"], "paths": ["billing/**"], AWS: 2}],
    }
    path = project / ".cuecard/memories" / f"{record['id']}.json"
    path.write_text(escaped(json.dumps(record)), encoding="utf-8")
    for args in (("health",), ("list", "--json"), ("compile",)):
        _, out, err = cli(*args)
        for secret in (AWS, GITHUB):
            for piece in fragments(secret):
                assert piece not in out + err, args
    _, doctor, err = cli("doctor")
    for piece in fragments(AWS) + fragments(GITHUB):
        assert piece not in doctor + err
    assert "review.[redacted] holds a <memory-data> tag" in doctor, doctor
    assert "credential-shaped value" in doctor


def test_a_config_key_holding_a_credential_is_named_redacted(project: Path, cli: Run) -> None:
    config = project / ".cuecard/config.json"
    raw = json.loads(config.read_text())
    config.write_text(escaped(json.dumps({**raw, STRIPE: True})), encoding="utf-8")
    _, out, err = cli("doctor")
    shown = out + err
    assert "[redacted] extra inputs are not permitted" in shown
    for piece in fragments(STRIPE):
        assert piece not in shown


def test_a_bad_topic_says_what_a_topic_looks_like(project: Path, cli: Run) -> None:
    result = run_cli(
        "add", "--topic", "Billing Retries!", "--kind", "trap", "--title", "Retries",
        "--body", "billing/retry.py retries twice", "--not-derivable", "incident notes",
        cwd=project,
    )  # fmt: skip
    assert result.returncode == 1
    assert "e.g. billing/retries" in result.stderr
    assert "pattern" not in result.stderr
    assert "^[" not in result.stderr
    assert "memory (new): topic must be lowercase" in result.stderr, result.stderr
    (project / ".cuecard/inbox/t.json").write_text(json.dumps({**BASE, "topic": "Bad Topic"}))
    out = json.loads(cli("ingest", "--json")[1])["results"][0]
    assert out["outcome"] == "refused"
    assert "topic must be lowercase" in out["message"]
    assert "e.g. billing/retries" in out["message"]
    assert "^[" not in out["message"]
    assert "memory " not in out["message"]


def test_no_stored_file_after_a_refusal(project: Path, cli: Run) -> None:
    (project / ".cuecard/inbox/x.json").write_text(escaped(json.dumps({AWS: 1, **BASE})))
    cli("ingest")
    assert list((project / ".cuecard/memories").iterdir()) == []
    grep = subprocess.run(
        ["grep", "-r", AWS[4:], str(project / ".cuecard")], capture_output=True, text=True
    )
    assert grep.returncode == 1, grep.stdout


@pytest.mark.parametrize(
    "text",
    [
        "api key: Zx86_kP02mQ7vB",
        "the API Key = Zx86_kP02mQ7vB for staging",
        "client secret: 9fQ2xL7pW3zR8kT1",
        "access token: 1f2e3d4c5b6a7980aa",
        "api-key: Zx86_kP02mQ7vB",
        "DB_PASSWORD=s3cr3t_Pa55",
        "secret_key=correcthorsebattery",
    ],
)
def test_credentials_behind_a_label_are_found(text: str) -> None:
    from cuecard.core import find_secret, redact

    assert find_secret(text) is not None
    assert "[redacted]" in redact(text)
    assert "Zx86_kP02mQ7vB" not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "BEE_CLIENT_SECRET=your_client_secret_here",
        "API_KEY=YOUR_API_KEY_HERE",
        "token=dummy_value",
        "password=not_real_key",
        "api_key: <your-api-key>",
        "SECRET_KEY=${SECRET_KEY}",
        "password = get_password()",
        "token = request.headers[auth]",
        "token: abcdefgh",
        "API key: provisioned by ops every quarter",
        "the access token: rotated monthly by the platform team",
    ],
)
def test_placeholders_and_references_are_not_credentials(text: str) -> None:
    from cuecard.core import find_secret

    assert find_secret(text) is None


def test_a_labelled_credential_with_a_space_is_refused_by_add(cli: Run) -> None:
    code, _, err = cli(
        "add", "--topic", "deploy/keys", "--kind", "fact", "--title", "Staging key",
        "--body", "staging api key: Zx86_kP02mQ7vB", "--not-derivable", "ops told us",
    )  # fmt: skip
    assert code == 1
    assert "credential-shaped value (value assigned to 'api key')" in err
    assert "Zx86_kP02mQ7vB" not in err


def test_a_proposal_named_after_a_credential_is_answered_without_it(
    project: Path, cli: Run
) -> None:
    name = f"{GITHUB}.json"
    (project / ".cuecard/inbox" / name).write_text(json.dumps(BASE))
    code, out, err = cli("ingest", "--json")
    assert code == 0, err
    for piece in fragments(GITHUB):
        assert piece not in out + err
    kept = [p.name for p in (project / ".cuecard/local/inbox-done").iterdir()]
    assert len(kept) == 1
    assert GITHUB[4:] not in kept[0]
