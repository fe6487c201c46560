"""The link-planting suite of the projection's receiver and of the review UI: every path one
recorded run touches under the runtime root and under ``.cuecard/``, at every depth, replaced by
a link (and, separately, a FIFO) to an outside canary tree.

The run is recorded once per module: (a) ``cuecard wp wire``, then the real receiver (its app
served by uvicorn on loopback, in a thread) takes signed events (agent, shared, a private user
layer, a daily file, a delete) and applies them, and ``cuecard wp status`` reads the root;
(b) the real review UI (its app on loopback) accepts one proposal and rejects another over HTTP.
The paths come from that run (every entry under the runtime root and ``.cuecard/`` after it),
not from a list written here, so a new file is covered when it appears. For each path, the tree
it lies in is put back as it was before the run, the path (its missing parent folders made) is
replaced, and that half of the run goes again: the canary stays byte-identical with the same
listing, nothing appears beside the trees, each command exits 0 or 1, each HTTP answer is one
of the routes' documented codes (never a 500), and nothing hangs (a liveness bound only).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from cuecard.core import CuecardError, Store
from cuecard.core.cli import main as cli
from cuecard.wp_projection import ReceiverSettings, SafeRoot, build_app
from tests._support.planting import entries, snapshot
from tests._support.ui import make_seeded
from tests._support.wp import SECRET, Idles, envelope, free_port, signed

LIVENESS = 30.0  # seconds for one half of the run: only a hang reaches it
RECEIVER_CODES = {202, 409, 422, 503}
"""``POST /events``: queued, replayed, refused, the queue could not store it."""
STATUS_CODES = {200, 503}
"""``GET /status``: the report, or the root cannot be read (the reason in the answer)."""
UI_CODES = {200, 303, 404, 409, 422}
"""The review UI: a page or a change done, the key's redirect, an unknown id, a change refused
(a store that is not as cuecard expects included), a field that breaks a rule."""


def _events() -> list[dict[str, Any]]:
    return [
        envelope(seq=1, filename="MEMORY.md", content="# agent\n"),
        envelope(seq=2, filename="SITE.md", layer="shared", content="# site\n"),
        envelope(seq=3, filename="USER.md", layer="user", user_id=3, content="# private\n"),
        envelope(seq=4, filename="daily/2026/11/30.md", content="# a day\n"),
        envelope(seq=5, filename="contexts/notes.md", content="# notes\n"),
        envelope("memory.deleted", seq=6, filename="contexts/notes.md"),
    ]


@dataclass
class Recorded:
    base: Path
    runtime: Path
    project: Path
    ids: dict[str, str]
    canary: Path
    before: dict[str, Path] = field(default_factory=dict)
    """Each tree (``runtime``, ``project``) as it was before the run."""
    paths: dict[str, list[str]] = field(default_factory=dict)
    """Each tree's entries after the run, relative to it."""


# -- (a) the receiver ---------------------------------------------------------------------------


