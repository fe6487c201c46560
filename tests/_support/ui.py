"""The review UI's test parts: a seeded project and vault, and `cuecard ui` running for real
(as a process, or the same app in a thread)."""

from __future__ import annotations

import hashlib
import json
import os
import selectors
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from cuecard.core import Store, validate_memory
from cuecard.core.vault import DEFAULT
from cuecard.core.vault.folder import apply_pending, init_vault, review, submit
from tests._support.cli import BIN
from tests._support.internals import write_review

NOW = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
CHARGE = "def refund(charge_id):\n    return charge_id\n"


@dataclass
class Seeded:
    """The seeded project: memory ids by role, paths, the vault."""

    root: Path
    vault: Path
    ids: dict[str, str] = field(default_factory=dict)
    request: str = ""

    def memory(self, role: str) -> dict[str, Any]:
        path = self.root / ".cuecard/memories" / f"{self.ids[role]}.json"
        return dict(json.loads(path.read_text()))

    def memory_bytes(self, role: str) -> bytes:
        return (self.root / ".cuecard/memories" / f"{self.ids[role]}.json").read_bytes()


def _memory(**fields: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "kind": "trap",
        "status": "candidate",
        "source": "claude-code",
        "created_at": NOW.isoformat(),
        "updated_at": NOW.isoformat(),
    }
    raw.update(fields)
    return raw


