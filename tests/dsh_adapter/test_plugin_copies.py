"""Each DSH plugin holds a regular copy of every shared file (``js/shared/``), the same bytes: one
check (the wheel build's ``copy_problems`` in ``packages/dsh-adapter/hatch_build.py``) holds the
repository to it, and one command (``tools/dsh/plugin_copies.py``, which the credential rules'
generator runs too) refreshes the copies."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "packages" / "dsh-adapter"
PLUGINS = ("cuecard-dsh-memory", "cuecard-dsh-discipline")
SHARED = ("runner.js", "secrets.js")


def build_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuecard_dsh_build", PACKAGE / "hatch_build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checkout(root: Path) -> Path:
    """The plugins' sources, the build hook and the two tools, copied under ``root`` as they lie
    in the repository; the copied package."""
    package = root / "packages" / "dsh-adapter"
    shutil.copytree(PACKAGE / "js", package / "js", symlinks=True,
                    ignore=shutil.ignore_patterns("node_modules", ".dsh-host", "test"))  # fmt: skip
    shutil.copy(PACKAGE / "hatch_build.py", package)
    for tool in ("dsh/plugin_copies.py", "secrets/js_rules.py"):
        (root / "tools" / tool).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "tools" / tool, root / "tools" / tool)
    return package


def test_each_plugin_holds_a_regular_copy_of_each_shared_file() -> None:
    hook = build_hook()
    assert set(hook.PLUGINS) == set(PLUGINS)
    assert set(hook.shared_files(PACKAGE)) == set(SHARED)
    assert hook.copy_problems(PACKAGE) == []


def test_the_check_names_each_bad_copy_and_the_refresh_mends_each(tmp_path: Path) -> None:
    hook = build_hook()
    package = checkout(tmp_path)
    memory, discipline = (package / "js" / name / "lib" for name in PLUGINS)
    elsewhere = tmp_path / "elsewhere.js"
    elsewhere.write_text("// not the runner\n")
    (memory / "runner.js").unlink()
    (memory / "runner.js").symlink_to(elsewhere)  # a link (even to other bytes)
    (discipline / "runner.js").write_text("../../shared/runner.js")  # a Windows checkout's link
    (memory / "secrets.js").unlink()
    (discipline / "secrets.js").write_bytes((discipline / "secrets.js").read_bytes() + b"//\n")
    problems = hook.copy_problems(package)
    assert sorted(problems) == sorted(
        [
            f"{memory / 'runner.js'} is a link: the plugin holds a copy of "
            f"{package / 'js' / 'shared' / 'runner.js'}",
            f"{discipline / 'runner.js'} differs from {package / 'js' / 'shared' / 'runner.js'}, "
            "its one source",
            f"{memory / 'secrets.js'} is missing: the plugin loads the shared secrets.js "
            "from there",
            f"{discipline / 'secrets.js'} differs from "
            f"{package / 'js' / 'shared' / 'secrets.js'}, its one source",
        ]
    )
    written = hook.write_copies(package)
    assert sorted(written) == sorted(m / n for m in (memory, discipline) for n in SHARED)
    assert hook.copy_problems(package) == []
    assert not (memory / "runner.js").is_symlink()
    assert elsewhere.read_text() == "// not the runner\n"  # the link was replaced, not written
    assert hook.write_copies(package) == []  # nothing left to write


@pytest.mark.parametrize("tool", ["dsh/plugin_copies.py", "secrets/js_rules.py"])
def test_the_refresh_commands_write_every_copy(tool: str, tmp_path: Path) -> None:
    """``plugin_copies.py`` refreshes every shared file's copies; the generator of
    ``secrets.js`` writes the module and each plugin's copy of it (and no other file)."""
    package = checkout(tmp_path)
    copies = tmp_path / "tools" / "dsh" / "plugin_copies.py"
    stale = [package / "js" / name / "lib" / rel for name in PLUGINS for rel in SHARED]
    for copy in stale:
        copy.write_text("stale\n")

    def run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), *args],
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip

    checked = run(copies, "--check")
    assert checked.returncode == 1
    assert sorted(checked.stdout.split("\n")[:-1]) == sorted(
        f"{c} differs from {package / 'js' / 'shared' / c.name}, its one source" for c in stale
    )
    done = run(tmp_path / "tools" / tool)
    assert done.returncode == 0, done.stderr
    refreshed = {c for c in stale if c.read_text() != "stale\n"}
    if tool.startswith("secrets/"):
        assert refreshed == {c for c in stale if c.name == "secrets.js"}
        assert run(copies).returncode == 0
    else:
        assert refreshed == set(stale)
    for copy in stale:
        assert copy.read_bytes() == (package / "js" / "shared" / copy.name).read_bytes()
    assert run(copies, "--check").returncode == 0
