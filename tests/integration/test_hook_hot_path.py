"""What ``cuecard-hook`` (cuecard-hooks) imports of core on a tool call lies inside
``cuecard.core.engine``, plus the foundation its import-linter contract allows (the root
``pyproject.toml``)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import cuecard.core.__about__
import cuecard.core.base
import cuecard.core.engine
import cuecard.core.fs
from cuecard.core import compile_index
from tests._support.project import add, make_project

# What the engine's contract lets it import from the rest of core: the foundation (room base, every
# module of it), and what importing any module of core runs first: the package itself, with its
# version, and the public filesystem module's lazy re-exports. Read from the packages, so a module
# moved or renamed changes nothing here.
FOUNDATION = {
    cuecard.core.__name__,
    cuecard.core.__about__.__name__,
    cuecard.core.fs.__name__,
    cuecard.core.base.__name__,
    *(
        m.name
        for m in pkgutil.walk_packages(cuecard.core.base.__path__, f"{cuecard.core.base.__name__}.")
    ),
}
ENGINE = cuecard.core.engine.__name__
HOOK = str(Path(sys.executable).parent / "cuecard-hook")


def _inside(package: str, module: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def _payload(root: Path, event: str, session: str, **fields: object) -> str:
    return json.dumps(
        {"session_id": session, "cwd": str(root), "hook_event_name": event, **fields},
    )


def core_imports(root: Path, event: str, payload: str) -> tuple[set[str], str]:
    """The modules of cuecard.core a real ``cuecard-hook claude EVENT`` process imported (read
    from ``-X importtime``, which the process writes as it imports), and what it printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", HOOK, "claude", event],
        input=payload,
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return {n for n in names if _inside(cuecard.core.__name__, n)}, done.stdout


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose memories fire on edits, reads, commands and prompts, two with checks."""
    store = make_project(tmp_path_factory.mktemp("hot") / "repo")
    add(store, triggers=[{"on": ["edit", "read", "search"], "paths": ["src/**"]}])
    add(store, triggers=[{"on": ["prompt"], "keywords": ["deploy"]}])
    add(
        store,
        check={"if_command": "make deploy", "violates": ["make deploy"], "passes": ["make"]},
        triggers=[{"on": ["run"], "commands": ["make"]}],
    )
    add(
        store,
        check={"if_content": "print\\(", "violates": ["print(1)"], "passes": ["log(1)"]},
        triggers=[{"on": ["edit"], "paths": ["src/**"]}],
    )
    (store.root / "src").mkdir()
    (store.root / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    compile_index(store)
    return store.root


def _calls(root: Path) -> list[tuple[str, str, str]]:
    edit = {"file_path": str(root / "src" / "a.py"), "old_string": "x", "new_string": "print(x)"}
    bash = "Bash"
    return [
        (
            "edit",
            "PreToolUse",
            _payload(root, "PreToolUse", "a", tool_name="Edit", tool_input=edit),
        ),
        (
            "read",
            "PreToolUse",
            _payload(
                root, "PreToolUse", "b", tool_name="Read", tool_input={"file_path": "src/a.py"}
            ),
        ),
        (
            "search-command",
            "PreToolUse",
            _payload(
                root,
                "PreToolUse",
                "c",
                tool_name=bash,
                tool_input={"command": "cd src && cat a.py"},
            ),
        ),
        (
            "command-with-check",
            "PreToolUse",
            _payload(
                root, "PreToolUse", "d", tool_name=bash, tool_input={"command": "make deploy"}
            ),
        ),
        (
            "failed-command",
            "PostToolUse",
            _payload(
                root,
                "PostToolUse",
                "e",
                tool_name=bash,
                tool_input={"command": "make test"},
                tool_response={"exit_code": 1, "stderr": "token=ghp_" + "Zq7" * 12},
            ),
        ),
        (
            "edit-done",
            "PostToolUse",
            _payload(root, "PostToolUse", "e", tool_name="Edit", tool_input=edit, tool_response={}),
        ),
        (
            "prompt",
            "UserPromptSubmit",
            _payload(root, "UserPromptSubmit", "e", prompt="no, that is wrong: deploy it first"),
        ),
        ("session-start", "SessionStart", _payload(root, "SessionStart", "f", source="startup")),
        ("stop", "Stop", _payload(root, "Stop", "e")),
    ]


@pytest.mark.parametrize("case", range(9), ids=[c[0] for c in _calls(Path("."))])
def test_a_hook_call_imports_only_the_engine_from_core(hooked: Path, case: int) -> None:
    name, event, payload = _calls(hooked)[case]
    modules, out = core_imports(hooked, event, payload)
    assert ENGINE in modules, (name, sorted(modules))
    outside = sorted(m for m in modules - FOUNDATION if not _inside(ENGINE, m))
    assert outside == [], f"{name}: the hook imported {outside} from outside the engine"
    if name in ("edit", "read", "command-with-check", "prompt"):
        assert "<memory-data" in out, (name, out)  # the call did the work it was meant to
