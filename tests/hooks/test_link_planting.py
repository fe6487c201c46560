"""The link-planting suite: every path a recorded session touches under ``.cuecard/``, at every
depth, replaced by a link (and, separately, a FIFO) to an outside canary tree.

One session is run once per test module and recorded: the real payloads of every harness
(Claude Code, Codex, Grok Build, OpenCode; ``fixtures/<harness>/real-*.json``) through
``cuecard-hook``'s entry point, then ``compile``, ``add``, ``ingest`` of an inbox proposal,
``maintain``, ``status``, ``list`` and ``doctor``. The paths come from that run (every entry
under ``.cuecard/`` after it), not from a list written here, so a new file is covered when it
appears. For each path, the store is put back as the run left it, the path is replaced, and the
whole session runs again in this process: the canary stays byte-identical with the same
listing, the hook exits 0 (it never raises), each command exits 0 or 1 with a message (never a
traceback), and nothing hangs (a ``SIGALRM`` liveness bound, not a timing assertion).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cuecard.core.cli import main as cli
from cuecard.hooks import main as hook_main
from tests._support.hooks import FIXTURES, build_repo, replace_all
from tests._support.planting import entries, snapshot

LIVENESS = 30  # seconds for one whole session: only a hang reaches it
HARNESSES = ("claude", "codex", "grok", "opencode")
PROPOSAL = {
    "topic": "billing/retries", "kind": "trap", "title": "Retries double-charge",
    "body": "A retried charge without the idempotency key charges twice.",
    "not_derivable": "Only the payment provider's logs show it.",
    "triggers": [{"on": ["edit"], "paths": ["src/billing/**"]}],
}  # fmt: skip
COMMANDS: list[list[str]] = [
    ["compile"],
    ["add", "--topic", "planted/add", "--kind", "trap", "--title", "Added in the session",
     "--body", "b b", "--not-derivable", "n", "--on", "read", "--paths", "src/**"],
    ["ingest", "--json"],
    ["maintain", "--quiet"],
    ["status", "--json"],
    ["list"],
    ["doctor", "--json"],
]  # fmt: skip


_RUNS: list[int] = []


class Hang(Exception):
    """The session ran past the liveness bound."""


def _payloads() -> list[tuple[str, str, Any]]:
    """Every recorded real payload of every harness, in order, as ``(harness, event, payload)``."""
    out = []
    for harness in HARNESSES:
        for case in sorted((FIXTURES / harness).glob("real-*.json")):
            spec = json.loads(case.read_text(encoding="utf-8"))
            out.append((harness, spec["event"], spec["payload"]))
    return out


def _hook(harness: str, event: str, data: bytes) -> str:
    """``cuecard-hook HARNESS EVENT`` through its entry point, in this process."""
    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    try:
        assert hook_main([harness, event]) == 0
        sys.stdout.flush()
        written = sys.stdout.buffer.getvalue()
        assert isinstance(written, bytes)
        return written.decode("utf-8")
    finally:
        sys.stdin, sys.stdout = stdin, stdout


def run_session(root: Path, outside: Path) -> list[tuple[str, int]]:
    """The whole session in ``root``; each command's exit status."""
    mapping = {"$ROOT": str(root), "$OUTSIDE": str(outside)}
    for harness, event, payload in _payloads():
        mapping["$SESSION"] = f"{harness}-planted"
        out = _hook(harness, event, json.dumps(replace_all(payload, mapping)).encode())
        assert out == "" or out.endswith("\n")
    inbox = root / ".cuecard" / "inbox"
    if inbox.is_dir() and not inbox.is_symlink():
        (inbox / "proposal.json").write_text(json.dumps(PROPOSAL), encoding="utf-8")
    codes = []
    _RUNS.append(1)
    for argv in COMMANDS:
        if argv[0] == "add":  # a topic of its own each run: the add writes every time
            argv = [a if a != "planted/add" else f"planted/add-{len(_RUNS)}" for a in argv]
        codes.append((argv[0], cli(argv)))
    return codes


@pytest.fixture(autouse=True)
def _no_detached_maintenance(monkeypatch: pytest.MonkeyPatch) -> None:
    """SessionStart spawns ``cuecard maintain`` when it is due; the session runs it itself."""
    from tests._support.internals import schedule

    monkeypatch.setattr(schedule, "_spawn_detached", lambda command, root: None)


