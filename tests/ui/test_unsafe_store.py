"""A store that is not what cuecard expects, over real HTTP: every page names each unsafe entry
of `.cuecard/` and why, every change is refused with a message naming it, and nothing is read or
written through it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._support.cli import BIN
from tests._support.ui import Seeded, Server

PAGES = ("/", "/memories", "/queues/candidates", "/settings")


@pytest.fixture
def client(live: Server) -> Iterator[httpx.Client]:
    c = live.client()
    try:
        yield c
    finally:
        c.close()


def _tree(folder: Path) -> dict[str, bytes | None]:
    """Every entry under ``folder`` with its bytes (``None`` for a folder), following nothing."""
    out: dict[str, bytes | None] = {}
    for here, dirs, files in os.walk(folder):
        for name in dirs:
            out[os.path.relpath(os.path.join(here, name), folder)] = None
        for name in files:
            path = os.path.join(here, name)
            out[os.path.relpath(path, folder)] = Path(path).read_bytes()
    return out


def _named_on_every_page(client: httpx.Client, line: str) -> None:
    for page in PAGES:
        answer = client.get(page)
        assert answer.status_code == 200, (page, answer.text)
        assert 'id="unsafe"' in answer.text, page
        assert line in answer.text, page


def test_a_linked_local_folder_is_named_and_nothing_goes_through_it(
    client: httpx.Client, seeded: Seeded, tmp_path: Path
) -> None:
    local = seeded.root / ".cuecard/local"
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.move(local, outside / "local")  # the link leads to a real, complete local/ folder
    local.symlink_to(outside / "local", target_is_directory=True)
    before = _tree(outside)
    memory_before = seeded.memory_bytes("candidate")
    line = f"{local} is a symbolic link"

    _named_on_every_page(client, line)
    page = client.get(f"/memories/{seeded.ids['candidate']}")
    assert page.status_code == 409
    assert line in page.text

    answer = client.post(
        f"/api/memories/{seeded.ids['candidate']}/edit", json={"changes": {"title": "changed"}}
    )
    assert answer.status_code == 409
    assert answer.json()["error"] == "refused"
    assert str(local) in answer.json()["message"]
    assert answer.json()["unsafe"] == [line]
    for path in ("status", "reviewed", "dryrun"):
        refused = client.post(
            f"/api/memories/{seeded.ids['candidate']}/{path}", json={"status": "active"}
        )
        assert refused.status_code == 409, path
        assert str(local) in refused.json()["message"]
    refused = client.post("/api/settings", json={"delivery_limit": 5000})
    assert refused.status_code == 409

    assert _tree(outside) == before
    assert seeded.memory_bytes("candidate") == memory_before


def test_a_fifo_among_the_memories_is_named_and_changes_wait_until_it_is_gone(
    client: httpx.Client, seeded: Seeded
) -> None:
    fifo = seeded.root / ".cuecard/memories/planted.json"
    os.mkfifo(fifo)
    memory_before = seeded.memory_bytes("candidate")
    line = f"{fifo} is a FIFO"

    _named_on_every_page(client, line)  # (a read of the FIFO would hang here)
    url = f"/api/memories/{seeded.ids['candidate']}/edit"
    answer = client.post(url, json={"changes": {"title": "changed"}})
    assert answer.status_code == 409
    assert str(fifo) in answer.json()["message"]
    assert seeded.memory_bytes("candidate") == memory_before

    fifo.unlink()
    assert 'id="unsafe"' not in client.get("/").text
    answer = client.post(url, json={"changes": {"title": "changed"}})
    assert answer.status_code == 200, answer.text
    assert seeded.memory("candidate")["title"] == "changed"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root"
)
def test_another_users_folder_is_named(client: httpx.Client, seeded: Seeded) -> None:
    foreign = seeded.root / ".cuecard/requests"
    foreign.mkdir(exist_ok=True)
    os.chown(foreign, 65534, 65534)
    line = f"{foreign} belongs to another user (uid 65534)"

    _named_on_every_page(client, line)
    answer = client.post(f"/api/memories/{seeded.ids['candidate']}/reviewed", json={})
    assert answer.status_code == 409
    assert answer.json()["unsafe"] == [line]


def test_cuecard_ui_will_not_start_on_a_linked_store_and_says_why(
    seeded: Seeded, tmp_path: Path
) -> None:
    local = seeded.root / ".cuecard/local"
    outside = tmp_path / "outside"
    shutil.move(local, outside)
    local.symlink_to(outside, target_is_directory=True)
    before = _tree(outside)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("CUECARD_PROJECT_DIR", None)
    done = subprocess.run(
        [str(BIN / "cuecard"), "ui", "--no-browser", "--port", "0"],
        cwd=seeded.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"{local} is a symbolic link" in done.stderr
    assert done.stdout == ""
    assert _tree(outside) == before
