"""No event blocks another: whatever fails to apply one event is recorded against it, retried
with backoff a bounded number of times, then listed as refused by ``cuecard wp status``; every
later event, from any site, is applied meanwhile."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main
from cuecard.wp_projection import ReceiverSettings, SafeRoot
from tests._support.wp import SECRET, Receiver

Builder = Callable[..., dict[str, Any]]

OTHER_SITE = "http://10.0.0.2:8080"
LATER = 300


def _status(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["wp", "status", "--root", str(root), "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def _post_later_events(receiver: Receiver, make_envelope: Builder, first_seq: int) -> int:
    """``LATER`` events from two sites; returns how many were accepted."""
    accepted = 0
    for i in range(LATER):
        home = OTHER_SITE if i % 2 else "http://127.0.0.1:8089"
        env = make_envelope(
            seq=first_seq + i // 2,
            filename=f"contexts/n-{i:03d}.md",
            content=f"note {i}\n",
            home_url=home,
        )
        accepted += receiver.post(env).status_code == 202
    return accepted


def _later_files(receiver: Receiver) -> int:
    return sum(1 for p in receiver.managed.rglob("n-*.md") if p.is_file())


def test_the_long_named_event_is_refused_and_300_later_events_are_applied(
    receiver, make_envelope, capsys
) -> None:
    # The reproduction: a legal 250-byte name, whose '<name>.incoming' would not fit.
    long_name = "m" * 247 + ".md"
    response = receiver.post(make_envelope(seq=1, filename=long_name, content="first\n"))
    assert response.status_code == 422
    assert "longer than 246 bytes" in response.json()["error"]
    assert _post_later_events(receiver, make_envelope, first_seq=2) == LATER
    receiver.wait_idle(applied=LATER)
    assert _later_files(receiver) == LATER
    report = _status(receiver.root, capsys)
    [refusal] = report["refused_events"]
    assert refusal["filename"] == long_name[:200]
    assert "longer than 246 bytes" in refusal["reason"]
    assert report["queue"]["waiting"] == 0


@pytest.fixture
def failing_incoming(monkeypatch) -> dict[str, int]:
    """The disk answers ENAMETOOLONG to any ``*.incoming`` write under ``contexts/poison``,
    ``failures[name]`` times (forever when absent): the failure of the issue, at the disk."""
    failures: dict[str, int] = {}
    tried: dict[str, int] = {}
    write = SafeRoot.write

    def flaky(self: SafeRoot, rel: str, data: bytes, **kw: Any) -> None:
        name = rel.rsplit("/", 1)[-1]
        if name.startswith("poison") and rel.endswith(".incoming"):
            tried[name] = tried.get(name, 0) + 1
            if tried[name] <= failures.get(name, 10**9):
                raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), name)
        write(self, rel, data, **kw)

    monkeypatch.setattr(SafeRoot, "write", flaky)
    return failures


def _edited_locally(receiver: Receiver, make_envelope: Builder, name: str) -> None:
    """A projected file a person then edits: the next update goes beside it as ``.incoming``."""
    assert receiver.post(make_envelope(seq=1, filename=name, content="v1\n")).status_code == 202
    receiver.wait_idle(applied=1)
    [path] = receiver.managed.rglob(name.rsplit("/", 1)[-1])
    path.write_text("edited here\n")


def test_an_event_that_keeps_failing_is_given_up_and_never_holds_the_rest(
    tmp_path, start_receiver, make_envelope, failing_incoming, capsys
) -> None:
    settings = ReceiverSettings(
        root=tmp_path / "runtime", secret=SECRET.encode(), retry_attempts=3, retry_backoff_s=0.05
    )
    receiver = start_receiver(settings)
    _edited_locally(receiver, make_envelope, "contexts/poison.md")
    poisoned = make_envelope(seq=2, filename="contexts/poison.md", content="v2\n")
    assert receiver.post(poisoned).status_code == 202
    assert _post_later_events(receiver, make_envelope, first_seq=3) == LATER
    receiver.wait_idle(applied=LATER + 2)
    assert _later_files(receiver) == LATER
    report = _status(receiver.root, capsys)
    [refusal] = report["refused_events"]
    assert refusal["event_id"] == poisoned["event_id"]
    assert refusal["status"] == 0
    assert refusal["stage"] == "apply"
    assert refusal["attempts"] == 3
    assert refusal["filename"] == "contexts/poison.md"
    assert "not applied after 3 attempts: ENAMETOOLONG" in refusal["reason"]
    assert report["retrying"] == []
    assert report["queue"]["waiting"] == 0
    # The local edit is untouched, and nothing half-written was left or recorded.
    [edited] = receiver.managed.rglob("poison.md")
    assert edited.read_text() == "edited here\n"
    assert not list(receiver.managed.rglob("poison.md.incoming"))
    assert not any(k.endswith("poison.md") for k in report["preserved"])


def test_a_failure_that_passes_is_retried_until_the_event_lands(
    tmp_path, start_receiver, make_envelope, failing_incoming, capsys
) -> None:
    failing_incoming["poison.md.incoming"] = 2
    settings = ReceiverSettings(
        root=tmp_path / "runtime", secret=SECRET.encode(), retry_attempts=5, retry_backoff_s=0.05
    )
    receiver = start_receiver(settings)
    _edited_locally(receiver, make_envelope, "contexts/poison.md")
    assert receiver.post(make_envelope(seq=2, filename="contexts/poison.md", content="v2\n"))
    later = make_envelope(seq=3, filename="MEMORY.md", content="later\n")
    assert receiver.post(later).status_code == 202
    receiver.wait_idle(applied=3)
    [incoming] = receiver.managed.rglob("poison.md.incoming")
    assert incoming.read_text() == "v2\n"
    report = _status(receiver.root, capsys)
    assert report["refused_events"] == []
    assert any(k.endswith("contexts/poison.md") for k in report["preserved"])


def test_a_fifo_planted_at_a_record_is_refused_without_waiting(receiver, make_envelope) -> None:
    assert receiver.post(make_envelope(seq=1, content="v1\n")).status_code == 202
    receiver.wait_idle(applied=1)
    [path] = receiver.managed.rglob("MEMORY.md")
    path.unlink()
    os.mkfifo(path)
    assert receiver.post(make_envelope(seq=2, content="v2\n")).status_code == 202
    later = make_envelope(seq=3, filename="SOUL.md", content="soul\n")
    assert receiver.post(later).status_code == 202
    report = receiver.wait_idle(applied=3)
    assert "not a regular file" in report["refused"][-1]["reason"]
    assert (path.parent / "SOUL.md").read_text() == "soul\n"