@pytest.fixture
def alarm() -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"the session did not finish within {LIVENESS} s")

    old = signal.signal(signal.SIGALRM, ring)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


class Recorded:
    """The session's project, the store as the run left it, and the paths it touched."""

    def __init__(self, base: Path) -> None:
        self.root = build_repo(base / "repo")
        self.outside = base / "outside"
        self.outside.mkdir()
        self.canary = base / "canary"
        self.pristine = base / "pristine"
        self.paths: list[str] = []


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    base = tmp_path_factory.mktemp("planting")
    record = Recorded(base)
    here = os.getcwd()
    os.chdir(record.root)
    saved = os.environ.pop("CUECARD_PROJECT_DIR", None)
    from tests._support.internals import schedule

    spawn = schedule._spawn_detached
    schedule._spawn_detached = lambda command, root: None
    try:
        codes = run_session(record.root, record.outside)
        # the recorded run works (doctor answers 1: no harness has the hooks installed here)
        assert all(code == 0 or name == "doctor" for name, code in codes), codes
        store = record.root / ".cuecard"
        assert (store / "local" / "sessions" / "claude-planted").is_dir()
        record.paths = [f".cuecard/{rel}" for rel in entries(store)]
        shutil.copytree(store, record.pristine, symlinks=True)
        yield record
    finally:
        schedule._spawn_detached = spawn
        os.chdir(here)
        if saved is not None:
            os.environ["CUECARD_PROJECT_DIR"] = saved


def _canary(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "inner").mkdir(parents=True)
    (folder / "own.txt").write_text("the user's own file\n", encoding="utf-8")
    (folder / "inner" / "notes.md").write_text("# kept\n", encoding="utf-8")


def _restore(record: Recorded) -> None:
    store = record.root / ".cuecard"
    shutil.rmtree(store)
    shutil.copytree(record.pristine, store, symlinks=True)


def test_the_recorded_session_covers_the_store(recorded: Recorded) -> None:
    """The run touched what the hook and the commands keep: the index, sessions, the ledger."""
    paths = set(recorded.paths)
    for expected in (".cuecard/local/index/CURRENT", ".cuecard/local/telemetry",
                     ".cuecard/local/sessions/codex-planted/footprint.jsonl",
                     ".cuecard/config.json", ".cuecard/memories"):  # fmt: skip
        assert expected in paths, sorted(paths)
    assert any(p.startswith(".cuecard/local/index/g") for p in paths)


def _plant(record: Recorded, rel: str, how: str) -> None:
    path = record.root / rel
    target = record.canary if path.is_dir() and not path.is_symlink() else record.canary / "own.txt"
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    if how == "link":
        path.symlink_to(target)
    else:
        os.mkfifo(path)


@pytest.mark.parametrize("how", ["link", "fifo"])
def test_every_recorded_path_planted(
    recorded: Recorded, how: str, alarm: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(recorded.root)
    monkeypatch.delenv("CUECARD_PROJECT_DIR", raising=False)
    failures = []
    for rel in recorded.paths:
        _canary(recorded.canary)
        before = snapshot(recorded.canary)
        _restore(recorded)
        _plant(recorded, rel, how)
        signal.alarm(LIVENESS)
        try:
            codes = run_session(recorded.root, recorded.outside)
        except Hang as exc:
            failures.append(f"{rel} ({how}): {exc}")
            continue
        except Exception as exc:  # a traceback is not how a command exits
            failures.append(f"{rel} ({how}): {type(exc).__name__}: {exc}")
            continue
        finally:
            signal.alarm(0)
        bad = [(name, code) for name, code in codes if code not in (0, 1)]
        if bad:
            failures.append(f"{rel} ({how}): exit statuses {bad}")
        if snapshot(recorded.canary) != before:
            failures.append(f"{rel} ({how}): the canary changed")
        if sorted(os.listdir(recorded.root.parent)) != sorted(
            ["repo", "outside", "canary", "pristine"]
        ):
            failures.append(f"{rel} ({how}): something appeared next to the repository")
    _restore(recorded)
    assert failures == [], "\n".join(failures)
