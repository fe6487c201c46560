"""Project memories in DSH through its Claude Code hook bridge: config, patch rows, the shim."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from cuecard.dsh_adapter import DshAdapterError
from cuecard.dsh_adapter._hookbridge import (
    PATCH_BEGIN,
    hook_command,
    hooks_config,
    merge,
    own_prompt,
    patch_rows,
    put_patch_rows,
    translate,
)
from tests._support.cli import run_cli
from tests._support.dsh import dsh
from tests._support.project import add_migration_trap

DSH_DEFAULT = "# Your patch layer for this dsh profile\n# comments\n[]\n"


@pytest.mark.parametrize(
    ("args", "tool", "mapped"),
    [
        ({"command": "view", "path": "a.py"}, "read", {"file_path": "a.py"}),
        (
            {"command": "create", "path": "n.py", "file_text": "x"},
            "write",
            {"file_path": "n.py", "content": "x"},
        ),
        (
            {"command": "str_replace", "path": "a.py", "old_str": "o", "new_str": "n"},
            "edit",
            {"file_path": "a.py", "old_string": "o", "new_string": "n"},
        ),
        (
            {"command": "insert", "path": "a.py", "insert_line": 3, "new_str": "n"},
            "edit",
            {"file_path": "a.py", "old_string": "", "new_string": "n"},
        ),
    ],
)
def test_str_replace_editor_becomes_read_write_or_edit(
    args: dict[str, object], tool: str, mapped: dict[str, object]
) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "str_replace_editor",
        "tool_input": args,
    }
    out = translate(payload)
    assert (out["tool_name"], out["tool_input"]) == (tool, mapped)
    assert payload["tool_name"] == "str_replace_editor"  # the input is not changed
    assert translate({"tool_name": "bash", "tool_input": {"command": "ls"}})["tool_name"] == "bash"


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("<path>a.py</path>\n<type>file</type>\n<content>\nCreated file\n</content>", "create"),
        ("<path>a.py</path>\n<type>file</type>\n<content>\nUpdated file\n</content>", "update"),
        ("Error: permission denied", None),
    ],
)
def test_a_write_result_says_whether_the_file_was_new(text: str, shape: str | None) -> None:
    payload = {"tool_name": "write", "tool_input": {"file_path": "a.py"}, "tool_response": text}
    response = translate(payload)["tool_response"]
    if shape is None:
        assert response == text
    else:
        assert response == {"type": shape, "text": text}


def test_hooks_config_anchors_matchers_and_runs_nothing_at_pre_tool_use() -> None:
    # the discipline plugin gives a prompt's memories itself: the bridge does only without it
    assert set(hooks_config(Path("/p"))["hooks"]) == {"SessionStart", "PostToolUse", "Stop"}
    config = hooks_config(Path("/opt/my env/bin/python"), prompt=True)
    hooks = config["hooks"]
    # the bridge drops PreToolUse context: a delivery there would be claimed and lost
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    for event, [group] in hooks.items():
        assert group["hooks"] == [
            {"type": "command", "command": hook_command(Path("/opt/my env/bin/python"), event),
             "timeout": 30}
        ]  # fmt: skip
        # where no worker listens: the adapter itself, isolated, the path quoted
        fallback = f"'/opt/my env/bin/python' -I -m cuecard.dsh_adapter hook {event}"
        assert group["hooks"][0]["command"].endswith(f"exec {fallback}")
    [after] = hooks["PostToolUse"]
    for name in ("read", "write", "edit", "bash", "grep", "glob", "str_replace_editor"):
        assert re.search(after["matcher"], name)
    for name in ("Read", "readme", "str_replace_editor2", "subagent"):
        assert not re.search(after["matcher"], name)


class _Listener:
    """A loopback listener in the worker's place: records one request, answers ``reply``."""

    def __init__(self, folder: Path, secret: str, reply: bytes) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.file = folder / "1.hook"
        self.file.write_text(f"{self.sock.getsockname()[1]} {secret}\n")
        self.got = b""
        self.thread = threading.Thread(target=self._serve, args=(reply,), daemon=True)
        self.thread.start()

    def _serve(self, reply: bytes) -> None:
        with self.sock, self.sock.accept()[0] as conn:
            while self.got.count(b"\n") < 2:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                self.got += chunk
            conn.sendall(reply)


def _bash(command: str, stdin: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], input=stdin, text=True, capture_output=True,
                          env={**os.environ, **env}, timeout=60, check=False)  # fmt: skip


def test_the_hook_command_hands_the_event_to_the_worker_with_bash_alone(tmp_path: Path) -> None:
    payload = json.dumps({"session_id": "s", "prompt": "é </memory-data> $(x) `y`"}) + "\n"
    listener = _Listener(tmp_path, "c0ffee", b'{"hookSpecificOutput": {}}\n')
    python = tmp_path / "no-python-here"  # the fallback would fail loudly
    done = _bash(hook_command(python, "UserPromptSubmit"), payload,
                 CUECARD_DSH_HOOK=str(listener.file))  # fmt: skip
    listener.thread.join(30)
    assert (done.returncode, done.stdout) == (0, '{"hookSpecificOutput": {}}\n')
    assert listener.got.decode().startswith(f"c0ffee UserPromptSubmit\n{payload}")


