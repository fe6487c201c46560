"""A file evidence hash is no suspect: a memory file whose only credential-shaped text is the
sha256 of its file evidence is validated in one step, and it gets the verdict the path that names
fields gives it. Anything else that looks like a credential, next to the hash or anywhere else,
still takes that path."""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Memory, Store, ValidationError, compile_index, find_secret
from cuecard.core.store import _compiler, _validate
from cuecard.core.store._validate import validate_memory, validate_memory_text
from tests._support.credentials import CREDENTIALS, PLACEHOLDERS

MID = "7f3a9c2e-1b4d-4e8f-9a6b-2c3d4e5f6a7b"
DIGEST = hashlib.sha256(b"def charge(): ...\n").hexdigest()
NOW = "2026-01-01T00:00:00+00:00"


def record(**changes: Any) -> dict[str, Any]:
    """A live memory with file evidence, a note, a check and a review, as the store writes one."""
    base: dict[str, Any] = {
        "schema_version": 1,
        "id": MID,
        "topic": "billing/retries",
        "kind": "trap",
        "status": "active",
        "title": "charge() is not idempotent",
        "body": "Never retry charge() without the idempotency key; the token budget is small.",
        "not_derivable": "Learned from an incident.",
        "triggers": [
            {"on": ["edit"], "paths": ["billing/**"]},
            {"on": ["run"], "commands": ["make release"]},
            {"on": ["prompt"], "keywords": ["refund"]},
            {"on": ["edit", "search"], "symbols": ["charge"]},
        ],
        "check": {
            "if_content": "retry\\(",
            "paths": ["billing/*.py"],
            "message": "retry without a key",
            "violates": ["retry(charge)"],
            "passes": ["charge(key)"],
        },
        "evidence": [
            {
                "kind": "file",
                "ref": "billing/charge.py#L3-L9",
                "sha256": DIGEST,
                "summary": "the charge that ran twice",
                "recorded_at": NOW,
                "verified": True,
            },
            {"kind": "command", "ref": "make release", "summary": "failed twice"},
        ],
        "origin": "user_explicit",
        "source": "cli",
        "created_at": NOW,
        "updated_at": NOW,
        "batch": "b1",
        "review": {"reviewed_by": "ana", "note": "seen", "issues": ["stale"]},
    }
    base.update(changes)
    return base


# Where a string can stand in a memory: each is given the planted text in turn.
FIELDS: dict[str, Callable[[dict[str, Any], str], None]] = {
    "title": lambda r, t: r.update(title=t),
    "body": lambda r, t: r.update(body="Note: " + t),
    "not_derivable": lambda r, t: r.update(not_derivable=t),
    "topic": lambda r, t: r.update(topic=t),
    "source": lambda r, t: r.update(source=t),
    "batch": lambda r, t: r.update(batch=t),
    "archived_reason": lambda r, t: r.update(archived_reason=t),
    "triggers.paths": lambda r, t: r["triggers"][0]["paths"].append(t),
    "triggers.commands": lambda r, t: r["triggers"][1]["commands"].append(t),
    "triggers.keywords": lambda r, t: r["triggers"][2]["keywords"].append(t),
    "triggers.symbols": lambda r, t: r["triggers"][3]["symbols"].append(t),
    "check.message": lambda r, t: r["check"].update(message=t),
    "check.paths": lambda r, t: r["check"]["paths"].append(t),
    "check.passes": lambda r, t: r["check"]["passes"].append(t),
    "evidence.ref": lambda r, t: r["evidence"][0].update(ref=t),
    "evidence.ref-path": lambda r, t: r["evidence"][0].update(ref="billing/" + t),
    "evidence.summary": lambda r, t: r["evidence"][0].update(summary=t),
    "evidence.key": lambda r, t: r["evidence"][0].update({t: DIGEST}),
    "evidence.sha256": lambda r, t: r["evidence"][0].update(sha256=t),
    "evidence.sha256-after": lambda r, t: r["evidence"][0].update(sha256=DIGEST + t),
    "command-evidence.ref": lambda r, t: r["evidence"][1].update(ref=t),
    "review.note": lambda r, t: r["review"].update(note=t),
    "review.issues": lambda r, t: r["review"]["issues"].append(t),
    "review.reviewed_by": lambda r, t: r["review"].update(reviewed_by=t),
}


def by_fields(text: str) -> Memory:
    """The path that names fields, for a file's text."""
    return validate_memory(json.loads(text))


