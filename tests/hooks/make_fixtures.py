"""Regenerate ``fixtures/``: the payloads below, each run through the hook, stdout recorded.

    .venv/bin/python -m tests.hooks.make_fixtures

These are documented shapes and hostile inputs; what Claude Code and Codex really send is
recorded by ``tests/e2e/record_fixtures.py`` (``real-*.json``), which this script leaves alone.
Review ``git diff tests/hooks/fixtures`` before committing: a changed ``stdout`` must be a change
you meant (the delivery format, a new memory in ``conftest.MEMORIES``), never a regression.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests._support.hooks import FIXTURES, build_repo, play

OUT = FIXTURES
R = "$ROOT"


def base(ev: str, **kw: Any) -> dict[str, Any]:
    return {
        "session_id": "$SESSION",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": R,
        "hook_event_name": ev,
        **kw,
    }


def pre(tool: str, args: object, **kw: Any) -> dict[str, Any]:
    return base("PreToolUse", tool_name=tool, tool_input=args, tool_use_id="toolu_x", **kw)


def post(
    tool: str, args: object, response: object, ev: str = "PostToolUse", **kw: Any
) -> dict[str, Any]:
    return base(
        ev, tool_name=tool, tool_input=args, tool_response=response, tool_use_id="toolu_x", **kw
    )


def prompt(text: str) -> dict[str, Any]:
    return base("UserPromptSubmit", prompt=text, permission_mode="default")


EDIT = {
    "file_path": f"{R}/src/billing/charge.py",
    "old_string": "order.total",
    "new_string": "order.total, key=order.key",
}
FAIL = base(
    "PostToolUseFailure",
    tool_name="Bash",
    tool_input={"command": "pytest -q tests"},
    error="1 failed",
    tool_use_id="t1",
)
OK = post(
    "Bash",
    {"command": "pytest -q tests"},
    {"stdout": "3 passed", "stderr": "", "interrupted": False, "isImage": False},
)
FIXED = post("Edit", EDIT, {"filePath": f"{R}/src/billing/charge.py"})
STOP = base("Stop", stop_hook_active=False)

CASES: dict[str, dict[str, dict[str, Any]]] = {
    "claude": {},
    "codex": {},
    "opencode": {},
    "grok": {},
}
c = CASES["claude"]
c["session-start-startup"] = dict(
    event="SessionStart",
    about="startup: one line for the person, nothing for the model",
    payload=base("SessionStart", source="startup"),
)
c["session-start-resume"] = dict(
    event="SessionStart",
    about="resume: the same line; the epoch stays",
    payload=base("SessionStart", source="resume"),
)
c["session-start-clear"] = dict(
    event="SessionStart",
    about="clear: a new epoch, and the line",
    payload=base("SessionStart", source="clear"),
)
c["session-start-compact"] = dict(
    event="SessionStart",
    about="compact: a new epoch and no line",
    payload=base("SessionStart", source="compact"),
)
c["prompt-keyword"] = dict(
    event="UserPromptSubmit",
    about="a prompt keyword fires a memory",
    payload=prompt("Please deploy the fix to staging."),
)
c["prompt-nothing"] = dict(
    event="UserPromptSubmit",
    about="a prompt that matches nothing",
    payload=prompt("Rename the variable x to count."),
)
c["prompt-missing-fields"] = dict(
    event="UserPromptSubmit",
    about="no session, no prompt",
    payload={"cwd": R, "hook_event_name": "UserPromptSubmit"},
)
c["prompt-no-session"] = dict(
    event="UserPromptSubmit",
    about="no session id: delivered, nothing claimed",
    payload={"cwd": R, "prompt": "deploy now"},
)
c["pre-edit-absolute"] = dict(
    event="PreToolUse", about="Edit with an absolute path", payload=pre("Edit", EDIT)
)
c["pre-edit-relative"] = dict(
    event="PreToolUse",
    about="Edit with a relative path",
    payload=pre("Edit", {**EDIT, "file_path": "src/billing/charge.py"}),
)
c["pre-edit-windows-relative"] = dict(
    event="PreToolUse",
    about="Edit with a Windows-style relative path",
    payload=pre("Edit", {**EDIT, "file_path": "src\\billing\\charge.py"}),
)
c["pre-edit-windows-absolute"] = dict(
    event="PreToolUse",
    about="a Windows drive path is outside a POSIX repository",
    payload=pre("Edit", {**EDIT, "file_path": "C:\\Users\\dev\\repo\\src\\billing\\charge.py"}),
)
c["pre-edit-outside"] = dict(
    event="PreToolUse",
    about="a file outside the repository",
    payload=pre("Edit", {**EDIT, "file_path": "/etc/hosts"}),
)
c["pre-edit-dotdot"] = dict(
    event="PreToolUse",
    about="../ leaves the repository",
    payload=pre("Edit", {**EDIT, "file_path": "src/../../outside/billing/charge.py"}),
)
c["pre-multiedit"] = dict(
    event="PreToolUse",
    about="MultiEdit",
    payload=pre(
        "MultiEdit",
        {
            "file_path": f"{R}/src/billing/charge.py",
            "edits": [
                {"old_string": "order", "new_string": "o", "replace_all": True},
                {"old_string": "provider", "new_string": "gateway"},
            ],
        },
    ),
)
c["pre-write-new"] = dict(
    event="PreToolUse",
    about="a Write that creates a file is a write",
    payload=pre(
        "Write",
        {"file_path": f"{R}/src/billing/refund.py", "content": "def refund(order):\n    pass\n"},
    ),
)
c["pre-write-existing"] = dict(
    event="PreToolUse",
    about="a Write over an existing file is an edit",
    payload=pre(
        "Write",
        {"file_path": f"{R}/src/billing/charge.py", "content": "def charge(order):\n    pass\n"},
    ),
)
c["pre-notebookedit"] = dict(
    event="PreToolUse",
    about="NotebookEdit",
    payload=pre(
        "NotebookEdit",
        {
            "notebook_path": f"{R}/notebooks/report.ipynb",
            "cell_id": "c1",
            "new_source": "df.head()",
            "cell_type": "code",
            "edit_mode": "replace",
        },
    ),
)
c["pre-read"] = dict(
    event="PreToolUse",
    about="Read",
    payload=pre("Read", {"file_path": f"{R}/docs/adr/0001-provider.md"}),
)
c["pre-read-other"] = dict(
    event="PreToolUse",
    about="a Read no memory concerns",
    payload=pre("Read", {"file_path": f"{R}/src/billing/charge.py"}),
)
c["pre-grep-symbol"] = dict(
    event="PreToolUse",
    about="Grep for an identifier",
    payload=pre("Grep", {"pattern": "charge_customer", "output_mode": "files_with_matches"}),
)
c["pre-grep-folder"] = dict(
    event="PreToolUse",
    about="Grep in a folder",
    payload=pre("Grep", {"pattern": "revision", "path": f"{R}/migrations/versions"}),
)
c["pre-glob"] = dict(
    event="PreToolUse",
    about="Glob: the pattern's literal folder is searched",
    payload=pre("Glob", {"pattern": "migrations/versions/*.py"}),
)
c["pre-bash-read"] = dict(
    event="PreToolUse",
    about="a shell read is a read event",
    payload=pre(
        "Bash",
        {"command": "cat docs/adr/0001-provider.md | head -5", "description": "Show the ADR"},
    ),
)
c["pre-bash-run"] = dict(
    event="PreToolUse",
    about="a shell command that may change something is a run",
    payload=pre("Bash", {"command": "alembic downgrade -1", "description": "Roll back"}),
)
c["pre-bash-heredoc-run"] = dict(
    event="PreToolUse",
    about="a heredoc fed to the command",
    payload=pre("Bash", {"command": "alembic downgrade base <<'EOF'\ny\nEOF"}),
)
c["pre-bash-heredoc-data"] = dict(
    event="PreToolUse",
    about="a heredoc body is data, not a command",
    payload=pre("Bash", {"command": "cat > notes.txt <<'EOF'\nalembic downgrade -1\nEOF"}),
)
c["pre-bash-cd"] = dict(
    event="PreToolUse",
    about="cd applies to the paths after it",
    payload=pre("Bash", {"command": "cd docs/adr && less 0001-provider.md"}),
)
c["pre-edit-check"] = dict(
    event="PreToolUse",
    about="an edit check reports the violation the edit introduces",
    payload=pre(
        "Edit",
        {
            "file_path": f"{R}/scripts/tool.py",
            "old_string": "x = 1",
            "new_string": "x = 1\nprint(x)",
        },
    ),
)
c["pre-edit-check-preexisting"] = dict(
    event="PreToolUse",
    about="a violation already in the file is not reported",
    payload=pre(
        "Edit", {"file_path": f"{R}/scripts/old.py", "old_string": "x = 1", "new_string": "x = 2"}
    ),
)
c["pre-write-huge"] = dict(
    event="PreToolUse",
    about="a 3 MB Write",
    payload=pre(
        "Write",
        {
            "file_path": f"{R}/src/billing/huge.py",
            "content": {"$repeat": ["# filler line\n", 230000]},
        },
    ),
)
c["pre-big-deferred"] = dict(
    event="PreToolUse",
    about="what does not fit waits for its next event",
    payload=pre("Read", {"file_path": f"{R}/big/file.txt"}),
)
c["pre-task"] = dict(
    event="PreToolUse",
    about="Task (launching a subagent) makes no event",
    payload=pre(
        "Task",
        {
            "description": "Explore billing",
            "prompt": "Find every caller of charge()",
            "subagent_type": "Explore",
        },
    ),
)
c["pre-subagent"] = dict(
    event="PreToolUse",
    about="a subagent (agent_id) has its own ledger",
    setup=[["PreToolUse", pre("Edit", EDIT)]],
    payload=pre("Edit", EDIT, agent_id="agent-7f3a", agent_type="Explore"),
)
c["pre-same-epoch"] = dict(
    event="PreToolUse",
    about="a memory arrives once per epoch",
    setup=[["PreToolUse", pre("Edit", EDIT)]],
    payload=pre("Edit", EDIT),
)
c["pre-after-compact"] = dict(
    event="PreToolUse",
    about="a compaction starts a new epoch",
    setup=[
        ["PreToolUse", pre("Edit", EDIT)],
        ["SessionStart", base("SessionStart", source="compact")],
    ],
    payload=pre("Edit", EDIT),
)
c["pre-mcp-tool"] = dict(
    event="PreToolUse",
    about="an MCP tool makes no event",
    payload=pre("mcp__github__create_issue", {"title": "x"}),
)
c["pre-bad-input"] = dict(
    event="PreToolUse",
    about="tool_input of the wrong type",
    payload=pre("Edit", "src/billing/charge.py"),
)
c["pre-missing-input"] = dict(
    event="PreToolUse", about="no tool_input", payload=base("PreToolUse", tool_name="Edit")
)
c["post-edit"] = dict(
    event="PostToolUse",
    about="PostToolUse records the footprint and says nothing",
    payload=post("Edit", EDIT, {"filePath": f"{R}/src/billing/charge.py"}),
)
c["post-failure"] = dict(
    event="PostToolUseFailure", about="a failed tool call is recorded", payload=FAIL
)
c["post-inbox-refused"] = dict(
    event="PostToolUse",
    about="a proposal written to the inbox is ingested at once",
    files={".cuecard/inbox/bad.json": '{"topic": "x", "kind": "trap"}\n'},
    payload=post(
        "Write",
        {
            "file_path": f"{R}/.cuecard/inbox/bad.json",
            "content": '{"topic": "x", "kind": "trap"}\n',
        },
        {"type": "create", "filePath": f"{R}/.cuecard/inbox/bad.json"},
    ),
)
c["stop-no-evidence"] = dict(
    event="Stop",
    about="a turn without evidence: nothing",
    setup=[
        ["UserPromptSubmit", prompt("Tidy the charge code")],
        ["PostToolUse", FIXED],
        ["PostToolUse", OK],
    ],
    payload=STOP,
)
c["stop-failure-then-fix"] = dict(
    event="Stop",
    about="a failure followed by a fix: Stop asks for a memory",
    setup=[
        ["UserPromptSubmit", prompt("Fix the charge tests")],
        ["PostToolUseFailure", FAIL],
        ["PostToolUse", FIXED],
        ["PostToolUse", OK],
    ],
    payload=STOP,
)
c["stop-failure-no-fix"] = dict(
    event="Stop",
    about="a failure never fixed is not evidence",
    setup=[
        ["UserPromptSubmit", prompt("Fix the charge tests")],
        ["PostToolUseFailure", FAIL],
        ["PostToolUse", FIXED],
    ],
    payload=STOP,
)
c["stop-correction"] = dict(
    event="Stop",
    about="a user correction after the agent acted",
    setup=[
        ["UserPromptSubmit", prompt("Add retries to charge")],
        ["PostToolUse", FIXED],
        [
            "UserPromptSubmit",
            prompt("No, that's wrong: keep the key from the order, I told you before."),
        ],
        ["PostToolUse", FIXED],
    ],
    payload=STOP,
)
c["stop-hook-active"] = dict(
    event="Stop",
    about="never ask while stop_hook_active",
    setup=[
        ["UserPromptSubmit", prompt("Fix the charge tests")],
        ["PostToolUseFailure", FAIL],
        ["PostToolUse", FIXED],
        ["PostToolUse", OK],
    ],
    payload={**STOP, "stop_hook_active": True},
)
c["stop-asked-once"] = dict(
    event="Stop",
    about="once per evidence set",
    setup=[
        ["UserPromptSubmit", prompt("Fix the charge tests")],
        ["PostToolUseFailure", FAIL],
        ["PostToolUse", FIXED],
        ["PostToolUse", OK],
        ["Stop", STOP],
    ],
    payload=STOP,
)
c["stop-turn-check"] = dict(
    event="Stop",
    about="turn checks run at Stop over the files the turn changed",
    files={"config/settings.py": "DEBUG = True\n"},
    setup=[
        ["UserPromptSubmit", prompt("Turn on debugging")],
        [
            "PostToolUse",
            post(
                "Edit",
                {
                    "file_path": f"{R}/config/settings.py",
                    "old_string": "False",
                    "new_string": "True",
                },
                {"filePath": "config/settings.py"},
            ),
        ],
    ],
    payload=STOP,
)
c["invalid-json"] = dict(
    event="PreToolUse", about="invalid JSON: silent", raw='{"session_id": "s", "tool_name": '
)
c["empty-stdin"] = dict(event="PreToolUse", about="empty stdin: silent", raw="")
c["array-payload"] = dict(event="PreToolUse", about="a JSON array: silent", raw="[1, 2, 3]")
c["not-opted-in"] = dict(
    event="PreToolUse",
    about="a project that did not opt in: silent",
    payload={
        **pre("Edit", {**EDIT, "file_path": "$OUTSIDE/src/billing/charge.py"}),
        "cwd": "$OUTSIDE",
    },
)
c["unknown-event"] = dict(
    event="Notification",
    about="an event cuecard does not handle",
    payload=base("Notification", message="hi"),
)

x = CASES["codex"]


def cbase(ev: str, **kw: Any) -> dict[str, Any]:
    return {
        "session_id": "$SESSION",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": R,
        "hook_event_name": ev,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        **kw,
    }


PATCH_UPDATE = (
    "*** Begin Patch\n*** Update File: src/billing/charge.py\n@@\n"
    "-    return provider.charge(order.total)\n"
    "+    return provider.charge(order.total, key=order.key)\n*** End Patch\n"
)
PATCH_ADD = (
    f"*** Begin Patch\n*** Add File: {R}/src/billing/refund.py\n"
    "+def refund(order):\n+    pass\n*** End Patch\n"
)
PATCH_PRINT = (
    "*** Begin Patch\n*** Add File: scripts/report.py\n+rows = load()\n+print(rows)\n"
    "*** Update File: docs/adr/0001-provider.md\n@@\n+more\n*** End Patch\n"
)
CFAIL = cbase(
    "PostToolUse",
    tool_name="Bash",
    tool_input={"command": "pytest -q"},
    tool_response="Process exited with code 1\nFinal output:\n1 failed",
    tool_use_id="c1",
)
COK = cbase(
    "PostToolUse",
    tool_name="Bash",
    tool_input={"command": "pytest -q"},
    tool_response="Process exited with code 0\nFinal output:\n3 passed",
    tool_use_id="c3",
)
CFIX = cbase(
    "PostToolUse",
    tool_name="apply_patch",
    tool_input={"command": PATCH_UPDATE},
    tool_response="Success. Updated the following files:\nM src/billing/charge.py",
    tool_use_id="c2",
)
x["session-start-startup"] = dict(
    event="SessionStart", about="startup", payload=cbase("SessionStart", source="startup")
)
x["session-start-clear"] = dict(
    event="SessionStart",
    about="clear starts a new epoch",
    payload=cbase("SessionStart", source="clear"),
)
x["prompt-keyword"] = dict(
    event="UserPromptSubmit",
    about="a prompt keyword",
    payload=cbase("UserPromptSubmit", prompt="deploy it"),
)
x["pre-bash-run"] = dict(
    event="PreToolUse",
    about="the shell tool is classified like Bash",
    payload=cbase(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "alembic downgrade -1"},
        tool_use_id="c1",
    ),
)
x["pre-bash-read"] = dict(
    event="PreToolUse",
    about="a shell read",
    payload=cbase(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "sed -n 1,20p docs/adr/0001-provider.md"},
        tool_use_id="c1",
    ),
)
x["pre-shell-argv"] = dict(
    event="PreToolUse",
    about="an argv-style shell command",
    payload=cbase(
        "PreToolUse",
        tool_name="shell",
        tool_input={"command": ["bash", "-lc", "alembic downgrade -1"]},
        tool_use_id="c1",
    ),
)
x["pre-apply-patch-update"] = dict(
    event="PreToolUse",
    about="apply_patch headers name the edited files",
    payload=cbase(
        "PreToolUse",
        tool_name="apply_patch",
        tool_input={"command": PATCH_UPDATE},
        tool_use_id="c1",
    ),
)
x["pre-apply-patch-add-absolute"] = dict(
    event="PreToolUse",
    about="an added file (absolute path) is a write",
    payload=cbase(
        "PreToolUse", tool_name="apply_patch", tool_input={"command": PATCH_ADD}, tool_use_id="c1"
    ),
)
x["pre-apply-patch-check"] = dict(
    event="PreToolUse",
    about="an added file's content is judged by edit checks",
    payload=cbase(
        "PreToolUse", tool_name="apply_patch", tool_input={"command": PATCH_PRINT}, tool_use_id="c1"
    ),
)
x["pre-subagent"] = dict(
    event="PreToolUse",
    about="a subagent has its own ledger",
    setup=[
        [
            "PreToolUse",
            cbase(
                "PreToolUse",
                tool_name="Bash",
                tool_input={"command": "alembic downgrade -1"},
                tool_use_id="c0",
            ),
        ]
    ],
    payload=cbase(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "alembic downgrade -1"},
        tool_use_id="c1",
        agent_id="thread-2",
        agent_type="worker",
    ),
)
x["post-bash"] = dict(
    event="PostToolUse",
    about="a string tool_response with an exit code"
    " (documented shape: Codex 0.171.0 sends no exit status at PostToolUse; see real-*)",
    payload=CFAIL,
)
x["stop-failure-then-fix"] = dict(
    event="Stop",
    about="Stop answers with a block"
    " (documented shape: Codex 0.171.0 sends no exit status at PostToolUse; see real-*)",
    setup=[
        ["UserPromptSubmit", cbase("UserPromptSubmit", prompt="make the tests pass")],
        ["PostToolUse", CFAIL],
        ["PostToolUse", CFIX],
        ["PostToolUse", COK],
    ],
    payload=cbase("Stop", stop_hook_active=False, last_assistant_message="Done."),
)
x["stop-hook-active"] = dict(
    event="Stop",
    about="never while stop_hook_active"
    " (documented shape: Codex 0.171.0 sends no exit status at PostToolUse; see real-*)",
    setup=[
        ["UserPromptSubmit", cbase("UserPromptSubmit", prompt="make the tests pass")],
        ["PostToolUse", CFAIL],
        ["PostToolUse", CFIX],
        ["PostToolUse", COK],
    ],
    payload=cbase("Stop", stop_hook_active=True, last_assistant_message="Done."),
)
BAD = '{"topic": "x", "kind": "trap"}\n'
PATCH_INBOX = (
    "*** Begin Patch\n*** Add File: .cuecard/inbox/codex-bad.json\n"
    '+{"topic": "x", "kind": "trap"}\n*** End Patch\n'
)
x["post-apply-patch-inbox"] = dict(
    event="PostToolUse",
    about="a proposal added by apply_patch is ingested at once",
    files={".cuecard/inbox/codex-bad.json": BAD},
    payload=cbase(
        "PostToolUse",
        tool_name="apply_patch",
        tool_input={"command": PATCH_INBOX},
        tool_response="Success. Updated the following files:\nA .cuecard/inbox/codex-bad.json",
        tool_use_id="c9",
    ),
)
x["post-compact"] = dict(
    event="PostCompact",
    about="Codex reports a compaction at PostCompact: a new epoch, nothing printed",
    setup=[
        [
            "PreToolUse",
            cbase(
                "PreToolUse",
                tool_name="Bash",
                tool_input={"command": "alembic downgrade -1"},
                tool_use_id="c0",
            ),
        ]
    ],
    payload=cbase("PostCompact", trigger="auto"),
)
x["pre-after-post-compact"] = dict(
    event="PreToolUse",
    about="after PostCompact the memory is delivered again",
    setup=[
        [
            "PreToolUse",
            cbase(
                "PreToolUse",
                tool_name="Bash",
                tool_input={"command": "alembic downgrade -1"},
                tool_use_id="c0",
            ),
        ],
        ["PostCompact", cbase("PostCompact", trigger="manual")],
    ],
    payload=cbase(
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": "alembic downgrade -1"},
        tool_use_id="c1",
    ),
)
x["invalid-json"] = dict(event="PreToolUse", about="invalid JSON", raw="not json at all")

o = CASES["opencode"]


def obase(ev: str, **kw: Any) -> dict[str, Any]:
    return {"hook_event_name": ev, "session_id": "$SESSION", "cwd": R, **kw}


# What the plugin sends at tool calls, prompts and Stop is recorded from OpenCode (real-*.json).
o["session-compacted"] = dict(
    event="SessionStart",
    about="session.compacted (documented shape: no compaction happens in a headless run)",
    payload=obase("SessionStart", source="compact"),
)
o["invalid-json"] = dict(event="PreToolUse", about="invalid JSON", raw="{{")

g = CASES["grok"]
# Grok Build emits every event cuecard handles: what it sends is recorded (real-*.json).
g["invalid-json"] = dict(event="Stop", about="invalid JSON", raw="\x00\x01")


def main() -> None:
    # recorded real payloads (real-*.json, tests/e2e/record_fixtures.py) stay
    for old in OUT.glob("*/*.json"):
        if not old.name.startswith("real-"):
            old.unlink()
    base_dir = Path(tempfile.mkdtemp())
    repo = build_repo(base_dir / "repo")
    outside = base_dir / "outside"
    outside.mkdir()
    os.environ.pop("CUECARD_PROJECT_DIR", None)
    os.chdir(repo)
    for harness, items in CASES.items():
        for name, spec in items.items():
            ordered: dict[str, Any] = {"event": spec["event"], "about": spec["about"]}
            ordered.update({k: v for k, v in spec.items() if k not in ("event", "about")})
            ordered["stdout"] = play(harness, name, ordered, repo, outside)
            path = OUT / harness / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(ordered, indent=2, ensure_ascii=False) + "\n")
            print(harness, name, len(ordered["stdout"]))
    shutil.rmtree(base_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
