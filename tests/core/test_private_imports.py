"""Tests reach core through its public names: a private module of a room
(``cuecard.core.<room>._x``, or a private name imported from a room) is imported only by the tests
of that room, under ``tests/core/<room>/``. Anywhere else (another room's tests, the satellites',
the integration tests) it goes through a helper in ``tests/_support/`` listed below with its
reason, so moving a module inside core changes one helper and no test.

Every test file is parsed with ``ast``: ``import``, ``from … import`` (at any depth, under
``if TYPE_CHECKING:`` too) and ``importlib.import_module``/``__import__`` called with a literal.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
CORE = ROOT / "packages" / "core" / "src" / "cuecard" / "core"
ROOMS = frozenset(p.parent.name for p in CORE.glob("*/__init__.py"))

# The helpers under tests/_support/ that may import any private module, and why.
SUPPORT_ALLOWED = {
    "internals.py": "the one place a test outside a room reaches a private name of core; "
    "each name there says why no public name serves",
}


def imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every module (and ``module.name`` of a ``from`` import) the tree imports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            literal = first.value if isinstance(first, ast.Constant) else None
            if name in ("import_module", "__import__") and isinstance(literal, str):
                yield node.lineno, literal


def private_room(module: str) -> str | None:
    """The room whose private module or name ``module`` is (``""`` for core's top level), or
    ``None`` when it is public."""
    parts = module.split(".")
    if parts[:2] != ["cuecard", "core"] or len(parts) < 3:
        return None
    private = any(p.startswith("_") and not p.endswith("__") for p in parts[2:])
    if not private:
        return None
    return parts[2] if parts[2] in ROOMS else ""


def own_room(path: Path) -> str | None:
    """The room whose tests ``path`` is, if it lies in ``tests/core/<room>/``."""
    parts = path.relative_to(TESTS).parts
    if len(parts) > 2 and parts[0] == "core" and parts[1] in ROOMS:
        return parts[1]
    return None


def breaches(path: Path, source: str) -> list[str]:
    """Each private import of ``path`` the rule forbids, as ``file:line: module``."""
    relative = path.relative_to(TESTS)
    if relative.parts[0] == "_support" and relative.name in SUPPORT_ALLOWED:
        return []
    own = own_room(path)
    found = []
    for line, module in imported(ast.parse(source, str(path))):
        room = private_room(module)
        if room is not None and room != own:
            found.append(f"tests/{relative.as_posix()}:{line}: {module}")
    return found


def test_no_test_imports_another_rooms_private_module() -> None:
    found = [
        breach
        for path in sorted(TESTS.rglob("*.py"))
        for breach in breaches(path, path.read_text(encoding="utf-8"))
    ]
    assert not found, (
        "a private module of core imported outside its room's tests (use a public name, move "
        "the test into tests/core/<room>/, or go through tests/_support/internals.py):\n"
        + "\n".join(sorted(set(found)))
    )


def test_every_allowed_helper_exists_and_reaches_a_private_module() -> None:
    for name in SUPPORT_ALLOWED:
        source = (TESTS / "_support" / name).read_text(encoding="utf-8")
        reached = [m for _, m in imported(ast.parse(source)) if private_room(m) is not None]
        assert reached, f"tests/_support/{name} is allowed private imports it no longer makes"


def test_the_rule_sees_each_way_of_importing() -> None:
    """The check itself: each form is caught outside the room and passes inside it."""
    assert {"engine", "store", "vault"} <= ROOMS
    forms = [
        "import cuecard.core.engine._table as t\n",
        "from cuecard.core.engine._table import write_table\n",
        "from cuecard.core.store import _compiler\n",
        "def f():\n    from cuecard.core.vault.folder._promote import write_review\n",
        "if TYPE_CHECKING:\n    from cuecard.core.engine._text import strip_invisibles\n",
        "import importlib\nm = importlib.import_module('cuecard.core.engine._schedule')\n",
    ]
    outside = TESTS / "hooks" / "test_x.py"
    other_room = TESTS / "core" / "recall" / "test_x.py"
    for form in forms:
        assert breaches(outside, form), form
        assert breaches(other_room, form), form
    assert not breaches(TESTS / "core" / "engine" / "test_x.py", forms[0])
    assert not breaches(TESTS / "core" / "store" / "test_x.py", forms[2])
    assert not breaches(TESTS / "core" / "vault" / "test_x.py", forms[3])
    public = "from cuecard.core.engine import Footprint\nimport cuecard.core.vault.folder\n"
    assert not breaches(outside, public)
    assert breaches(TESTS / "_support" / "other.py", forms[0])
    assert not breaches(TESTS / "_support" / "internals.py", forms[0])
