"""The DSH memory tools' credential check is core's one detector: ``memory_submit`` refuses
every credential of the corpus (one warm worker, every request in turn) without echoing it, and
takes every placeholder."""

from __future__ import annotations

import json
from pathlib import Path

from tests._support.credentials import CREDENTIALS, PLACEHOLDERS, fragments
from tests._support.dsh import Home, line, serve


def _submit(ident: int, facts: str) -> bytes:
    request = {"facts": f"a harmless fact\n{facts}"}
    return line({"id": ident, "op": "call", "tool": "memory_submit", "request": request})


def _inbox(home: Home) -> list[Path]:
    return sorted(p for p in (home.vault / "inbox").glob("*.md") if p.name != "README.md")


def test_memory_submit_refuses_every_credential_without_echo(home: Home) -> None:
    answers = serve([_submit(n, c.text) for n, c in enumerate(CREDENTIALS)])
    assert [a["id"] for a in answers] == list(range(len(CREDENTIALS)))
    for credential, answer in zip(CREDENTIALS, answers, strict=True):
        shown = json.dumps(answer, ensure_ascii=False)
        assert "looks like a credential" in shown, (credential.family, shown)
        assert [p for p in fragments(credential) if p in shown] == [], credential.family
    assert _inbox(home) == []


def test_memory_submit_takes_every_placeholder(home: Home) -> None:
    [answer] = serve([_submit(1, "\n".join(PLACEHOLDERS))])
    assert "looks like a credential" not in json.dumps(answer), answer
    assert len(_inbox(home)) == 1


def test_no_answer_of_the_worker_holds_a_credential(home: Home) -> None:
    """What the plugins pass on to the model as it came (a tool's output or error, a recall)
    holds none of the corpus: a note holding every credential, shown and recalled, and a tool
    named by one."""
    note = home.vault / "notes" / "uncategorised.md"
    note.write_text(
        note.read_text() + "".join(f"- {c.text}\n" for c in CREDENTIALS), encoding="utf-8"
    )
    show = {"id": 1, "op": "call", "tool": "show", "request": {"doc": "other"}}
    recall = {"id": 2, "op": "recall", "text": "staging token key", "mode": "always",
              "max_chars": 20000}  # fmt: skip
    unknown = [
        line({"id": 3 + n, "op": "call", "tool": c.text, "request": {}})
        for n, c in enumerate(CREDENTIALS)
    ]
    answers = serve([line(show), line(recall), *unknown])
    assert answers[0]["code"] == 0, answers[0]
    shown = json.dumps(answers, ensure_ascii=False)
    assert "[redacted]" in json.dumps(answers[0], ensure_ascii=False)
    assert [c.family for c in CREDENTIALS if any(p in shown for p in fragments(c))] == []
