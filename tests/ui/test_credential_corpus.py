"""The review UI's edits use core's one credential detector: every credential of the corpus is
refused with a 422 that never echoes it, and every placeholder is saved."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests._support.credentials import CREDENTIALS, PLACEHOLDERS, fragments
from tests._support.ui import Seeded, Server


@pytest.fixture
def client(live: Server) -> Iterator[httpx.Client]:
    c = live.client()
    try:
        yield c
    finally:
        c.close()


def edit(client: httpx.Client, ident: str, **changes: Any) -> httpx.Response:
    return client.post(f"/api/memories/{ident}/edit", json={"changes": changes})


def test_an_edit_holding_any_credential_is_refused_without_echo(
    client: httpx.Client, seeded: Seeded
) -> None:
    before = seeded.memory_bytes("candidate")
    for credential in CREDENTIALS:
        answer = edit(client, seeded.ids["candidate"], body=f"Deploys use {credential.text}.")
        assert answer.status_code == 422, (credential.family, answer.text)
        assert answer.json()["errors"][0]["field"] == "body", credential.family
        assert [p for p in fragments(credential) if p in answer.text] == [], credential.family
    assert seeded.memory_bytes("candidate") == before


def test_an_edit_holding_a_placeholder_is_saved(client: httpx.Client, seeded: Seeded) -> None:
    for text in PLACEHOLDERS:
        answer = edit(client, seeded.ids["candidate"], body=f"Configure it as {text} here.")
        assert answer.status_code == 200, (text, answer.text)
