"""Random payloads never make ``cuecard-hook`` fail or print anything but one JSON object."""

from __future__ import annotations

import io
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cuecard.hooks._hook import main, respond
from tests._support.cli import run_cli
from tests._support.hooks import run_hook

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
          "Stop", "Notification"]  # fmt: skip
HARNESSES = ["claude", "codex", "opencode", "grok"]
TOOLS = ["Edit", "MultiEdit", "Write", "Read", "Grep", "Glob", "Bash", "NotebookEdit", "Task",
         "apply_patch", "edit", "bash", "shell", "mcp__x__y", "", "LS"]  # fmt: skip
KEYS = ["file_path", "filePath", "path", "command", "content", "old_string", "new_string", "edits",
        "pattern", "glob", "notebook_path", "replace_all", "cmd", "patch"]  # fmt: skip
TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["src/billing/charge.py", "../../etc/passwd", "C:\\x\\y.py", "/abs/x",
                     "alembic downgrade -1", "cat <<EOF\nx\nEOF", "*** Add File: a.py\n+x",
                     "deploy", "big/file.txt", ".cuecard/inbox/p.json", "$(rm -rf /)"]),
)  # fmt: skip
LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), TEXT)
VALUE = st.recursive(LEAF, lambda c: st.lists(c, max_size=4) | st.dictionaries(TEXT, c, max_size=4),
                     max_leaves=12)  # fmt: skip


@st.composite
def payloads(draw: st.DrawFn, root: str) -> dict[str, Any]:
    args = draw(st.dictionaries(st.sampled_from(KEYS), VALUE, max_size=5) | VALUE)
    payload: dict[str, Any] = {
        "session_id": draw(st.sampled_from(["fuzz", "", "a/../b", "x" * 300])),
        "cwd": draw(st.sampled_from([root, root + "/src", "/", "relative", ""])),
        "tool_name": draw(st.sampled_from(TOOLS) | TEXT),
        "tool_input": args,
        "prompt": draw(TEXT),
        "source": draw(st.sampled_from(["startup", "resume", "clear", "compact", "x"])),
        "stop_hook_active": draw(st.booleans() | st.none()),
        "tool_response": draw(VALUE),
        "agent_id": draw(st.sampled_from(["", "agent-1", None])),
    }
    drop = draw(st.sets(st.sampled_from(sorted(payload))))
    return {k: v for k, v in payload.items() if k not in drop}


def call(harness: str, event: str, data: bytes) -> tuple[int, str]:
    stdin, stdout = sys.stdin, sys.stdout
    out = io.BytesIO()
    fake_in, fake_out = io.TextIOWrapper(io.BytesIO(data)), io.TextIOWrapper(out)
    sys.stdin, sys.stdout = fake_in, fake_out
    try:
        code = main([harness, event])
        fake_out.flush()
        text = out.getvalue().decode("utf-8")
    finally:
        sys.stdin, sys.stdout = stdin, stdout
        fake_in.detach()
        fake_out.detach()
    return code, text


def check(out: str) -> None:
    if out:
        assert out.endswith("\n")
        assert out.count("\n") == 1
        assert isinstance(json.loads(out), dict)


@pytest.fixture
def maintenance(repo: Path) -> Iterator[None]:
    """Today's maintenance, run for real before the in-process hooks: a SessionStart finds it
    not due and starts no detached ``cuecard maintain``, which this test process (living on,
    unlike a hook process) would otherwise leave running at its exit ("subprocess N is still
    running"). The spawn itself is tested through the real command
    (``test_session_start_maintain``)."""
    ran = run_cli("maintain", "--quiet", cwd=repo)
    assert ran.returncode == 0, ran.stderr
    claimed = repo / ".cuecard" / "local" / "maintain.spawn"
    assert not claimed.exists()
    yield
    assert not claimed.exists(), "a SessionStart here started maintenance"


@pytest.mark.usefixtures("maintenance")
def test_random_payloads_in_process(repo: Path) -> None:
    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(HARNESSES), st.sampled_from(EVENTS), payloads(str(repo)))
    def run(harness: str, event: str, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        check(respond(harness, event, data))  # no exception reaches main's safety net
        code, out = call(harness, event, data)
        assert code == 0
        check(out)

    run()


@pytest.mark.usefixtures("maintenance")
def test_random_bytes_in_process(repo: Path) -> None:
    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=200))
    def run(data: bytes) -> None:
        code, out = call("claude", "PreToolUse", data)
        assert code == 0
        check(out)

    run()


