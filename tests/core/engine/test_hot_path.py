"""The hot path imports the standard library only, and re2 only when a check must run (what
``cuecard-hook`` imports of core is in tests/integration/test_hook_hot_path.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cuecard.core import compile_index
from tests._support.project import add, make_project

HEAVY = ("pydantic", "numpy", "httpx", "re2", "pathspec")

PROBE = """
import sys
from cuecard.core.engine._engine import handle
from cuecard.core.engine._event import Event
delivery = handle(sys.argv[1], Event(sys.argv[2], paths=(sys.argv[3],), command=sys.argv[4],
                                     parts=(tuple(sys.argv[4].split()),)))
print(len(delivery.delivered), ",".join(m for m in HEAVY if m in sys.modules))
""".replace("HEAVY", repr(HEAVY))


def probe(root: Path, kind: str, path: str, command: str = "") -> tuple[str, str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), kind, path, command],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split(" ")
    return out[0], out[1].strip() if len(out) > 1 else ""


def test_matching_imports_nothing_heavy(tmp_path: Path) -> None:
    store = make_project(tmp_path / "repo")
    add(store, triggers=[{"on": ["edit"], "paths": ["src/**"]}])
    compile_index(store)
    assert probe(store.root, "edit", "src/a.py") == ("1", "")


def test_re2_loads_only_when_a_check_runs(tmp_path: Path) -> None:
    store = make_project(tmp_path / "repo")
    add(
        store,
        check={"if_command": "rm -rf", "violates": ["rm -rf /"], "passes": ["rm x"]},
        triggers=[{"on": ["run"], "commands": ["rm"]}],
    )
    compile_index(store)
    assert probe(store.root, "edit", "src/a.py") == ("0", "")
    _, heavy = probe(store.root, "run", "", "rm -rf build")
    assert heavy == "re2"


def test_classifying_a_command_pulls_in_no_typing_or_dataclasses(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from cuecard.core.engine._event import command_event\n"
        "from cuecard.core.engine._engine import handle\n"
        "event = command_event('cd docs && cat api.md | grep x', sys.argv[1])\n"
        "assert event.kind == 'search' and event.paths == ('docs/api.md',), event\n"
        "print(','.join(m for m in ('typing', 'dataclasses', 'inspect', 'pathlib') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
