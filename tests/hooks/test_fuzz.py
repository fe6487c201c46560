"""Random payloads never make ``cuecard-hook`` fail or print anything but one JSON object."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuecard.hooks._hook import main, respond
from tests.hooks.conftest import run_hook

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
        assert out.endswith("\n") and out.count("\n") == 1
        assert isinstance(json.loads(out), dict)


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
        assert result.returncode == 0 and result.stderr == b""
        check(result.stdout.decode())