def test_random_payloads_through_the_real_command(repo: Path) -> None:
    rng = random.Random(4)
    for _ in range(6):
        payload = {
            "session_id": rng.choice(["fuzz-sub", ""]),
            "cwd": str(repo),
            "tool_name": rng.choice(TOOLS),
            "tool_input": {rng.choice(KEYS): rng.choice([None, 3, "src/billing/charge.py", [1]])},
        }
        result = run_hook(rng.choice(HARNESSES), rng.choice(EVENTS), payload, cwd=repo)
        assert result.returncode == 0
        assert result.stderr == b""
        check(result.stdout.decode())


# -- hostile project contents ---------------------------------------------------------------------
# What a teammate's commit (or anything writing .cuecard/local/) can put in the project: memory
# files, index files and config, evidence on devices, FIFOs and links. Each call runs the real
# command; the bound only tells a hang from an answer (the cost is tools/bench/hook.py's).

LIVENESS = 10
HOSTILE_REFS = [
    "/dev/zero",
    "../../../dev/zero",
    "hostile/pipe",
    "hostile/zero",
    "hostile/dev/zero",
    "hostile",
    "hostile/big.txt",
    "README.md#L1-L9",
    "x\x00y",
    "~/.ssh/id_rsa",
    "C:\\x",
]
GLOBS = [
    "*a*a*a*a*a*a*a*a*a*a*a*a*b",
    "hostile/**",
    "**/*.md",
    "[!",
    "[z-a]",
    "{a,{b,{c,d}}}",
    "**/**/**/**/x",
    "../x",
    "/abs",
    "?" * 150,
    "a/**/b/**/c/**/d",
]
SPECIAL = ["fifo", "link-dev-zero", "folder", "nested", "huge", "not-json", "array"]
WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)


@st.composite
def memory_files(draw: st.DrawFn) -> dict[str, Any] | str:
    if draw(st.booleans()):
        return draw(st.sampled_from(SPECIAL))
    trigger: dict[str, Any] = {
        "on": draw(st.lists(st.sampled_from(EVENT_KINDS), min_size=1, max_size=3, unique=True)),
        "paths": draw(st.lists(st.sampled_from(GLOBS) | WORDS, max_size=3)),
        "commands": draw(
            st.lists(st.sampled_from(["rm -rf build*", "r* x", "a && b"]) | WORDS, max_size=2)
        ),
        "keywords": draw(st.lists(WORDS, max_size=2)),
    }
    return {
        "schema_version": 1,
        "id": draw(st.sampled_from([HOSTILE_ID, "../../x", "", "x" * 500])),
        "topic": draw(st.sampled_from(["hostile/t", "Bad Topic"]) | WORDS),
        "kind": draw(st.sampled_from(["trap", "fact", "opinion"])),
        "status": "active",
        "title": draw(WORDS) or "t",
        "body": draw(WORDS) or "b",
        "not_derivable": "x",
        "triggers": [trigger],
        "origin": "user_explicit",
        "source": "fuzz",
        "created_at": "2026-11-01T00:00:00+00:00",
        "updated_at": "2026-11-01T00:00:00+00:00",
        "evidence": [
            {"kind": "file", "ref": r, "sha256": "0" * 64}
            for r in draw(st.lists(st.sampled_from(HOSTILE_REFS), max_size=3))
        ],
    }


HOSTILE_ID = "dddddddd-dddd-4ddd-8ddd-dddddddddddd"
EVENT_KINDS = ["prompt", "read", "edit", "write", "run", "search"]
INDEX_TAMPERING = ["none", "CURRENT", "meta.json", "memories.dat", "buckets.dat", "pkeys.json"]
TAMPER_WITH = ["fifo", "link-dev-zero", "bytes", "truncate", "../../x", "{}", "[]"]
CONFIGS = [
    "keep",
    "fifo",
    "link-dev-zero",
    "not-json",
    '{"delivery_limit": 1e308}',
    '{"delivery_limit": "x"}',
    '{"delivery_limit": -5}',
    "[]",
]


def _plant(path: Path, what: str, data: bytes = b"") -> None:
    """Replace ``path`` by something hostile."""
    import os
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if what == "fifo":
        os.mkfifo(path)
    elif what == "link-dev-zero":
        path.symlink_to("/dev/zero")
    elif what == "folder":
        path.mkdir()
    else:
        path.write_bytes(data)