def test_without_a_worker_the_hook_command_runs_the_adapter(tmp_path: Path) -> None:
    log = tmp_path / "ran"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$*" >> {log}\ncat >> {log}\n')
    python.chmod(0o755)
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there any more
    stale = tmp_path / "stale.hook"
    stale.write_text(f"{port} secret\n")
    for env in ({}, {"CUECARD_DSH_HOOK": str(stale)}, {"CUECARD_DSH_HOOK": str(tmp_path / "x")}):
        log.unlink(missing_ok=True)
        done = _bash(hook_command(python, "Stop"), '{"a": 1}\n', **env)
        assert done.returncode == 0, done.stderr
        assert log.read_text() == '-I -m cuecard.dsh_adapter hook Stop\n{"a": 1}\n', env


def test_patch_rows_replace_the_empty_list_and_are_idempotent() -> None:
    rows = patch_rows(Path("/cfg/dsh-hooks.json"))
    once = put_patch_rows(DSH_DEFAULT, rows)
    assert "[]" not in once
    assert once.startswith("# Your patch layer")
    assert '        configPath: "/cfg/dsh-hooks.json"' in once
    assert put_patch_rows(once, rows) == once
    other = "- id: hmr\n  disabled: false\n"
    merged = put_patch_rows(other, rows)
    assert merged.startswith(other)
    assert merged.count(PATCH_BEGIN) == 1
    with pytest.raises(DshAdapterError, match="flow-style"):
        put_patch_rows("[{id: x}]\n", rows)


def test_after_a_tool_call_the_shim_delivers_its_memories_as_post_tool_use_context(
    project: Path,
) -> None:
    add_migration_trap(project)
    payload = {
        "session_id": "session-1",
        "transcript_path": "/nowhere",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "str_replace_editor",
        "tool_input": {
            "command": "str_replace",
            "path": str(project / "migrations" / "0001.sql"),
            "old_str": "int",
            "new_str": "bigint",
        },
        "tool_use_id": "call-1",
        "tool_response": "The file was edited.",
    }
    # PreToolUse: nothing runs, nothing is printed, nothing is recorded as delivered
    pre = dsh("hook", "PreToolUse", stdin=json.dumps({**payload, "hook_event_name": "PreToolUse"}))
    assert (pre.returncode, pre.stdout) == (0, "")
    done = dsh("hook", "PostToolUse", stdin=json.dumps(payload), cwd=project)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    context = answer["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUse"  # the bridge keeps only the firing event's
    assert "Applied migrations are immutable" in context["additionalContext"]
    assert context["additionalContext"].startswith("<memory-data")
    # once per epoch: the same call again delivers nothing more
    again = dsh("hook", "PostToolUse", stdin=json.dumps(payload), cwd=project)
    assert "Applied migrations are immutable" not in again.stdout
    assert dsh("hook", "PostToolUse", stdin="{not json", cwd=project).stdout == ""


@pytest.mark.parametrize(
    ("response", "args", "code"),
    [
        ("(no output)\n[exit code: 1]", {}, 1),
        ("out\n[stderr]\nboom\n[exit code: 127]\n", {}, 127),
        ("(no output)", {}, 0),
        ("ok\nprinted [exit code: 3] itself\n", {}, 0),  # only DSH's last-line marker counts
        ("partial\n[timed out after 1000ms]", {}, None),
        ("partial\n[killed by signal: SIGTERM]", {}, None),
        ("x\n[sandbox: file access denied under workspace-write mode]", {}, None),
        ("Error: invalid command: expected a non-empty string", {}, None),
        ("job-1 started", {"run_in_background": True}, None),
        ({"stdout": "?"}, {}, None),
    ],
)
def test_a_bash_result_gives_its_exit_code_as_dsh_marks_it(
    response: object, args: dict[str, object], code: int | None
) -> None:
    payload = {"tool_name": "bash", "tool_input": {"command": "x", **args},
               "tool_response": response}  # fmt: skip
    assert translate(payload).get("exit_code") == code
    assert "exit_code" not in translate({**payload, "tool_name": "read"})
    # the tool's own code, which the plugins add from the bash call's value, wins over the text
    assert translate({**payload, "exit_code": 0})["exit_code"] == 0


def test_a_prompt_of_only_handed_contexts_is_cuecards_own() -> None:
    memory, reply = "<memory-data>a</memory-data>\nadvice", "cuecard: stored"
    assert own_prompt(memory, [memory])
    assert own_prompt(f"{memory}\n{reply}\n", [memory, reply])
    assert not own_prompt(f"{memory}\nno, use the other table", [memory])
    assert not own_prompt("deploy it", [memory])
    assert not own_prompt("", [memory])
    assert not own_prompt(memory, [])


def test_a_step_that_claims_only_what_post_tool_use_handed_dsh_is_no_prompt(
    project: Path,
) -> None:
    """DSH turns a PostToolUse context into a message and runs UserPromptSubmit on it: the shim
    hands that text to no one, so cuecard's turn goes on; a real prompt still goes through."""
    target = add_migration_trap(project)
    base = {"session_id": "session-p", "cwd": str(project)}
    edit = {**base, "hook_event_name": "PostToolUse", "tool_name": "edit",
            "tool_input": {"file_path": str(target), "old_string": "int", "new_string": "bigint"},
            "tool_response": "The file has been updated successfully."}  # fmt: skip
    done = dsh("hook", "PostToolUse", stdin=json.dumps(edit), cwd=project)
    handed = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]

    def prompt(text: str) -> str:
        body = {**base, "hook_event_name": "UserPromptSubmit", "prompt": text}
        answer = dsh("hook", "UserPromptSubmit", stdin=json.dumps(body), cwd=project)
        assert answer.returncode == 0, answer.stderr
        return answer.stdout

    assert prompt(handed) == ""
    footprint = next((project / ".cuecard" / "local" / "sessions").glob("*/footprint.jsonl"))
    events = [json.loads(line)["e"] for line in footprint.read_text().splitlines()]
    assert events == ["tool"]  # no prompt started a new turn
    assert prompt(handed) == ""  # once claimed, the same text is forwarded as a prompt
    assert [json.loads(line)["e"] for line in footprint.read_text().splitlines()][-1] == "prompt"


