"""The review UI and the terminal take one code path: every write a decision makes (to the
project store or the vault) is made by core's ``Decisions``, and the same decision made in the
UI and with ``cuecard accept|reject|archive`` makes the same writes from the same functions.

Each side runs for real (the UI's app served on loopback in a thread, the CLI in this process)
with a profiler that records, for every call of a store or vault write, the function that made
it. A UI route (or a CLI command) that wrote on its own, or through another function of core,
fails here.
"""

from __future__ import annotations

import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests._support.ui import InThread, Seeded, Server, make_seeded

STORE_WRITES = {"put", "put_request", "accept", "add"}
VAULT_WRITES = {"adjudicate", "apply", "review", "drop_pending", "forget"}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    base = tmp_path_factory.mktemp("template")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        return make_seeded(base)


def copy(template: Seeded, where: Path) -> Seeded:
    shutil.copytree(template.root, where / "repo", symlinks=True)
    shutil.copytree(template.vault, where / "vault", symlinks=True)
    return Seeded(where / "repo", where / "vault", dict(template.ids), template.request)


def _writer(frame: FrameType) -> tuple[str, str] | None:
    """For a call of a store or vault write, (file, function) of the code that made it."""
    code = frame.f_code
    path = code.co_filename.replace("\\", "/")
    is_store = path.endswith("/cuecard/core/store/_store.py") and code.co_name in STORE_WRITES
    is_vault = "/cuecard/core/vault/" in path and code.co_name in VAULT_WRITES
    if not (is_store or is_vault):
        return None
    if code.co_name == "forget" and not frame.f_locals.get("apply"):
        return None  # the list of what forgetting would move: a read
    caller = frame.f_back
    while caller is not None:
        cpath = caller.f_code.co_filename.replace("\\", "/")
        if not (cpath.endswith("/cuecard/core/store/_store.py") or "/cuecard/core/vault/" in cpath):
            return cpath.rsplit("/cuecard/", 1)[-1], caller.f_code.co_name
        caller = caller.f_back
    return None


@contextmanager
def writes() -> Iterator[list[tuple[str, str]]]:
    """Record the writers of this thread and of threads started inside the block."""
    seen: list[tuple[str, str]] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            found = _writer(frame)
            if found is not None:
                seen.append(found)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def through_ui(seeded: Seeded, path: Callable[[Seeded], str], body: dict[str, Any]) -> set[Any]:
    with writes() as seen:
        running = InThread(seeded)
        try:
            client = Server(running.served.url, None).client()
            answer = client.post(path(seeded), json=body)
            client.close()
            assert answer.status_code == 200, answer.text
        finally:
            running.stop()
    return set(seen)


def through_cli(
    seeded: Seeded, args: Callable[[Seeded], list[str]], monkeypatch: pytest.MonkeyPatch
) -> set[Any]:
    from cuecard.core.cli import main

    monkeypatch.chdir(seeded.root)
    monkeypatch.setenv("CUECARD_VAULT", str(seeded.vault))
    with writes() as seen:
        code = main([*args(seeded), "--reviewer", "tester", "--json"])
    assert code == 0
    return set(seen)


def _conflict(seeded: Seeded) -> str:
    from cuecard.core.vault import open_backend

    with open_backend(str(seeded.vault)) as vault:
        return vault.conflicts()[0].id


CASES: dict[str, tuple[Callable[[Seeded], str], dict[str, Any], Callable[[Seeded], list[str]]]] = {
    "accept": (
        lambda s: f"/api/memories/{s.ids['candidate']}/status",
        {"status": "active"},
        lambda s: ["accept", s.ids["candidate"]],
    ),
    "accept-revision": (
        lambda s: f"/api/memories/{s.ids['revision']}/status",
        {"status": "active"},
        lambda s: ["accept", s.ids["revision"]],
    ),
    "reject": (
        lambda s: f"/api/memories/{s.ids['candidate']}/status",
        {"status": "archived", "note": "no"},
        lambda s: ["reject", s.ids["candidate"], "--reason", "no"],
    ),
    "archive": (
        lambda s: f"/api/memories/{s.ids['target']}/status",
        {"status": "archived"},
        lambda s: ["archive", s.ids["target"]],
    ),
    "batch-accept": (
        lambda s: "/api/batch",
        {"batch": "b1", "decision": "accept"},
        lambda s: ["accept", "batch:b1"],
    ),
    "batch-reject": (
        lambda s: "/api/batch",
        {"batch": "b1", "decision": "reject"},
        lambda s: ["reject", "batch:b1"],
    ),
    "request-archive": (
        lambda s: f"/api/requests/{s.request}",
        {"decision": "archive"},
        lambda s: ["accept", f"request:{s.request}"],
    ),
    "request-dismiss": (
        lambda s: f"/api/requests/{s.request}",
        {"decision": "dismiss"},
        lambda s: ["reject", f"request:{s.request}"],
    ),
    "conflict": (
        lambda s: f"/api/vault/conflicts/{_conflict(s)}",
        {"decision": "use-new"},
        lambda s: ["accept", f"conflict:{_conflict(s)}"],
    ),
    "vault-apply": (
        lambda s: "/api/vault/apply",
        {},
        lambda s: ["accept", "pending"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_ui_and_the_cli_write_through_the_same_core_functions(
    case: str, template: Seeded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path, body, args = CASES[case]
    ui = through_ui(copy(template, tmp_path / "ui"), path, body)
    cli = through_cli(copy(template, tmp_path / "cli"), args, monkeypatch)
    assert ui, "the decision wrote nothing"
    outside = {w for w in ui | cli if w[0] != "core/lifecycle/_decisions.py"}
    assert not outside, f"written outside core's decisions: {sorted(outside)}"
    assert ui == cli
