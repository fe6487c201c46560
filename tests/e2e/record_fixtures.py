"""Record what Claude Code, Codex, OpenCode and Grok Build really send ``cuecard-hook``, as
hook-test fixtures.

    .venv/bin/python -m tests.e2e.record_fixtures [HARNESS...]

Runs one scripted session in each harness (the pinned versions ``scripts/deps/harnesses.sh``
installs) against the scripted model, in the hook tests' repository (``tests/hooks/conftest``),
with the logging ``cuecard-hook`` first on the PATH. Each call becomes
``tests/hooks/fixtures/<harness>/real-<nn>-<event>.json``: the payload as the harness sent it
(the repository's path as ``$ROOT``, the session id as ``$SESSION``), the session's earlier
calls as ``setup``, the harness and its version, and the stdout the hook gives when the fixture
is replayed; a replay that does not give what the real hook answered in the session is refused.
Codex's Stop reads the turn's exit statuses from Codex's rollout file: the lines it reads are
kept with the fixture (``files``). Review ``git diff tests/hooks/fixtures`` before committing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests._support.hooks import play, replace_all
from tests.e2e._support import ModelServer, Reply, ToolCall
from tests.e2e._support._harnesses import (
    claude_command,
    claude_env,
    codex_command,
    codex_env,
    codex_prepare,
    grok_command,
    grok_env,
    opencode_command,
    opencode_env,
    opencode_seed,
    run,
    versions,
)
from tests.e2e._support._project import FILES, GIT, PROPOSAL, Project
from tests.e2e._support._recorder import calls, make_recorder

OUT = Path(__file__).resolve().parents[1] / "hooks" / "fixtures"
CHECK = FILES["check.sh"]
LINE = "    return provider.charge(order.total)"


def _project(base: Path, harness: str) -> Project:
    from tests._support.hooks import build_repo

    root = build_repo(base / "proj")
    (root / "check.sh").write_text(CHECK, encoding="utf-8")
    (root / "check.sh").chmod(0o755)
    subprocess.run([*GIT, "add", "check.sh"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "check"], cwd=root, check=True)
    home = base / "home"
    home.mkdir()
    project = Project(root, home, make_recorder(base / "recorder")[0])
    if harness == "codex":
        codex_prepare(project)
    if harness == "opencode":
        opencode_seed(project)
    project.cuecard("install", harness)  # grok: records the folder's trust
    return project


def call(name: str, **args: Any) -> Reply:
    """A scripted reply that calls one tool with ``args``."""
    return Reply(tool_calls=[ToolCall(name, args)])


def _claude(project: Project) -> None:
    root = project.root
    charge = str(root / "src/billing/charge.py")

    script = [
        call("Read", file_path=str(root / "docs/adr/0001-provider.md")),
        call("Bash", command="./check.sh", description="check"),
        call("Read", file_path=charge),
        call("Edit", file_path=charge, old_string="order.total", new_string="order.amount"),
        call("Bash", command="./check.sh", description="check"),
        call("Grep", pattern="charge_customer", path=str(root / "src")),
        call("Write", file_path=str(root / "src/billing/refund.py"), content="x = 1\n"),
        Reply("Fixed."),
        call("Write", file_path=str(root / ".cuecard/inbox/check.json"),
             content=json.dumps(PROPOSAL)),
        Reply("Saved."),
    ]  # fmt: skip
    tools = ["Read", "Edit", "Write", "Grep", "Bash(./check.sh)"]
    with ModelServer(script) as server:
        done = run(claude_command("Please deploy the fix, then make check.sh pass.", tools=tools),
                   cwd=root, env=claude_env(project.env, server.url))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]


def _codex(project: Project) -> None:
    def shell(command: str) -> Reply:
        return Reply(tool_calls=[ToolCall("exec_command", {"cmd": command})])

    def patch(body: str) -> Reply:
        return Reply(
            tool_calls=[ToolCall("apply_patch", f"*** Begin Patch\n{body}*** End Patch\n")]
        )

    fixed = LINE.replace("total", "amount")
    proposal = "".join(f"+{line}\n" for line in json.dumps(PROPOSAL, indent=1).splitlines())
    script = [
        shell("cat docs/adr/0001-provider.md"),
        shell("./check.sh"),
        patch(f"*** Update File: src/billing/charge.py\n@@\n-{LINE}\n+{fixed}\n"),
        shell("./check.sh"),
        shell("grep -rn charge_customer src"),
        patch("*** Add File: src/billing/refund.py\n+x = 1\n"),
        Reply("Fixed."),
        patch(f"*** Add File: .cuecard/inbox/check.json\n{proposal}"),
        Reply("Saved."),
    ]
    with ModelServer(script) as server:
        done = run(codex_command("Please deploy the fix, then make check.sh pass.",
                                 url=server.url), cwd=project.root,
                   env=codex_env(project.env))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]


def _opencode(project: Project) -> None:
    root = project.root
    charge = str(root / "src/billing/charge.py")

    script = [
        call("read", filePath=str(root / "docs/adr/0001-provider.md")),
        call("bash", command="./check.sh", description="check"),
        call("read", filePath=charge),
        call("edit", filePath=charge, oldString="order.total", newString="order.amount"),
        call("bash", command="./check.sh", description="check"),
        call("grep", pattern="charge_customer", path=str(root / "src")),
        call("write", filePath=str(root / "src/billing/refund.py"), content="x = 1\n"),
        Reply("Fixed."),
        call("write", filePath=str(root / ".cuecard/inbox/check.json"),
             content=json.dumps(PROPOSAL)),
        Reply("Saved."),
    ]  # fmt: skip
    with ModelServer(script) as server:
        done = run(opencode_command("Please deploy the fix, then make check.sh pass."),
                   cwd=root, env=opencode_env(project.env, server.url), timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]


def _grok(project: Project) -> None:
    check = {"command": "./check.sh", "description": "check"}
    script = [
        call("read_file", target_file="docs/adr/0001-provider.md"),
        call("run_terminal_command", **check),
        call("search_replace", file_path="src/billing/charge.py", old_string="order.total",
             new_string="order.amount"),
        call("run_terminal_command", **check),
        call("grep", pattern="charge_customer", path="src"),
        call("write", file_path="src/billing/refund.py", content="x = 1\n"),
        Reply("Fixed."),
        call("write", file_path=".cuecard/inbox/check.json", content=json.dumps(PROPOSAL)),
        Reply("Saved."),
    ]  # fmt: skip
    with ModelServer(script) as server:
        done = run(grok_command("Please deploy the fix, then make check.sh pass."),
                   cwd=project.root, env=grok_env(project.env, server.url))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.spent, done.stderr[-2000:]


SESSIONS = {"claude": _claude, "codex": _codex, "opencode": _opencode, "grok": _grok}


def _transcript_lines(path: str, mapping: dict[str, str]) -> str:
    """The rollout lines Stop reads (shell calls and their outputs), generalised."""
    kept = []
    for line in Path(path).read_text("utf-8").splitlines():
        record = json.loads(line)
        item = record.get("payload") if isinstance(record, dict) else None
        if isinstance(item, dict) and item.get("type") in ("function_call", "function_call_output"):
            kept.append(json.dumps(replace_all(record, mapping)))
    return "\n".join(kept) + "\n"


def record(harness: str, base: Path, version: str) -> list[tuple[str, dict[str, Any]]]:
    from tests._support.hooks import build_repo

    project = _project(base, harness)
    SESSIONS[harness](project)
    assert project.recorder is not None
    recorded = calls(project.recorder / "calls.jsonl")
    first = recorded[0]["payload"]
    session = str(first.get("session_id") or first.get("sessionId"))  # Grok: camelCase
    mapping = {str(project.root): "$ROOT", session: "$SESSION", str(project.home): "/home/user"}
    out: list[tuple[str, dict[str, Any]]] = []
    setup: list[list[Any]] = []
    replay = build_repo(base / "replay")
    outside = base / "outside"
    outside.mkdir()
    for number, call in enumerate(recorded, 1):
        event = call["argv"][1]
        payload = replace_all(call["payload"], mapping)
        name = f"real-{number:02d}-{re.sub(r'(?<!^)(?=[A-Z])', '-', event).lower()}"
        spec: dict[str, Any] = {
            "event": event,
            "about": f"recorded from {harness} {version}: {_about(payload)}",
            "harness_version": version,
        }
        transcript = call["payload"].get("transcript_path")
        if harness == "codex" and event == "Stop" and isinstance(transcript, str):
            rel = f".git/transcripts/{name}.jsonl"
            spec["files"] = {rel: _transcript_lines(transcript, mapping)}
            payload["transcript_path"] = f"$ROOT/{rel}"
        if setup:
            spec["setup"] = list(setup)
        spec["payload"] = payload
        live = str(call["stdout"]).replace(str(project.root), "$ROOT")
        spec["stdout"] = play(harness, name, spec, replay, outside)
        mine = json.loads(spec["stdout"]) if spec["stdout"] else None
        theirs = json.loads(live) if live else None
        if _shape(mine) != _shape(theirs):
            raise SystemExit(f"{harness} {name}: replay gives {spec['stdout']!r}, live {live!r}")
        out.append((name, spec))
        setup.append([event, payload])
    return out


def _shape(answer: Any) -> Any:
    """What must agree between replay and the live session: the kind of answer and which
    memories it delivers (titles), not the wording of the numbers in a session-start line."""
    if not isinstance(answer, dict):
        return answer
    text = json.dumps(answer)
    return (sorted(answer), sorted(set(re.findall(r"## \w+: ([^\\]+)", text))))


def _about(payload: dict[str, Any]) -> str:
    tool = payload.get("tool_name") or payload.get("toolName")
    args = payload.get("tool_input") or payload.get("toolInput") or {}
    detail = (args.get("command") or args.get("file_path") or args.get("filePath")
              or args.get("target_file") or args.get("pattern") or "")  # fmt: skip
    detail = str(detail).splitlines()[0][:60] if detail else ""
    what = payload.get("hook_event_name") or payload.get("hookEventName") or ""
    return " ".join(str(x) for x in (what, tool or payload.get("source") or "", detail) if x)


def main() -> None:
    found = versions()
    for harness in sys.argv[1:] or SESSIONS:
        folder = OUT / harness
        for old in folder.glob("real-*.json"):
            old.unlink()
        base = Path(tempfile.mkdtemp(prefix=f"cuecard-record-{harness}-"))
        try:
            for name, spec in record(harness, base, found[harness]):
                text = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
                (folder / f"{name}.json").write_text(text, encoding="utf-8")
                print(f"{harness}/{name}.json")
        finally:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