def test_merge_keeps_each_context_in_order_under_post_tool_use() -> None:
    def answer(event: str, text: str) -> str:
        return json.dumps({"hookSpecificOutput": {"hookEventName": event,
                                                  "additionalContext": text}})  # fmt: skip

    merged = merge(answer("PreToolUse", "memory"), "", "{bad", answer("PostToolUse", "ingested"))
    assert merged == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "memory\n\ningested",
        }
    }
    assert merge("", json.dumps({"systemMessage": "x"})) is None


def test_the_bridge_commands_never_import_from_the_repository(project: Path) -> None:
    """The bridge runs its commands through a shell in the session folder: a repository holding
    ``cuecard/dsh_adapter/__main__.py`` must not run instead of cuecard (isolated mode)."""
    import os
    import subprocess
    import sys

    marker = project / "PWNED"
    evil = f"open({str(marker)!r}, 'a').write('ran')\nprint('PWNED')\n"
    (project / "cuecard" / "dsh_adapter").mkdir(parents=True)
    (project / "cuecard" / "dsh_adapter" / "__init__.py").write_text(evil)
    (project / "cuecard" / "dsh_adapter" / "__main__.py").write_text(evil)
    (project / "sitecustomize.py").write_text(evil)
    config = hooks_config(Path(sys.executable), prompt=True)
    commands = {
        hook["command"]
        for groups in config["hooks"].values()
        for group in groups
        for hook in group["hooks"]
    }
    assert any("cuecard.dsh_adapter" in command for command in commands)
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "str_replace_editor",
        "tool_input": {"command": "view", "path": "a"},
    }
    for command in commands:
        assert f"{sys.executable} -I " in command
        done = subprocess.run(
            ["bash", "-c", command], cwd=project, input=json.dumps(payload), capture_output=True,
            text=True, timeout=60, check=False,
            # the session's home: without HOME the hooks would fall back to the real one
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": ".", "HOME": os.environ["HOME"]},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "PWNED" not in done.stdout
    assert not marker.exists()


def test_a_write_memory_reaches_the_model_when_the_write_tool_created_the_file(
    project: Path,
) -> None:
    """The shim asks for the tool's memories after the tool ran, when the file exists: DSH's
    ``Created file`` still makes the call a write (``Updated file`` an edit)."""
    added = run_cli(
        "add", "--topic", "docs/notes", "--kind", "procedure", "--title", "New notes",
        "--body", "Every new note is listed in notes/INDEX.md.",
        "--not-derivable", "a team habit", "--on", "write", "--paths", "notes/**",
        cwd=project,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    (project / "notes").mkdir()

    def write(name: str, result: str, session: str) -> str:
        path = project / "notes" / name
        path.write_text("hello\n")  # the tool ran before PostToolUse
        envelope = f"<path>{path}</path>\n<type>file</type>\n<content>\n{result}\n</content>"
        payload = {
            "session_id": session,
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "write",
            "tool_input": {"file_path": str(path), "content": "hello\n"},
            "tool_response": envelope,
        }
        done = dsh("hook", "PostToolUse", stdin=json.dumps(payload), cwd=project)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "Every new note is listed" in write("a.md", "Created file", "session-w1")
    assert "Every new note is listed" not in write("b.md", "Updated file", "session-w2")
