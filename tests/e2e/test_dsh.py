"""DeepSeek Harness, the real host (``dsh --profile headless``), against the scripted model.

The project is set up as the README says (``cuecard init``, ``cuecard add``, ``cuecard install
dsh``: both plugins and the Claude Code hook bridge in the profile); the host talks to the
scripted chat-completions server through ``DEEPSEEK_BASE_URL``. What the model saw is the body
of each request the host sent.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests._support.dsh_host import DSH, hmr_patch, host_env, require_host, session_events
from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import VENV_BIN, base_env
from tests.e2e._support._project import (
    ASK,
    DECISION,
    FILES,
    GIT,
    MEMORIES,
    PROCEDURE,
    PROPOSAL,
    TRAP,
)

pytestmark = pytest.mark.slow


class Setup:
    """A committed, opted-in project with the scenario memories, a vault, and DSH home with
    ``cuecard install dsh`` done in the headless profile."""

    def __init__(self, base: Path) -> None:
        self.root, self.home = base / "proj", base / "home"
        self.root.mkdir(parents=True)
        self.home.mkdir(parents=True)
        self.env = host_env(
            {**base_env(self.home), "CUECARD_VAULT": str(self.home / "vault")},
            self.home / ".dsh",
        )
        for rel, text in FILES.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "app"]):
            subprocess.run([*GIT, *args], cwd=self.root, check=True, env=self.env)
        self.cuecard("vault", "init")
        self.cuecard("init")
        for title, args in MEMORIES:
            self.cuecard("add", "--title", title, "--not-derivable", "Learned the hard way.", *args)
        self.cuecard("install", "dsh", "--profile", "headless", "--dsh", str(DSH))
        self.patch = hmr_patch(base)

    def cuecard(self, *args: str) -> str:
        done = subprocess.run([str(VENV_BIN / "cuecard"), *args], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def turn(
        self,
        prompt: str,
        script: list[Reply],
        cwd: Path | None = None,
        patches: tuple[Path, ...] = (),
        **env_extra: str,
    ) -> ModelServer:
        with ModelServer(script) as server:
            env = {**self.env, "DEEPSEEK_BASE_URL": server.url, "DEEPSEEK_API_KEY": "sk-test",
                   **env_extra}  # fmt: skip
            done = subprocess.run(
                [str(DSH), "--profile", "headless", "--patch", str(self.patch),
                 *(a for p in patches for a in ("--patch", str(p))), prompt],
                cwd=cwd or self.root, env=env, capture_output=True, text=True, timeout=300,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        assert server.spent, [r.reply for r in server.main_requests]
        self.stderr = done.stderr
        return server


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    """One project and DSH home for the module (each turn is a new DSH session, so a new
    epoch); installing the plugins is the slow part."""
    require_host()
    return Setup(tmp_path_factory.mktemp("dsh"))


def read(path: str) -> Reply:
    return Reply(tool_calls=[ToolCall("read", {"file_path": path})])


def test_a_read_memory_reaches_the_model_after_the_read_once_per_epoch(setup: Setup) -> None:
    adr = str(setup.root / "docs/adr/0001-provider.md")
    server = setup.turn("Look at the provider decision.", [read(adr), read(adr), Reply("Done.")])
    asked = server.main_requests
    assert len(asked) == 3
    assert asked[0].count(DECISION) == 0  # nothing before the read
    # the memory arrives with the read's result, wrapped as data, and only once in the epoch
    assert asked[1].count(DECISION) == 1, asked[1].text()[-3000:]
    assert "<memory-data" in asked[1].text()
    assert asked[2].count(DECISION) == 1
    assert TRAP not in asked[2].text()  # nothing triggered by an edit or a write


def test_an_edit_memory_reaches_the_model_after_the_edit(setup: Setup) -> None:
    charge = str(setup.root / "src/billing/charge.py")
    server = setup.turn("Fix charge.", [
        read(charge),
        Reply(tool_calls=[ToolCall("edit", {"file_path": charge, "old_string": "order.total",
                                            "new_string": "order.amount"})]),
        Reply("Done."),
    ])  # fmt: skip
    asked = server.main_requests
    assert asked[1].count(TRAP) == 0
    assert asked[2].count(TRAP) == 1, asked[2].text()[-3000:]
    assert "order.amount" in (setup.root / "src/billing/charge.py").read_text()


def test_a_write_memory_reaches_the_model_after_the_write_made_the_file(setup: Setup) -> None:
    setup.cuecard("add", "--title", "Notes are listed", "--not-derivable", "A team habit.",
                  "--topic", "docs/notes", "--kind", "procedure",
                  "--body", "List every new note in notes/INDEX.md.",
                  "--on", "write", "--paths", "notes/**")  # fmt: skip
    note = str(setup.root / "notes/release.md")
    server = setup.turn("Write release notes.", [
        Reply(tool_calls=[ToolCall("write", {"file_path": note, "content": "# Release\n"})]),
        Reply("Done."),
    ])  # fmt: skip
    asked = server.main_requests
    assert asked[0].count("Notes are listed") == 0
    # after the write the file exists, yet DSH's "Created file" makes it a write, not an edit
    assert asked[1].count("Notes are listed") == 1, asked[1].text()[-3000:]


def bash(command: str) -> Reply:
    return Reply(tool_calls=[ToolCall("bash", {"command": command, "description": "check"})])


def test_capture_a_fix_then_the_ask_then_the_proposal_is_stored_and_answered(
    setup: Setup,
) -> None:
    charge = setup.root / "src/billing/charge.py"
    charge.write_text(FILES["src/billing/charge.py"], encoding="utf-8")  # the edit test fixed it
    inbox = setup.root / ".cuecard/inbox/check.json"
    server = setup.turn("Make check.sh pass.", [
        bash("sh check.sh"),
        read(str(charge)),
        Reply(tool_calls=[ToolCall("edit", {"file_path": str(charge), "old_string": "order.total",
                                            "new_string": "order.amount"})]),
        bash("sh check.sh"),
        Reply("Fixed."),
        Reply(tool_calls=[ToolCall("write", {"file_path": str(inbox),
                                             "content": json.dumps(PROPOSAL, indent=1)})]),
        Reply("Saved."),
    ])  # fmt: skip
    asked = server.main_requests
    assert server.first_with(ASK) == 5, [r.text()[-2000:] for r in asked[4:]]
    folder = setup.root / ".cuecard" / "memories"
    stored = [m for m in (json.loads(p.read_text("utf-8")) for p in folder.glob("*.json"))
              if m["title"] == PROPOSAL["title"]]  # fmt: skip
    assert len(stored) == 1
    assert server.first_with("cuecard activated memory") == 6
    assert asked[-1].count("cuecard activated memory") == 1


def test_a_prompt_keyword_is_in_the_first_request(setup: Setup) -> None:
    server = setup.turn("How do we deploy this?", [Reply("Done.")])
    [first] = server.main_requests
    # once: the hook bridge delivers it at UserPromptSubmit, and the discipline plugin's recall
    # (the same turn, the same delivery ledger) leaves it out
    assert first.count(PROCEDURE) == 1, first.text()[-3000:]
    assert first.count("Never push the staging branch by hand.") == 1


def test_no_delivery_is_claimed_through_a_channel_the_host_drops(setup: Setup) -> None:
    """The bridge ignores PreToolUse context in DSH: cuecard runs nothing there."""
    adr = str(setup.root / "docs/adr/0001-provider.md")
    setup.turn("Look at the provider decision.", [read(adr), Reply("Done.")])
    events = session_events(setup.home / ".dsh")
    points = [e["data"]["point"] for e in events if e["type"] == "hook/invoked"]
    assert "PreToolUse" not in points, points
    assert "PostToolUse" in points, points
    config = json.loads((setup.home / ".config" / "cuecard" / "dsh-hooks.json").read_text())
    assert "PreToolUse" not in config["hooks"]


def plain_repository(plain: Path, env: dict[str, str]) -> Path:
    """The scenario's files, committed, in a repository that has not opted in."""
    for rel, text in FILES.items():
        (plain / rel).parent.mkdir(parents=True, exist_ok=True)
        (plain / rel).write_text(text, encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "app"]):
        subprocess.run([*GIT, *args], cwd=plain, check=True, env=env)
    return plain