def _serve(settings: ReceiverSettings) -> tuple[uvicorn.Server, threading.Thread, Idles, int]:
    port = free_port()
    idles = Idles()
    config = uvicorn.Config(
        build_app(settings, on_idle=idles),
        host="127.0.0.1",
        port=port,
        log_level="critical",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = threading.Event()
    while not server.started and thread.is_alive():
        started.wait(0.01)
    return server, thread, idles, port


def run_receiver(runtime: Path) -> list[str]:
    """The receiver's half; what broke a documented answer (empty when all were)."""
    problems = []
    root_arg = ["--root", str(runtime)]
    wired = cli(["wp", "wire", "claude", *root_arg])
    if wired not in (0, 1):
        problems.append(f"wp wire exited {wired}")
    # what `cuecard wp serve` does before it says it listens: a refusal there is its exit 1
    from cuecard.wp_projection import PathRefused, RootNotWritable

    root = SafeRoot(runtime)
    try:
        root.check_writable((".queue.sqlite", ".manifest.json"))
        root.database(".queue.sqlite")
    except (PathRefused, RootNotWritable):
        return problems
    settings = ReceiverSettings(root=runtime, secret=SECRET.encode(), retry_attempts=1)
    server, thread, idles, port = _serve(settings)
    if not server.started:
        thread.join(LIVENESS)
        return [*problems, "the receiver did not start after serve's checks passed"]
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(timeout=LIVENESS) as client:
            for env in _events():
                body = json.dumps(env).encode()
                answer = client.post(url + "/events", content=body, headers=signed(body))
                if answer.status_code not in RECEIVER_CODES:
                    problems.append(f"POST /events answered {answer.status_code}: {answer.text}")
            seen = idles.seen()
            while True:
                answer = client.get(url + "/status", headers=signed(b""))
                if answer.status_code not in STATUS_CODES:
                    problems.append(f"GET /status answered {answer.status_code}: {answer.text}")
                    break
                report = answer.json()
                if answer.status_code != 200 or report["idle"] or report["worker_error"]:
                    break
                if not idles.wait_past(seen, LIVENESS):
                    problems.append(f"the worker never settled: {report}")
                    break
                seen = idles.seen()
    finally:
        server.should_exit = True
        thread.join(LIVENESS)
    status = cli(["wp", "status", *root_arg, "--json"])
    if status not in (0, 1):
        problems.append(f"wp status exited {status}")
    return problems


# -- (b) the review UI --------------------------------------------------------------------------


def run_ui(project: Path, ids: dict[str, str]) -> list[str]:
    """The review UI's half: accept one proposal, reject another, over HTTP."""
    from cuecard.ui import Project, bind
    from cuecard.ui import build_app as build_ui

    try:  # what `cuecard ui` does before it serves: a refusal there is its exit 1
        store = Store.open(project)
        store.config()
    except CuecardError:
        return []
    served = bind(0)
    app = build_ui(Project(store, vault_location=None, reviewer="tester"), served.guard)
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [served.sock]}, daemon=True)
    thread.start()
    started = threading.Event()
    while not server.started and thread.is_alive():
        started.wait(0.01)
    problems = []
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{served.guard.port}", timeout=LIVENESS
        ) as client:

            def answer(response: httpx.Response, what: str) -> httpx.Response:
                if response.status_code not in UI_CODES:
                    problems.append(f"{what} answered {response.status_code}: {response.text}")
                return response

            answer(client.get(served.url), "the key")
            page = answer(client.get("/"), "GET /")
            marker = 'name="cuecard-token" content="'
            if marker in page.text:
                start = page.text.index(marker) + len(marker)
                client.headers["X-Cuecard-Token"] = page.text[start : page.text.index('"', start)]
            for role, body in (("candidate", {"status": "active"}),
                               ("unready", {"status": "archived", "note": "no"})):  # fmt: skip
                path = f"/api/memories/{ids[role]}/status"
                answer(client.post(path, json=body), f"POST {path}")
            answer(client.get(f"/memories/{ids['candidate']}"), "GET the memory")
    finally:
        server.should_exit = True
        thread.join(LIVENESS)
        served.sock.close()
    return problems


# -- the recorded run ---------------------------------------------------------------------------

