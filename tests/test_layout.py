"""The workspace rules: one namespace, five distributions, light package imports."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import cuecard.core
import cuecard.core.engine
import cuecard.core.fs
import cuecard.core.harnesses
import cuecard.core.review
from cuecard.core.engine import Event
from cuecard.core.fs import atomic_write
from tests._support.internals import expand_braces, strip_invisibles

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "core": "core",
    "hooks": "hooks",
    "dsh-adapter": "dsh_adapter",
    "wp-projection": "wp_projection",
    "ui": "ui",
}


def test_no_distribution_ships_the_namespace_init() -> None:
    assert list(ROOT.glob("packages/*/src/cuecard/__init__.py")) == []


@pytest.mark.parametrize("folder", sorted(PACKAGES))
def test_each_package_has_its_files(folder: str) -> None:
    base = ROOT / "packages" / folder
    package = base / "src" / "cuecard" / PACKAGES[folder]
    for path in (
        base / "pyproject.toml",
        base / "README.md",
        base / "CHANGELOG.md",
        package / "__init__.py",
        package / "__about__.py",
        package / "py.typed",
    ):
        assert path.is_file(), path
    assert "## Unreleased" in (base / "CHANGELOG.md").read_text()
    assert (ROOT / "tests" / PACKAGES[folder]).is_dir()


@pytest.mark.parametrize("folder", sorted(set(PACKAGES) - {"core"}))
def test_satellites_pin_core_with_a_range(folder: str) -> None:
    project = tomllib.loads((ROOT / "packages" / folder / "pyproject.toml").read_text())["project"]
    core = [d for d in project["dependencies"] if d.startswith("cuecard-core")]
    assert core, "a satellite depends on cuecard-core"
    assert "==" not in core[0]
    assert ">=" in core[0]
    assert "<" in core[0]
    assert not [d for d in project["dependencies"] if d.startswith("cuecard-") and d not in core]


def public_modules() -> dict[str, Path]:
    """Every module whose dotted name has no private part, by name (``__main__`` aside)."""
    found = {}
    for source in sorted(ROOT.glob("packages/*/src/cuecard/**/*.py")):
        dotted = list(source.relative_to(_src(source)).with_suffix("").parts)
        if dotted[-1] == "__init__":
            dotted.pop()
        if any(p.startswith("_") for p in dotted):
            continue
        found[".".join(dotted)] = source
    return found


def _src(source: Path) -> Path:
    return next(p for p in source.parents if p.name == "src")


def _type_checking_imports(tree: ast.Module) -> dict[str, str]:
    """The cuecard names the module's ``if TYPE_CHECKING:`` block imports: name -> module."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and (statement.module or "").startswith(
                    "cuecard."
                ):
                    for alias in statement.names:
                        found[alias.asname or alias.name] = statement.module or ""
    return found


def _defined_names(tree: ast.Module) -> set[str]:
    """Public names the module binds itself: functions, classes, assignments, ``X as X``."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.name for a in node.names if a.asname == a.name)
    return {n for n in names if not n.startswith("_") and n != "TYPE_CHECKING"}


def test_each_distribution_and_core_s_contract_modules_are_public() -> None:
    names = set(public_modules())
    assert {f"cuecard.{m}" for m in PACKAGES.values()} <= names
    assert {"cuecard.core.engine", "cuecard.core.fs", "cuecard.core.cli"} <= names


@pytest.mark.parametrize("name", sorted(public_modules()))
def test_all_lists_exactly_the_public_names(name: str) -> None:
    """``__all__`` is sorted and equals what the module defines plus what it exports lazily;
    a lazy module's ``TYPE_CHECKING`` block imports exactly its lazy exports, from the module
    each is exported from (so mypy and the runtime agree)."""
    module = importlib.import_module(name)
    public = module.__all__
    assert public == sorted(public)
    for each in public:  # every listed name resolves (lazily or not)
        assert getattr(module, each) is not None
    tree = ast.parse(public_modules()[name].read_text(encoding="utf-8"))
    lazy: dict[str, str] = dict(vars(module).get("_EXPORTS", {}))
    # __version__ is defined in __about__ and imported or exported lazily (core and hooks: the
    # hook process never reads it)
    assert set(public) - {"__version__"} == (_defined_names(tree) | set(lazy)) - {"__version__"}
    assert ("__version__" in public) == (name in {f"cuecard.{m}" for m in PACKAGES.values()})
    assert _type_checking_imports(tree) == lazy
    for each, where in lazy.items():  # each is defined where the table says, not passed along
        assert getattr(importlib.import_module(where), each) is getattr(module, each)


def test_root_pyproject_is_not_a_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "project" not in config
    assert len(config["tool"]["hatch"]["envs"]["default"]["workspace"]["members"]) == 5


def test_importing_core_pulls_in_nothing_heavy() -> None:
    # The engine's text normalisation, the crash-safe writes and the brace expansion, named by
    # what they define (so a module moved inside core changes nothing here).
    light = (strip_invisibles.__module__, atomic_write.__module__, expand_braces.__module__)
    code = (
        f"import sys, cuecard.core, {', '.join(light)}\n"
        "from cuecard.core.engine import *\n"  # every hot-path name the satellites use
        "from cuecard.core.fs import *\n"
        "heavy = ('pydantic', 're2', 'httpx', 'numpy', 'pathspec')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_contract_module_costs_nothing_until_a_name_is_used() -> None:
    """``cuecard-hook`` imports ``cuecard.core.engine`` once per tool call: the module itself
    imports nothing, and a name imports only the module that defines it (not even importlib)."""
    contract = (cuecard.core.engine, cuecard.core.fs, cuecard.core.review, cuecard.core.harnesses)
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"import {', '.join(m.__name__ for m in contract)}\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
        "before = set(sys.modules)\n"
        "from cuecard.core.engine import Event\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, used = (set(line.split()) for line in out.stdout.splitlines())
    assert "importlib" not in loaded | used
    # each contract module's lazy re-export comes from one helper, which comes with its package
    [lazy] = {m.__getattr__.__module__ for m in contract}
    helper = importlib.import_module(lazy)
    assert {m for m in loaded if m.startswith("cuecard")} == {
        "cuecard",
        cuecard.core.__name__,
        helper.__package__,
        helper.__name__,
        *(m.__name__ for m in contract),
    }
    assert used == {Event.__module__}