def _hostile_project(root: Path, memories: list[dict[str, Any] | str], config: str) -> None:
    import os

    hostile = root / "hostile"
    hostile.mkdir(exist_ok=True)
    os.mkfifo(hostile / "pipe")
    (hostile / "zero").symlink_to("/dev/zero")
    (hostile / "dev").symlink_to("/dev")
    (hostile / "big.txt").write_bytes(b"x" * (5 * 1024 * 1024))
    folder = root / ".cuecard" / "memories"
    for n, memory in enumerate(memories):
        path = folder / f"{HOSTILE_ID[:-2]}{n:02d}.json"
        if isinstance(memory, dict):
            memory = {**memory, "id": memory["id"] if memory["id"] != HOSTILE_ID else path.stem}
            _plant(path, "bytes", json.dumps(memory).encode())
        elif memory in ("fifo", "link-dev-zero", "folder"):
            _plant(path, memory)
        else:
            data = {
                "nested": b"[" * 200_000,
                "huge": b'"' + b"a" * 400_000 + b'"',
                "not-json": b"\xff{",
                "array": b"[1, 2]",
            }[memory]
            _plant(path, "bytes", data)
    if config != "keep":
        path = root / ".cuecard" / "config.json"
        _plant(path, config if config in ("fifo", "link-dev-zero") else "bytes", config.encode())


def _tamper_index(root: Path, name: str, how: str, noise: bytes) -> None:
    base = root / ".cuecard" / "local" / "index"
    current = base / "CURRENT"
    if name == "none" or not current.is_file():
        return
    target = current if name == "CURRENT" else base / current.read_text().strip() / name
    if how in ("fifo", "link-dev-zero"):
        _plant(target, how)
    elif how == "truncate" and target.is_file():
        target.write_bytes(target.read_bytes()[: len(noise) % 64])
    else:
        _plant(target, "bytes", noise if how == "bytes" else how.encode())


def _harness_shaped(out: bytes, event: str) -> None:
    """At most one JSON object of the shapes Claude Code reads, never a permission decision."""
    if not out:
        return
    text = out.decode("utf-8")
    assert text.endswith("\n")
    assert text.count("\n") == 1
    answer = json.loads(text)
    assert isinstance(answer, dict)
    assert "permissionDecision" not in text
    assert set(answer) <= {"hookSpecificOutput", "systemMessage", "decision", "reason"}
    if "hookSpecificOutput" in answer:
        assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        assert answer["hookSpecificOutput"]["hookEventName"] == event
    if "decision" in answer:
        assert event == "Stop"
        assert answer["decision"] == "block"


CALLS = [
    ("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "hostile/notes.md"}}),
    (
        "PreToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": "hostile/pipe", "old_string": "a", "new_string": "b"},
        },
    ),
    (
        "PreToolUse",
        {"tool_name": "Write", "tool_input": {"file_path": "hostile/zero", "content": "x"}},
    ),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf build-old"}}),
    ("UserPromptSubmit", {"prompt": "what about the new migration."}),
    ("SessionStart", {"source": "startup"}),
    ("Stop", {"stop_hook_active": False}),
]


def test_hostile_project_contents_never_hang_or_break_the_hook(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import shutil
    import subprocess

    from tests._support.hooks import HOOK

    @settings(
        max_examples=12,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a hang is shown as found
    )
    @given(
        st.lists(memory_files(), max_size=3),
        st.sampled_from(CONFIGS),
        st.booleans(),
        st.sampled_from(INDEX_TAMPERING),
        st.sampled_from(TAMPER_WITH),
        st.binary(max_size=64),
        st.lists(st.sampled_from(CALLS), min_size=1, max_size=2),
    )
    def run(
        memories: list[dict[str, Any] | str],
        config: str,
        compiled: bool,
        name: str,
        how: str,
        noise: bytes,
        calls: list[tuple[str, dict[str, Any]]],
    ) -> None:
        root = tmp_path_factory.mktemp("hostile") / "repo"
        shutil.copytree(repo, root, symlinks=True)
        _hostile_project(root, memories, config)
        env = {k: v for k, v in os.environ.items() if k != "CUECARD_PROJECT_DIR"}
        if compiled:
            subprocess.run(
                [str(Path(HOOK).parent / "cuecard"), "compile"],
                cwd=root,
                capture_output=True,
                timeout=LIVENESS * 3,
                env=env,
            )
        _tamper_index(root, name, how, noise)
        for event, fields in calls:
            payload = {"session_id": "hostile", "cwd": str(root), **fields}
            done = subprocess.run(
                [HOOK, "claude", event],
                input=json.dumps(payload).encode(),
                capture_output=True,
                cwd=root,
                env=env,
                timeout=LIVENESS,
            )
            assert done.returncode == 0
            _harness_shaped(done.stdout, event)
        shutil.rmtree(root.parent, ignore_errors=True)

    run()