HALVES: dict[str, Callable[[Recorded], list[str]]] = {
    "runtime": lambda r: run_receiver(r.runtime),
    "project": lambda r: run_ui(r.project, r.ids),
}
UNDER = {"runtime": "", "project": ".cuecard"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    base = tmp_path_factory.mktemp("planting")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        patch.setenv("XDG_CONFIG_HOME", str(base / "config"))
        patch.delenv("CUECARD_PROJECT_DIR", raising=False)
        patch.delenv("CUECARD_VAULT", raising=False)
        (base / "seed").mkdir()
        seeded = make_seeded(base / "seed")
        shutil.rmtree(seeded.vault)
        runtime = base / "runtime"
        runtime.mkdir()
        record = Recorded(base, runtime, seeded.root, seeded.ids, base / "canary")
        for name, tree in (("runtime", runtime), ("project", seeded.root / ".cuecard")):
            record.before[name] = base / f"before-{name}"
            shutil.copytree(tree, record.before[name], symlinks=True)
        for name, half in HALVES.items():
            assert half(record) == [], name
        assert (runtime / ".dm-memory" / ".queue.sqlite").is_file()
        assert json.loads((seeded.root / ".cuecard/memories" / f"{seeded.ids['candidate']}.json")
                          .read_text())["status"] == "active"  # fmt: skip
        record.paths = {
            "runtime": entries(runtime),
            "project": entries(seeded.root, ".cuecard"),
        }
        yield record


def _tree(record: Recorded, name: str) -> Path:
    return record.runtime if name == "runtime" else record.project / ".cuecard"


def _restore(record: Recorded, name: str) -> None:
    tree = _tree(record, name)
    shutil.rmtree(tree)
    shutil.copytree(record.before[name], tree, symlinks=True)


def _canary(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "inner").mkdir(parents=True)
    (folder / "own.txt").write_text("the user's own file\n", encoding="utf-8")
    (folder / "inner" / "notes.md").write_text("# kept\n", encoding="utf-8")


def _plant(record: Recorded, base: Path, rel: str, how: str, folder: bool) -> None:
    path = base / rel
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if how == "link":
        path.symlink_to(record.canary if folder else record.canary / "own.txt")
    else:
        os.mkfifo(path)


def test_the_recorded_run_covers_both_trees(recorded: Recorded) -> None:
    runtime, project = set(recorded.paths["runtime"]), set(recorded.paths["project"])
    for expected in (".dm-memory/.manifest.json", ".dm-memory/.queue.sqlite", "CLAUDE.md",
                     ".dm-memory/.lock"):  # fmt: skip
        assert expected in runtime, sorted(runtime)
    assert any(p.endswith("/users/3/USER.md") for p in runtime), sorted(runtime)
    assert any(p.endswith("/daily/2026/11/30.md") for p in runtime), sorted(runtime)
    for expected in (".cuecard/config.json", ".cuecard/memories", ".cuecard/local/index/CURRENT"):
        assert expected in project, sorted(project)
    assert any(p.startswith(".cuecard/local/index/g") for p in project)


@pytest.mark.parametrize("how", ["link", "fifo"])
@pytest.mark.parametrize("name", ["runtime", "project"])
def test_every_recorded_path_planted(recorded: Recorded, name: str, how: str) -> None:
    base = recorded.runtime if name == "runtime" else recorded.project
    after = _tree(recorded, name)
    kinds = {rel: (base / rel).is_dir() for rel in recorded.paths[name]}
    _restore(recorded, name)
    _canary(recorded.canary)
    beside = sorted(os.listdir(recorded.base))
    failures = []
    for rel, folder in kinds.items():
        _canary(recorded.canary)
        before = snapshot(recorded.canary)
        _restore(recorded, name)
        _plant(recorded, base, rel, how, folder)
        outcome: list[list[str]] = []
        worker = threading.Thread(
            target=_attempt, args=(HALVES[name], recorded, outcome), daemon=True
        )
        worker.start()
        worker.join(4 * LIVENESS)
        if worker.is_alive():
            failures.append(f"{rel} ({how}): the run did not finish (a hang)")
            break  # the hung run still holds the tree
        problems = outcome[0] if outcome else ["the run left no outcome"]
        failures += [f"{rel} ({how}): {p}" for p in problems]
        if snapshot(recorded.canary) != before:
            failures.append(f"{rel} ({how}): the canary changed")
        if sorted(os.listdir(recorded.base)) != beside:
            failures.append(f"{rel} ({how}): something appeared beside the trees")
    _restore(recorded, name)
    assert after.exists()
    assert failures == [], "\n".join(failures)


def _attempt(
    half: Callable[[Recorded], list[str]], record: Recorded, outcome: list[list[str]]
) -> None:
    try:
        outcome.append(half(record))
    except Exception as exc:  # a traceback is not how a command or a route answers
        outcome.append([f"{type(exc).__name__}: {exc}"])
