"""Bad text in a signed envelope (a lone surrogate anywhere, JSON nested too deep) gets a 400 and
a refusal record from the receiver, never a 500; the receiver goes on serving."""

from __future__ import annotations

import json
from typing import Any

import pytest


def _surrogate_in_filename(env: dict[str, Any]) -> bytes:
    env["scope"]["filename"] = "MEM\ud800.md"
    return json.dumps(env).encode()


def _surrogate_in_content(env: dict[str, Any]) -> bytes:
    env["content"] = "a\udfffb"
    return json.dumps(env).encode()


def _surrogate_in_a_key(env: dict[str, Any]) -> bytes:
    env["metadata"] = {"k\udc00": 1}
    return json.dumps(env).encode()


def _surrogate_in_the_slug(env: dict[str, Any]) -> bytes:
    env["scope"]["agent_slug"] = "\ud83d"
    return json.dumps(env).encode()


def _deep_metadata(env: dict[str, Any]) -> bytes:
    body = json.dumps(env).encode()
    deep = b"[" * 100_000 + b"]" * 100_000
    return body.replace(b'"metadata": {', b'"metadata": {"deep": ' + deep + b", ", 1)


def _deep_but_parseable(env: dict[str, Any]) -> bytes:
    body = json.dumps(env).encode()
    deep = b'{"a": ' * 40 + b"1" + b"}" * 40
    return body.replace(b'"metadata": {', b'"metadata": {"deep": ' + deep + b", ", 1)


def _not_utf8(env: dict[str, Any]) -> bytes:
    return json.dumps(env).encode().replace(b"MEMORY.md", b"MEM\xff\xfe.md", 1)


CASES = [
    (_not_utf8, "body: not UTF-8"),
    (_surrogate_in_filename, "body.scope.filename: holds a lone surrogate"),
    (_surrogate_in_content, "body.content: holds a lone surrogate"),
    (_surrogate_in_a_key, "body.metadata.a key: holds a lone surrogate"),
    (_surrogate_in_the_slug, "body.scope.agent_slug: holds a lone surrogate"),
    (_deep_metadata, "body: JSON nested deeper than 32 levels"),
    (_deep_but_parseable, "body: JSON nested deeper than 32 levels"),
]


@pytest.mark.parametrize(("build", "reason"), CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_text_is_a_400_with_a_refusal_record(receiver, make_envelope, build, reason) -> None:
    env = make_envelope(seq=1)
    body = build(env)
    response = receiver.post(body)
    assert response.status_code == 400, response.text
    assert response.json()["error"].startswith(reason)
    report = receiver.status()
    [refusal] = report["refused_events"]
    assert refusal["status"] == 400
    assert refusal["reason"].startswith(reason)
    if "surrogate" in reason:
        assert refusal["event_id"] == env["event_id"]  # what the signed envelope named is kept
    # the receiver goes on: the next event is taken
    assert receiver.post(make_envelope(seq=2)).status_code == 202
    receiver.wait_idle(applied=1)
    assert receiver.files() != {}
