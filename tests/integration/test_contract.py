"""The contract between core and its satellites: a satellite imports only core's public names.

A satellite pins ``cuecard-core`` with a range, so any 0.1.x core may sit under a released
satellite; core is free to rename what it keeps private (a module or a name starting with ``_``).
import-linter cannot say "no private module of another distribution", so this test reads every
import of the satellites' sources. It also reads strings that spell a whole module path, since
``importlib.import_module("cuecard.core._x")`` is an import too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SATELLITES = ("hooks", "dsh-adapter", "ui", "wp-projection")
CORE = "cuecard.core"
_MODULE_PATH = re.compile(r"cuecard\.core(?:\.\w+)+")


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _private_path(dotted: str) -> bool:
    return any(_private(part) for part in dotted.split("."))


def private_uses(source: str) -> list[str]:
    """Each use of a private core module or name in ``source``, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _core(alias.name) and _private_path(alias.name):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _core(node.module or ""):
            module = node.module or ""
            names = [a.name for a in node.names if _private(a.name)]
            if _private_path(module) or names:
                found.append(f"{node.lineno}: from {module} import {', '.join(names) or '…'}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _MODULE_PATH.fullmatch(node.value)
            and _private_path(node.value)
        ):
            found.append(f"{node.lineno}: {node.value!r}")
    return found


def _core(module: str) -> bool:
    return module == CORE or module.startswith(CORE + ".")


def sources() -> list[Path]:
    return sorted(
        path
        for folder in SATELLITES
        for path in (ROOT / "packages" / folder / "src").rglob("*.py")
        if "__pycache__" not in path.parts
    )


def test_every_satellite_has_sources_to_read() -> None:
    found = {path.relative_to(ROOT / "packages").parts[0] for path in sources()}
    assert found == set(SATELLITES)


@pytest.mark.parametrize("path", sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_satellite_imports_only_public_core_names(path: Path) -> None:
    uses = private_uses(path.read_text(encoding="utf-8"))
    assert uses == [], (
        f"{path.relative_to(ROOT)} uses core's private modules or names; import the public name "
        "(cuecard.core, cuecard.core.engine, cuecard.core.fs, cuecard.core.cli, …) or publish "
        f"it there first: {uses}"
    )


# The sources read are made up (``cuecard.core.room._module`` need not exist): moving a module of
# core changes nothing here.
@pytest.mark.parametrize(
    ("source", "found"),
    [
        (
            "from cuecard.core.room._module import name",
            ["1: from cuecard.core.room._module import …"],
        ),
        ("import cuecard.core.room._module as m", ["1: import cuecard.core.room._module"]),
        (
            "def f():\n    from cuecard.core.vault._x import y",
            ["2: from cuecard.core.vault._x import …"],
        ),
        ("from cuecard.core import _lazy", ["1: from cuecard.core import _lazy"]),
        ("from cuecard.core.cli import main, _main", ["1: from cuecard.core.cli import _main"]),
        (
            "m = importlib.import_module('cuecard.core.room._module')",
            ["1: 'cuecard.core.room._module'"],
        ),
        ("from cuecard.core.engine import handle", []),
        ("from cuecard.core import CuecardError, __version__", []),
        ("from cuecard.hooks._hook import main", []),
        ("from .._x import y", []),
        ('"""See cuecard.core.room._module for the format."""', []),
    ],
    ids=[
        "private-module",
        "import-statement",
        "nested-private-package",
        "private-submodule-by-name",
        "private-name",
        "string-import",
        "public-module",
        "public-names-and-dunder",
        "own-private-module",
        "relative-import",
        "prose",
    ],
)
def test_the_reader_finds_each_private_use(source: str, found: list[str]) -> None:
    assert private_uses(source) == found