def verdict(check: Callable[[], Memory]) -> object:
    """The memory a path gives, or its refusals (in order of the fields), or the error's type."""
    try:
        return check()
    except ValidationError as exc:
        return exc.refusals
    except ValueError as exc:
        return type(exc).__name__


def planted() -> Iterator[tuple[str, str, str, str]]:
    """(what, field, text, file text) for each credential and placeholder in each field; the
    file written as the store writes it, or without spaces (every other case)."""
    texts = [("credential", c.text) for c in CREDENTIALS]
    texts += [("placeholder", p) for p in PLACEHOLDERS]
    for number, (what, text) in enumerate(texts):
        for field, plant in FIELDS.items():
            raw = record()
            plant(raw, text)
            if (number + len(field)) % 2:
                file_text = json.dumps(raw, separators=(",", ":"), ensure_ascii=False)
            else:
                file_text = json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
            yield what, field, text, file_text


def test_the_corpus_planted_in_every_field_gets_the_same_verdict_by_either_path() -> None:
    """91 fake credentials of 73 services and 36 placeholders, each in every field of a memory
    with file evidence: the file's one-step path and the path that names fields agree."""
    cases = refused = 0
    mismatched: list[str] = []
    for what, field, text, file_text in planted():
        cases += 1
        slow = verdict(functools.partial(by_fields, file_text))
        fast = verdict(functools.partial(validate_memory_text, file_text))
        if fast != slow:
            mismatched.append(f"{what} in {field}: {text[:20]!r}")
        if what == "credential" and field in ("body", "evidence.summary", "review.note"):
            assert isinstance(slow, list), field
            assert any("credential-shaped" in m for m in slow), field
            refused += 1
    assert mismatched == []
    assert cases == (len(CREDENTIALS) + len(PLACEHOLDERS)) * len(FIELDS)
    assert refused == 3 * len(CREDENTIALS)


@pytest.fixture
def field_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the files that take the path that names fields (each one's memory id)."""
    taken: list[str] = []

    def counted(raw: Any) -> Memory:
        taken.append(str(raw.get("id")) if isinstance(raw, dict) else "?")
        return validate_memory(raw)

    monkeypatch.setattr(_validate, "validate_memory", counted)
    return taken


def test_a_memory_whose_only_suspect_is_its_evidence_hash_takes_one_step(
    field_path: list[str],
) -> None:
    file_text = json.dumps(record(), indent=2) + "\n"
    assert find_secret(DIGEST) is not None  # alone, the hash reads as a credential
    memory = validate_memory_text(file_text)
    assert memory.evidence[0].sha256 == DIGEST
    assert field_path == []
    assert memory == validate_memory(json.loads(file_text))


HEX = hashlib.sha256(b"a webhook signing key").hexdigest()
CREDENTIAL = next(c for c in CREDENTIALS if c.family == "AWS").secret


def _pair(file_text: str, key: str) -> str:
    """``file_text`` with a ``"sha256": HEX`` pair added to the object holding ``key``."""
    return file_text.replace(f'"{key}": ', f'"sha256": "{HEX}", "{key}": ', 1)


# A whole file, and whether the path that names fields must read it.
SUSPECTS: dict[str, str] = {
    "a 64-hex string in the body": json.dumps(record(body=f"rotated {HEX} today")),
    "a 64-hex string in the evidence ref": json.dumps(
        record(evidence=[{"kind": "file", "ref": f"keys/{HEX}.txt", "sha256": DIGEST}])
    ),
    "a 64-hex string in the evidence summary": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": DIGEST, "summary": HEX}])
    ),
    "a 64-hex string in a path glob": json.dumps(
        record(triggers=[{"on": ["edit"], "paths": [f"keys/{HEX}/*"]}])
    ),
    "a 64-hex string in a review note": json.dumps(record(review={"note": HEX})),
    "a 64-hex string as a key": json.dumps(record(review={HEX: "x"})),
    "a credential next to the hash": json.dumps(
        record(evidence=[{"kind": "file", "ref": CREDENTIAL, "sha256": DIGEST}])
    ),
    "a credential in the evidence summary": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": DIGEST, "summary": CREDENTIAL}])
    ),
    "a credential in a note's evidence ref": json.dumps(
        record(evidence=[{"kind": "note", "ref": f"aws_access_key_id = {CREDENTIAL}"}])
    ),
    "an uppercase hash": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": DIGEST.upper()}])
    ),
    "a hash of 63 digits": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": DIGEST[:63]}])
    ),
    "a hash of 65 digits": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": DIGEST + "0"}])
    ),
    "a hash with a space": json.dumps(
        record(evidence=[{"kind": "file", "ref": "a.py", "sha256": f" {DIGEST}"}])
    ),
    "a sha256 pair in the review": _pair(json.dumps(record(), indent=2), "reviewed_by"),
    "a sha256 pair in a trigger": _pair(json.dumps(record(), indent=2), "on"),
    "a sha256 pair at the top": _pair(json.dumps(record(), indent=2), "topic"),
    "a key ending in a quoted sha256": json.dumps(record(review={'x"sha256': HEX})),
    "a second sha256 after the hash": json.dumps(record()).replace(
        f'"sha256": "{DIGEST}"', f'"sha256": "{DIGEST}", "sha256": "{CREDENTIAL}"'
    ),
    "an escaped hash": json.dumps(record()).replace(f'"{DIGEST}"', f'"\\u0061{DIGEST[1:]}"'),
}


