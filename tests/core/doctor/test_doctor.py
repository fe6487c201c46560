"""``cuecard doctor``: each problem with its exit code, the notes, and nothing created."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from cuecard.core import Store, compile_index
from cuecard.core.doctor._doctor import KEYS, diagnose
from tests._support.internals import maintain
from tests._support.lifecycle import cli, record_session, snapshot
from tests._support.project import add, make_project

# cuecard-hook belongs to cuecard-hooks, which core's tests run without: doctor only checks that
# a hook command resolves to an executable file, so the hooks point at a stand-in.
HOOK_PATH = Path(tempfile.gettempdir()) / f"cuecard-tests-{os.getuid()}" / "cuecard-hook"
HOOK_PATH.parent.mkdir(exist_ok=True)
HOOK_PATH.write_text("#!/bin/sh\nexit 0\n")
HOOK_PATH.chmod(0o755)
HOOK = {"type": "command", "command": f"'{HOOK_PATH}' claude PreToolUse", "timeout": 10}


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def store(tmp_path: Path, home: Path) -> Store:
    store = make_project(tmp_path / "repo")
    settings = store.root / ".claude" / "settings.json"
    settings.parent.mkdir()
    hooks = {"PreToolUse": [{"matcher": "*", "hooks": [HOOK]}]}
    settings.write_text(json.dumps({"permissions": {}, "hooks": hooks}))
    return store


def _checks(report: dict[str, Any], level: str) -> list[str]:
    return [item["check"] for item in report[level]]


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cwd: Path
) -> tuple[int, dict[str, Any]]:
    code = cli(monkeypatch, cwd, "doctor", "--json")
    return code, json.loads(capsys.readouterr().out)


def test_a_project_that_did_not_opt_in_is_told_and_nothing_is_created(
    tmp_path: Path, home: Path, monkeypatch, capsys
) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    before = snapshot(root)
    code = cli(monkeypatch, root, "doctor")
    out = capsys.readouterr().out
    assert code == 1
    assert "has not opted in" in out
    assert "cuecard init" in out
    assert snapshot(root) == before
    assert not (root / ".cuecard").exists()
    assert list(home.iterdir()) == []


def test_a_working_project_exits_0(store: Store, monkeypatch, capsys) -> None:
    add(store, triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    (store.root / "src").mkdir()
    (store.root / "src" / "a.py").write_text("x = 1\n")
    compile_index(store)
    record_session(store, "s1", at=1_000_000.0, calls=[("edit", "src/a.py")])
    maintain(store)
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 0
    assert report["ok"]
    assert report["problems"] == []
    assert report["hooks"] == [
        {
            "harness": "claude",
            "scope": "project",
            "file": str(store.root / ".claude" / "settings.json"),
        }
    ]
    assert report["counts"]["sessions"] == 1
    assert report["last_maintenance"]
    assert set(report) == set(KEYS)


def test_doctor_writes_nothing_in_an_opted_in_project(store: Store, monkeypatch, capsys) -> None:
    add(store)
    before = snapshot(store.root)
    _run(monkeypatch, capsys, store.root)
    assert snapshot(store.root) == before


def test_no_hooks_is_a_problem(store: Store, monkeypatch, capsys) -> None:
    (store.root / ".claude" / "settings.json").write_text('{"hooks": {}}')
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 1
    assert _checks(report, "problems") == ["hooks"]
    assert "cuecard install" in report["problems"][0]["hint"]
    # a core-only install has no `cuecard install`: the hint says where it comes from
    assert "cuecard-hooks" in report["problems"][0]["hint"]


@pytest.mark.parametrize(
    ("rel", "text", "harness"),
    [
        (".codex/hooks.json", json.dumps({"hooks": {"Stop": [{"hooks": [HOOK]}]}}), "codex"),
        (".opencode/plugins/cuecard.js", 'const HOOK = "/x/cuecard-hook";\n', "opencode"),
        (".grok/hooks/cuecard.json", json.dumps({"hooks": {"Stop": [{"hooks": [HOOK]}]}}), "grok"),
    ],
    ids=["codex", "opencode", "grok"],
)
def test_other_harnesses_are_found(store: Store, rel: str, text: str, harness: str) -> None:
    (store.root / ".claude" / "settings.json").unlink()
    path = store.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    report = diagnose(store.root, home=None)
    assert [h["harness"] for h in report["hooks"]] == [harness]


def test_user_level_hooks_count(store: Store, home: Path) -> None:
    (store.root / ".claude" / "settings.json").unlink()
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [HOOK]}]}}))
    report = diagnose(store.root, home=home)
    assert report["hooks"] == [{"harness": "claude", "scope": "user", "file": str(settings)}]
    assert "hooks" not in _checks(report, "problems")


def test_a_malformed_harness_file_is_a_problem(store: Store, monkeypatch, capsys) -> None:
    (store.root / ".codex").mkdir()
    (store.root / ".codex" / "hooks.json").write_text("{ not json")
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 1
    assert any("not valid JSON" in p["message"] for p in report["problems"])


@pytest.mark.parametrize("planted", [".claude", ".claude/settings.json"])
def test_a_linked_harness_file_in_the_project_is_named_and_not_read(
    store: Store, tmp_path: Path, planted: str, monkeypatch, capsys
) -> None:
    """A committed link at any depth of a project's harness folder is a problem naming it: the
    settings it points at, outside the project, are never read (their hooks are not counted)."""
    outside = tmp_path / "outside"
    (outside / ".claude").mkdir(parents=True)
    real = store.root / ".claude" / "settings.json"
    (outside / ".claude" / "settings.json").write_bytes(real.read_bytes())
    if planted == ".claude":
        real.unlink()
        (store.root / ".claude").rmdir()
        (store.root / ".claude").symlink_to(outside / ".claude")
    else:
        real.unlink()
        real.symlink_to(outside / ".claude" / "settings.json")
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 1
    named = [p["message"] for p in report["problems"] if p["check"] == "hooks"]
    assert any(m.startswith(f"{store.root / planted} is a symbolic link") for m in named), named
    assert report["hooks"] == []


def test_an_unreadable_config_is_a_problem(store: Store, monkeypatch, capsys) -> None:
    config = store.dir / "config.json"
    data = json.loads(config.read_text())
    data["delivery_limit"] = 10
    config.write_text(json.dumps(data))
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 1
    assert "config" in _checks(report, "problems")
    assert "delivery_limit" in report["problems"][0]["message"]


def test_an_invalid_memory_file_is_a_problem(store: Store, monkeypatch, capsys) -> None:
    (store.memories_dir / "0000.json").write_text('{"id": "x"}')
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 1
    assert "memories" in _checks(report, "problems")


def test_a_missing_index_for_live_memories_is_a_note_the_first_hook_event_settles(
    store: Store, monkeypatch, capsys
) -> None:
    add(store)  # as a fresh clone holds them: memories committed, no local/ folder
    code, report = _run(monkeypatch, capsys, store.root)
    assert code == 0
    assert "index" not in _checks(report, "problems")
    (note,) = [n for n in report["notes"] if n["check"] == "index"]
    assert "no compiled index yet for 1 live memories" in note["message"]
    assert "first hook event" in note["hint"]
    compile_index(store)
    code, report = _run(monkeypatch, capsys, store.root)
    assert "index" not in _checks(report, "problems")
    add(store)  # the memories folder changed after the compile
    code, report = _run(monkeypatch, capsys, store.root)
    assert any(n["check"] == "index" and "older" in n["message"] for n in report["notes"])


def test_an_old_python_is_a_problem(store: Store) -> None:
    report = diagnose(store.root, python=(3, 10, 4))
    assert "python" in _checks(report, "problems")


def test_counts_that_need_a_person_are_notes(store: Store, monkeypatch, capsys) -> None:
    (store.root / "README.md").write_text("one\n")
    digest = hashlib.sha256(b"old\n").hexdigest()
    add(store, status="candidate")
    add(store, status="contested")
    add(store, triggers=[{"on": ["edit"], "paths": ["gone/**"]}])
    add(store, evidence=[{"kind": "file", "ref": "README.md", "sha256": digest}])
    add(store, not_derivable=None, review={"migrated": True})
    (store.inbox_dir / "p.json").write_text("{}")
    compile_index(store)
    code, report = _run(monkeypatch, capsys, store.root)
    counts = report["counts"]
    assert (counts["candidates"], counts["conflicts"]) == (1, 1)
    assert (counts["dead_triggers"], counts["stale_evidence"]) == (1, 1)
    assert (counts["migrated"], counts["inbox"]) == (1, 1)
    noted = _checks(report, "notes")
    for key in ("candidates", "conflicts", "dead_triggers", "stale_evidence", "migrated", "inbox"):
        assert key in noted
    assert code == 0  # waiting for a person is not cuecard failing
    hints = {n["check"]: n["hint"] for n in report["notes"]}
    # what core offers first; a command of another distribution says which one
    assert hints["candidates"].startswith("`cuecard review`")
    assert "cuecard-ui distribution" in hints["migrated"]


def test_events_that_left_glob_tests_unmade_are_a_note(store: Store) -> None:
    from cuecard.core.engine import Event, handle
    from tests._support.internals import path_max

    add(store, triggers=[{"on": ["read"], "paths": ["**/*.py"]}])
    compile_index(store)
    assert "matching" not in _checks(diagnose(store.root, home=None), "notes")
    long = "a/" * (path_max() // 2) + "x.py"
    handle(str(store.root), Event("read", paths=(long,), session="s"))
    notes = {n["check"]: n for n in diagnose(store.root, home=None)["notes"]}
    assert "1 recorded event(s) left glob tests unmade" in notes["matching"]["message"]
    assert "longer than PATH_MAX" in notes["matching"]["message"]
    assert "`src/**/*test*`" in notes["matching"]["hint"]


def test_hooks_but_no_session_and_no_maintenance_are_notes(store: Store) -> None:
    report = diagnose(store.root, home=None)
    assert report["ok"]
    assert {"sessions", "maintenance", "hooks"} <= set(_checks(report, "notes"))


def test_text_output_lists_problems_with_hints(store: Store, monkeypatch, capsys) -> None:
    (store.root / ".claude" / "settings.json").unlink()
    assert cli(monkeypatch, store.root, "doctor") == 1
    out = capsys.readouterr().out
    assert "problem [hooks]" in out
    assert "hint:" in out
    with pytest.raises(SystemExit):
        cli(monkeypatch, store.root, "doctor", "--help")
    helptext = " ".join(capsys.readouterr().out.split())
    for key in KEYS:
        assert key in helptext, key


def test_only_open_requests_are_counted(store: Store, monkeypatch, capsys) -> None:
    store.requests_dir.mkdir()
    base = {"request": "archive", "target": "x", "reason": "old"}
    (store.requests_dir / "a.json").write_text(json.dumps(base))
    (store.requests_dir / "b.json").write_text(json.dumps({**base, "resolved": "accepted"}))
    _, report = _run(monkeypatch, capsys, store.root)
    assert report["counts"]["requests"] == 1


def test_hooks_that_do_not_resolve_here_are_a_problem(
    store: Store, monkeypatch, capsys, tmp_path: Path
) -> None:
    from cuecard.core.harnesses import portable_command

    settings = store.root / ".claude" / "settings.json"
    gone = {"type": "command", "command": "/opt/gone/cuecard-hook claude Stop"}
    portable = {"type": "command", "command": portable_command("claude", "Stop")}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [gone, portable]}]}}))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    code, report = _run(monkeypatch, capsys, store.root)
    messages = [p["message"] for p in report["problems"] if p["check"] == "hooks"]
    assert code == 1, report["problems"]
    assert len(messages) == 2, report["problems"]
    assert any("/opt/gone/cuecard-hook does not exist" in m for m in messages)
    assert any("cuecard-hook is not on the PATH" in m for m in messages)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "cuecard-hook").symlink_to(HOOK_PATH)
    monkeypatch.setenv("PATH", str(tools))
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [portable]}]}}))
    code, report = _run(monkeypatch, capsys, store.root)
    assert not [p for p in report["problems"] if p["check"] == "hooks"], report["problems"]


def test_codex_hooks_untrusted_stale_and_an_untrusted_project(
    store: Store, home: Path, monkeypatch
) -> None:
    from cuecard.core.harnesses import codex_hooks

    (store.root / ".claude" / "settings.json").unlink()
    hooks_file = store.root / ".codex" / "hooks.json"
    hooks_file.parent.mkdir()
    config = {"hooks": {"Stop": [{"hooks": [HOOK]}], "PreToolUse": [{"hooks": [HOOK]}]}}
    hooks_file.write_text(json.dumps(config))
    monkeypatch.delenv("CODEX_HOME", raising=False)

    def problems() -> list[str]:
        report = diagnose(store.root, home=home)
        return [p["message"] for p in report["problems"] if p["check"] == "hooks"]

    found = problems()
    assert any("(2 untrusted of 2)" in m for m in found), found
    assert any("the project is not trusted" in m for m in found), found
    stop, pre = codex_hooks(hooks_file, config)
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text(
        f'[projects.{json.dumps(str(store.root))}]\ntrust_level = "trusted"\n'
        f'[hooks.state.{json.dumps(stop.key)}]\ntrusted_hash = "{stop.hash}"\n'
        f'[hooks.state.{json.dumps(pre.key)}]\ntrusted_hash = "sha256:older"\n'
    )
    found = problems()
    assert len(found) == 1, found
    assert "(1 trusted for an older version of 2)" in found[0], found


def test_the_dsh_section_reads_every_setting_from_the_home_and_environment_it_is_given(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from cuecard.core.doctor._doctor_dsh import dsh_setup

    monkeypatch.delenv("CUECARD_VAULT", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    asked = tmp_path / "asked-home"  # the home doctor is asked about, not $HOME
    config = asked / ".config" / "cuecard"
    config.mkdir(parents=True)
    (config / "dsh.json").write_text(json.dumps({"python": sys.executable}))
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)  # a vault, as the plugins check it
    (vault / "inbox").mkdir()
    (config / "config.toml").write_text(f"vault = {json.dumps(str(vault))}\n")
    report = diagnose(store.root, home=asked)
    assert report["dsh"]["vault"] == str(vault)
    assert not [p for p in report["problems"] if "no vault" in p["message"]]

    problems: list[str] = []
    env = {"CUECARD_VAULT": str(tmp_path / "gone"), "DSH_HOME": str(tmp_path / "dsh")}
    found = dsh_setup(asked, lambda _c, m, _h: problems.append(m), lambda *_: None, env=env)
    assert found is not None
    assert found["vault"] == str(tmp_path / "gone")
    assert f"the vault {tmp_path / 'gone'} does not exist" in "\n".join(problems)
    assert f"no DSH profile under {tmp_path / 'dsh'}" in "\n".join(problems)
    found = dsh_setup(asked, lambda _c, m, _h: problems.append(m), lambda *_: None, env={})
    assert found is not None
    assert found["vault"] == str(vault)  # the config file in the given home's config folder


def test_the_readme_steps_leave_no_problem(store: Store, monkeypatch, capsys) -> None:
    """`cuecard init`, then `cuecard add`: the index is compiled, doctor finds nothing to fix."""
    assert cli(monkeypatch, store.root, "init") == 0
    code = cli(
        monkeypatch,
        store.root,
        *("add", "--topic", "billing/retries", "--kind", "trap", "--title", "Retries"),
        *("--body", "Retries double-charge.", "--not-derivable", "Only the incident says so."),
        *("--on", "edit", "--paths", "billing/**"),
    )
    assert code == 0
    capsys.readouterr()
    code, report = _run(monkeypatch, capsys, store.root)
    assert (code, report["problems"]) == (0, [])
    (note,) = [n for n in report["notes"] if n["check"] == "index"]
    assert "fresh" in note["message"]
