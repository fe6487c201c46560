"""A throwaway project set up exactly as the README tells a user: a git repository, ``cuecard
init``, ``cuecard add`` for a few memories, and ``cuecard install <harness>``."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.e2e._support._harnesses import base_env

if TYPE_CHECKING:
    from tests.e2e._support._server import ModelServer

GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]  # fmt: skip

FILES = {
    "src/billing/charge.py": "def charge(order):\n    return provider.charge(order.total)\n",
    "src/billing/__init__.py": "",
    "docs/adr/0001-provider.md": "# One payment provider\n",
    "check.sh": "#!/bin/sh\ngrep -q 'order.amount' src/billing/charge.py\n",
}

# (title, cuecard add arguments): one memory per delivery the scenarios look for.
TRAP = "charge() is not idempotent"
DECISION = "One payment provider until 2027"
PROCEDURE = "Deploy with make deploy-staging"
MEMORIES = [
    (TRAP, ["--topic", "billing/charge", "--kind", "trap",
            "--body", "Retry charge() only with the order's idempotency key.",
            "--on", "edit", "--on", "write", "--paths", "src/billing/**"]),
    (DECISION, ["--topic", "docs/provider", "--kind", "decision",
                "--body", "The contract forbids a second provider.",
                "--on", "read", "--paths", "docs/adr/**"]),
    (PROCEDURE, ["--topic", "deploy/staging", "--kind", "procedure",
                 "--body", "Never push the staging branch by hand.",
                 "--on", "prompt", "--keywords", "deploy"]),
]  # fmt: skip


# The capture scenario: check.sh fails until charge() uses order.amount; the model's proposal.
ASK = "cuecard: this turn holds evidence worth remembering"
PROPOSAL = {
    "topic": "billing/check",
    "kind": "trap",
    "title": "check.sh wants charge() to pass order.amount",
    "body": "check.sh fails, printing nothing, until charge() passes order.amount.",
    "not_derivable": "The failure prints nothing; found by trying.",
    "triggers": [{"on": ["edit"], "paths": ["src/billing/charge.py"]}],
    "evidence": [{"kind": "file", "ref": "check.sh"}],
}


@dataclass
class Project:
    """A project and the isolated home its harness runs with."""

    root: Path
    home: Path
    recorder: Path | None = None  # a folder with the logging cuecard-hook, first on the PATH

    @property
    def env(self) -> dict[str, str]:
        return base_env(self.home, path_extra=[self.recorder] if self.recorder else None)

    @property
    def calls(self) -> list[dict[str, Any]]:
        """What the harness sent ``cuecard-hook`` (see ``_recorder``), in order."""
        from tests.e2e._support._recorder import calls

        return calls(self.recorder / "calls.jsonl") if self.recorder else []

    def cuecard(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``cuecard`` as the user runs it, in the project."""
        done = subprocess.run(["cuecard", *args], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        if check:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def memories(self) -> list[dict[str, object]]:
        folder = self.root / ".cuecard" / "memories"
        return [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))]

    def tree(self) -> dict[str, bytes]:
        """Every file outside ``.git`` by relative path, with its bytes (to prove nothing
        changed)."""
        out: dict[str, bytes] = {}
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if rel.parts[0] == ".git" or not path.is_file():
                continue
            out[str(rel)] = path.read_bytes()
        return out


def make_project(base: Path, harness: str, *, opt_in: bool = True, user: bool = False,
                 install: list[str] | None = None,
                 prepare: Callable[[Project], None] | None = None) -> Project:  # fmt: skip
    """A committed repository under ``base``; with ``opt_in`` it has ``cuecard init`` and the
    memories above; ``prepare(project)`` (the harness's own set-up in the home, done before
    cuecard's, as a user who already uses the harness has it); then ``cuecard install
    <harness>`` (``--user``: into the home) with ``install``'s extra options (``{recorder}``
    stands for the logging ``cuecard-hook``'s path)."""
    root, home = base / "proj", base / "home"
    root.mkdir(parents=True)
    home.mkdir(parents=True)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "check.sh").chmod(0o755)
    from tests.e2e._support._recorder import make_recorder

    project = Project(root, home, make_recorder(base / "recorder")[0])
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True, env=project.env)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True, env=project.env)
    subprocess.run([*GIT, "commit", "-qm", "app"], cwd=root, check=True, env=project.env)
    if opt_in:
        project.cuecard("init")
        for title, args in MEMORIES:
            project.cuecard("add", "--title", title, "--not-derivable", "Learned the hard way.",
                            *args)  # fmt: skip
    if prepare is not None:
        prepare(project)
    shim = str(project.recorder / "cuecard-hook") if project.recorder else ""
    options = [option.replace("{recorder}", shim) for option in install or []]
    project.cuecard("install", harness, *(["--user"] if user else []), *options)
    return project


def assert_left_alone(
    project: Project, before: dict[str, bytes], server: ModelServer, events: set[str]
) -> None:
    """What a session in a project that did not opt in must show: cuecard's hooks ran (at
    ``events`` at least) and printed nothing, no request to the model held a memory, the agent's
    edit of ``src/billing/charge.py`` is the only change to ``before`` (``project.tree()`` taken
    before the session), and no ``.cuecard/`` appeared."""
    assert {c["argv"][1] for c in project.calls} >= events
    assert all(c["stdout"] == "" for c in project.calls)
    assert all(r.count("<memory-data") == 0 for r in server.main_requests)
    after = project.tree()
    assert after.pop("src/billing/charge.py") != before.pop("src/billing/charge.py")
    assert after == before
    assert not (project.root / ".cuecard").exists()


VAULT_FACT = "The staging database listens on port 5433 on host db-staging"
SUBMITTED = "Deploys to staging need the office VPN since 2026-11"


def vault_env(project: Project) -> tuple[Path, dict[str, str]]:
    """A vault in the project's home holding ``VAULT_FACT`` (promoted), and the project's
    environment naming it (``CUECARD_VAULT``), for the MCP scenarios."""
    vault = project.home / "vault"
    env = {**project.env, "CUECARD_VAULT": str(vault)}
    for args in (
        ["vault", "init"],
        ["vault", "submit", "--agent", "seed", "--", VAULT_FACT],
        ["vault", "apply", "--auto"],
    ):
        done = subprocess.run(["cuecard", *args], cwd=project.root, env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, (args, done.stderr)
    return vault, env