@pytest.mark.parametrize("file_text", SUSPECTS.values(), ids=SUSPECTS.keys())
def test_anything_else_that_looks_like_a_credential_takes_the_field_path(
    file_text: str, field_path: list[str]
) -> None:
    """Whatever else could be a credential sends the file the path that names fields (or the
    schema refuses it there), and both paths give it the same verdict."""
    fast = verdict(lambda: validate_memory_text(file_text))
    assert field_path != []
    field_path.clear()
    assert fast == verdict(lambda: by_fields(file_text))


def test_a_key_twice_keeps_the_last_by_either_path() -> None:
    """JSON with a key twice keeps the last: a credential under an evidence item's ``sha256``
    before its hash is in neither path's record, and one after it is refused by both."""
    for first, last in ((CREDENTIAL, DIGEST), (DIGEST, CREDENTIAL)):
        text = json.dumps(record()).replace(
            f'"sha256": "{DIGEST}"', f'"sha256": "{first}", "sha256": "{last}"'
        )
        got = verdict(lambda: validate_memory_text(text))  # noqa: B023 - called here
        assert got == verdict(lambda: by_fields(text))  # noqa: B023
        if last == DIGEST:
            assert isinstance(got, Memory)
            assert got.evidence[0].sha256 == DIGEST
        else:
            assert isinstance(got, list)
            assert all(CREDENTIAL not in m for m in got)


def _generation(root: Path) -> dict[str, bytes]:
    index = root / ".cuecard" / "local" / "index"
    current = index / (index / "CURRENT").read_text().strip()
    return {p.name: p.read_bytes() for p in sorted(current.iterdir()) if p.name != "meta.json"}


def test_a_store_with_evidence_compiles_to_the_same_index_by_either_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index of a store whose memories carry evidence (some with credential words in prose,
    a placeholder, a credential, a bad hash) is the same bytes whether each file takes its
    one-step path or every file takes the path that names fields."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    store, _ = Store.init(tmp_path)
    extras: list[dict[str, Any]] = [
        {},
        {"body": "the api key rotation and the token budget"},
        {"body": PLACEHOLDERS[0]},
        {"body": "Note: " + CREDENTIALS[1].text},
        {"evidence": [{"kind": "file", "ref": "a.py", "sha256": DIGEST.upper()}]},
        {"evidence": []},
        {"check": None, "status": "candidate"},
    ]
    for number in range(70):
        ident = str(uuid.UUID(int=number + 1, version=4))
        digest = hashlib.sha256(str(number).encode()).hexdigest()
        raw = record(id=ident, topic=f"billing/m{number}", **extras[number % len(extras)])
        if raw["evidence"] and "sha256" in raw["evidence"][0]:
            raw["evidence"][0]["sha256"] = raw["evidence"][0]["sha256"].replace(DIGEST, digest)
        raw["triggers"][0]["paths"] = [f"billing/m{number}/**"]
        text = json.dumps(raw, indent=2, ensure_ascii=False) + "\n"
        (store.memories_dir / f"{ident}.json").write_text(text)
    fast = compile_index(store, cached=False)
    one_step = _generation(tmp_path)

    monkeypatch.setattr(_compiler, "validate_memory_text", by_fields)
    slow = compile_index(store, cached=False)
    assert _generation(tmp_path) == one_step
    assert (fast.memories, fast.clauses) == (slow.memories, slow.clauses)
    assert fast.problems == slow.problems
    assert fast.memories == 40  # the credential and the bad hash refused, the candidates dormant
    assert len(fast.problems) == 20