def _footprint(root: Path) -> None:
    folder = root / ".cuecard/local/sessions/s1"
    folder.mkdir(parents=True)
    t = NOW.timestamp()
    records = [
        {"t": t, "e": "prompt"},
        {"t": t + 1, "e": "tool", "tool": "Read", "kind": "read", "paths": ["billing/charge.py"]},
        {"t": t + 2, "e": "tool", "tool": "Edit", "kind": "edit", "paths": ["billing/charge.py"]},
        {"t": t + 3, "e": "tool", "tool": "Bash", "kind": "run", "command": "pytest -q billing"},
        {"t": t + 4, "e": "tool", "tool": "Read", "kind": "read", "paths": ["src/api/routes.py"]},
        {"t": t + 5, "e": "stop"},
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    (folder / "footprint.jsonl").write_text(text + "{torn line\n")
    other = root / ".cuecard/local/sessions/s2"
    other.mkdir()
    (other / "footprint.jsonl").write_text(
        json.dumps({"t": t + 60, "e": "tool", "kind": "edit", "paths": ["billing/tax.py"]}) + "\n"
    )


def _ledger(root: Path, ids: dict[str, str]) -> None:
    t = NOW.timestamp()
    lines = [
        {"t": t, "session": "s1", "event": "edit", "ids": [[ids["auto"], "paths"]]},
        {"t": t + 86_400, "session": "s2", "event": "read", "ids": [[ids["auto"], "paths"]]},
        {"t": t + 86_500, "session": "s2", "event": "run", "ids": [[ids["stale"], "commands"]]},
    ]
    path = root / ".cuecard/local/ledger.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _vault(path: Path) -> None:
    vault, _ = init_vault(path, DEFAULT)
    submit(vault, "agent", ["The staging database listens on port 5433 on host db-staging"])
    write_review(vault, review(vault), "seed")
    apply_pending(vault, "seed")
    submit(vault, "agent", ["The staging database listens on port 5434 on host db-staging"])
    write_review(vault, review(vault), "seed")


def make_seeded(base: Path) -> Seeded:
    """A project with a memory in every queue, a recorded session, a ledger and a vault."""
    project = base / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    Store.init(project)
    (project / "billing").mkdir()
    (project / "billing/charge.py").write_text(CHARGE)
    (project / "src/api").mkdir(parents=True)
    (project / "src/api/routes.py").write_text("ROUTES = []\n")
    digest = hashlib.sha256(CHARGE.encode()).hexdigest()
    why = "The payment API accepts both ids and only fails at settlement, a week later."
    records = {
        "candidate": _memory(
            topic="billing/refunds",
            title="refund() needs the original charge id",
            body="Call refund(charge_id) with the id from the charges table, not the invoice.",
            not_derivable=why,
            triggers=[{"on": ["read", "edit"], "paths": ["billing/**"]}],
            batch="b1",
        ),
        "unready": _memory(
            topic="billing/currency",
            title="amounts in billing are integer cents",
            body="Every amount column in billing/ stores integer cents; never store floats.",
            triggers=[{"on": ["edit"], "paths": ["billing/*.py"]}],
            batch="b1",
        ),
        "auto": _memory(
            topic="api/routes",
            status="active",
            title="routes.py order decides precedence",
            body="src/api/routes.py is matched top to bottom; put specific routes first.",
            not_derivable="The router silently shadows later routes; no error is raised.",
            triggers=[{"on": ["read", "edit"], "paths": ["src/api/**"]}],
            evidence=[
                {"kind": "file", "ref": "billing/charge.py", "sha256": digest, "verified": True}
            ],
            review={"auto_accepted": True},
        ),
        "stale": _memory(
            topic="billing/tests",
            status="active",
            kind="procedure",
            title="run billing tests with the fake clock",
            body="Run pytest -q billing with FAKE_CLOCK=1; the settlement job reads the clock.",
            not_derivable="The clock dependency is hidden in a C extension.",
            triggers=[{"on": ["run"], "commands": ["pytest"]}],
            evidence=[{"kind": "file", "ref": "billing/charge.py", "sha256": "0" * 64}],
        ),
        "contested": _memory(
            topic="deploy/window",
            status="contested",
            kind="decision",
            title="deploys only before 15:00 UTC",
            body="Deploy the billing service only before 15:00 UTC because settlement runs at 16.",
            not_derivable="A team agreement, written nowhere in the code.",
            triggers=[{"on": ["run"], "commands": ["make deploy"]}],
        ),
        "target": _memory(
            topic="legacy/xml",
            status="active",
            kind="fact",
            title="the legacy XML export is still used by finance",
            body="legacy/export_xml.py feeds the finance spreadsheet every Monday.",
            not_derivable="Finance's use lives outside this repository.",
            triggers=[{"on": ["edit"], "paths": ["legacy/**"]}],
        ),
        "html": _memory(
            topic="ui/escaping",
            status="archived",
            title='<img src=x onerror="alert(1)"> markup in a title',
            body='Text with <script>alert("body")</script> and a </textarea> inside src/x.py.',
            archived_reason="seeded to prove the pages escape memory text",
        ),
        "migrated": _memory(
            topic="ops/backups",
            status="active",
            kind="fact",
            title="backups run from cron on db-1",
            body="The nightly backup of the billing database runs from cron on host db-1.",
            triggers=[{"on": ["edit"], "paths": ["ops/**"]}],
            review={"migrated": True},
        ),
    }
    store = Store(project)
    ids = {}
    with store.transaction() as tx:
        for role, raw in records.items():
            ids[role] = tx.put(validate_memory(raw)).id
    revision = _memory(
        topic="billing/tests",
        kind="procedure",
        title="run billing tests with FAKE_CLOCK and TZ=UTC",
        body="Run pytest -q billing with FAKE_CLOCK=1 and TZ=UTC since settlement reads both.",
        not_derivable="The clock dependency is hidden in a C extension.",
        triggers=[{"on": ["run"], "commands": ["pytest"]}],
        revises=ids["stale"],
    )
    request = {
        "id": str(uuid.uuid4()),
        "request": "archive",
        "target": ids["target"],
        "reason": "finance moved to the CSV export",
        "batch": None,
        "source": "claude-code",
        "created_at": NOW.isoformat(),
    }
    with store.transaction() as tx:
        ids["revision"] = tx.put(validate_memory(revision)).id
        tx.put_request(request)
    _footprint(project)
    _ledger(project, ids)
    vault = base / "vault"
    _vault(vault)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(
        [
            "git",
            "-c",
            "user.name=Seed",
            "-c",
            "user.email=seed@example.com",
            "commit",
            "-qm",
            "seed",
        ],
        cwd=project,
        check=True,
    )
    return Seeded(project, vault, ids, str(request["id"]))


@dataclass
class Server:
    """`cuecard ui` running in a subprocess, and the URL it printed."""

    url: str
    proc: subprocess.Popen[str] | None

    @property
    def base(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 0)

    @property
    def key(self) -> str:
        return urlsplit(self.url).query.removeprefix("key=")

    def client(self) -> httpx.Client:
        """A client that exchanged the key for the cookie and holds the page token."""
        client = httpx.Client(base_url=self.base, timeout=30)
        first = client.get(self.url)
        assert first.status_code == 303, first.text
        page = client.get("/")
        assert page.status_code == 200
        marker = 'name="cuecard-token" content="'
        start = page.text.index(marker) + len(marker)
        token = page.text[start : page.text.index('"', start)]
        client.headers["X-Cuecard-Token"] = token
        return client


def start_ui(root: Path, vault: Path | None, *extra: str) -> Server:
    args = [str(BIN / "cuecard"), "ui", "--no-browser", "--port", "0", "--reviewer", "tester"]
    if vault is not None:
        args += ["--vault", str(vault)]
    env = {**os.environ}
    env.pop("CUECARD_PROJECT_DIR", None)
    env.pop("CUECARD_VAULT", None)
    env["XDG_CONFIG_HOME"] = str(root.parent / "config")  # never the user's configured vault
    proc = subprocess.Popen(
        [*args, *extra],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:  # a bound, so a hung start fails the test
        selector.register(proc.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout=120)
    line = proc.stdout.readline().strip() if ready else ""
    if not line.startswith("http://127.0.0.1:"):
        proc.kill()
        _out, err = proc.communicate(timeout=10)
        raise AssertionError(f"cuecard ui printed {line!r}; stderr: {err}")
    return Server(line, proc)


def stop_ui(server: Server) -> str:
    assert server.proc is not None
    server.proc.send_signal(signal.SIGINT)
    try:
        _out, err = server.proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        _out, err = server.proc.communicate()
    return err


class InThread:
    """The same app and uvicorn server as `cuecard ui`, run in a thread (no process start-up)."""

    def __init__(
        self,
        seeded: Seeded,
        *,
        vault: bool = True,
        location: str | None = None,
        notify: Any = None,
    ) -> None:
        import threading

        import uvicorn

        from cuecard.ui import Project, bind, build_app

        self.served = bind(0)
        project = Project(
            Store.open(seeded.root),
            vault_location=(location or str(seeded.vault)) if vault else None,
            reviewer="tester",
            notify=notify,
        )
        config = uvicorn.Config(
            build_app(project, self.served.guard), log_level="warning", lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.served.sock]}, daemon=True
        )
        self.thread.start()
        assert wait_for(lambda: self.server.started), "uvicorn did not start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.served.sock.close()


def wait_for(predicate: Any, timeout: float = 10.0) -> bool:
    """Poll a condition with a bound (not a timing assertion)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