def test_a_project_that_did_not_opt_in_is_left_alone(setup: Setup, tmp_path: Path) -> None:
    plain = plain_repository(tmp_path / "plain", setup.env)

    def tree() -> dict[str, bytes]:
        return {str(p.relative_to(plain)): p.read_bytes() for p in sorted(plain.rglob("*"))
                if p.is_file() and ".git" not in p.relative_to(plain).parts}  # fmt: skip

    before = tree()
    adr = str(plain / "docs/adr/0001-provider.md")
    server = setup.turn("How do we deploy? Look at the provider decision.",
                        [read(adr), Reply("Done.")], cwd=plain)  # fmt: skip
    for request in server.main_requests:
        assert DECISION not in request.text()
        assert PROCEDURE not in request.text()
    assert tree() == before
    assert not (plain / ".cuecard").exists()


def test_a_set_up_problem_is_shown_to_a_headless_user(setup: Setup, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-vault"
    setup.turn("What is the provider decision?", [Reply("Done.")], CUECARD_VAULT=str(missing))
    lines = [line for line in setup.stderr.splitlines() if line.startswith("cuecard: ")]
    assert lines, setup.stderr[-2000:]
    assert all("cuecard doctor" in line for line in lines), setup.stderr[-2000:]
    assert any(str(missing) in line for line in lines), lines
    assert len(lines) == len(set(lines))  # each problem once, though both plugins found it
    setup.turn("What is the provider decision?", [Reply("Done.")])
    assert "cuecard: " not in setup.stderr  # a working set-up says nothing


def test_tool_calls_in_a_folder_that_did_not_opt_in_start_no_python(
    setup: Setup, tmp_path: Path
) -> None:
    """The hook bridge hands each event to the plugins' running worker: every Python start in
    the turn is that worker's, whatever the hooks ran."""
    plain = plain_repository(tmp_path / "plain", setup.env)
    config = setup.home / ".config" / "cuecard"
    record, hooks = config / "dsh.json", config / "dsh-hooks.json"
    saved = {record: record.read_text(), hooks: hooks.read_text()}
    real = json.loads(saved[record])["python"]
    log, shim = tmp_path / "python-starts.log", tmp_path / "python"
    shim.write_text(  # every start of cuecard's Python, logged, then the real one
        f"#!/bin/sh\nprintf '%s\\n' \"$*\" >> {shlex.quote(str(log))}\n"
        f'exec {shlex.quote(real)} "$@"\n'
    )
    shim.chmod(0o755)
    record.write_text(json.dumps({**json.loads(saved[record]), "python": str(shim)}))
    hooks.write_text(saved[hooks].replace(json.dumps(real)[1:-1], str(shim)))
    assert str(shim) in hooks.read_text()  # the hooks' own fallback goes through the shim too
    adr = str(plain / "docs/adr/0001-provider.md")
    try:
        setup.turn("Look around.", [
            read(adr), Reply(tool_calls=[ToolCall("glob", {"pattern": "**/*.py"})]),
            bash("ls src"), Reply("Done."),
        ], cwd=plain)  # fmt: skip
    finally:
        for path, text in saved.items():
            path.write_text(text)
    points = [e["data"]["point"] for e in session_events(setup.home / ".dsh")
              if e["type"] == "hook/result"]  # fmt: skip
    assert points.count("PostToolUse") == 3, points  # the hooks ran after each tool call
    starts = log.read_text().splitlines()
    assert starts == ["-I -m cuecard.dsh_adapter serve"], starts  # the plugins' one worker


def test_a_refused_plugin_setting_leaves_the_host_and_the_plugin_running(
    setup: Setup, tmp_path: Path
) -> None:
    bad = tmp_path / "bad-setting.yml"
    bad.write_text("- id: cuecard-dsh-memory\n  config:\n    python: /usr/bin/python3\n")
    server = setup.turn("What does the vault hold?", [
        Reply(tool_calls=[ToolCall("memory_status", {})]), Reply("Done."),
    ], patches=(bad,))  # fmt: skip
    refused = [line for line in setup.stderr.splitlines() if "is refused" in line]
    assert refused == [
        'cuecard: cuecard-dsh-memory: setting `python: "/usr/bin/python3"` is refused '
        '(expected "default" | "uv312" but got "/usr/bin/python3"); using the default '
        '`"default"` (run `cuecard doctor` for the DSH set-up)'
    ], setup.stderr[-2000:]
    # the plugin runs with its default interpreter: the tool answers from the vault
    assert "layout" in server.main_requests[1].text(), server.main_requests[1].text()[-2000:]
    status = json.loads((setup.home / ".config" / "cuecard" / "dsh-status.json").read_text())
    assert "python" in status["last_failure"]["message"]  # what doctor and the panel show


def test_an_unreadable_recall_index_is_rebuilt_and_the_tools_answer(setup: Setup) -> None:
    status = json.loads(setup.cuecard("vault", "status", "--json"))
    index = Path(status["index"]["path"])
    index.write_bytes(b"overwritten, not a database" * 300)
    server = setup.turn("Search the vault.", [
        Reply(tool_calls=[ToolCall("memory_search", {"query": "payment provider"})]),
        Reply("Done."),
    ])  # fmt: skip
    answer = server.main_requests[1].text()
    assert "failed unexpectedly" not in answer, answer[-2000:]
    assert "<memory-data" in answer, answer[-2000:]
    rebuilt = [line for line in setup.stderr.splitlines() if "could not be read" in line]
    assert rebuilt == [
        f"cuecard: the recall index {index} could not be read (file is not a database); "
        f"rebuilding it from {setup.home / 'vault'}"
    ], setup.stderr[-2000:]
    assert "Traceback" not in setup.stderr
