"""No import cycle inside any distribution, and core's top level holds only its public modules
and its rooms. Every module is parsed with ``ast``; the graph (``tests/_support/import_graph.py``)
holds every import written, at module level, inside functions and under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests._support.import_graph import cycles, import_graph, one_loop

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "packages" / "core" / "src"
PACKAGE = "cuecard.core"
# Each distribution's source folder and package (a satellite imports core, never the reverse,
# so a circle lies inside one distribution).
DISTRIBUTIONS = {
    "core": "cuecard.core",
    "hooks": "cuecard.hooks",
    "dsh-adapter": "cuecard.dsh_adapter",
    "wp-projection": "cuecard.wp_projection",
    "ui": "cuecard.ui",
}
# Core's top level: its public modules and packages (docs/architecture.md lists what each
# holds), and its rooms, which publish nothing (each ``__init__`` says what it owns and what it
# may import; pyproject.toml holds each room's import contract).
PUBLIC_MODULES = {"__init__", "__about__", "fs", "harnesses", "review", "tools"}
PUBLIC_PACKAGES = {"cli", "engine", "recall", "vault"}
ROOMS = {"base", "store", "lifecycle", "doctor", "service"}


@pytest.mark.parametrize("folder", sorted(DISTRIBUTIONS))
def test_no_distribution_has_an_import_cycle(folder: str) -> None:
    package = DISTRIBUTIONS[folder]
    graph = import_graph(ROOT / "packages" / folder / "src", package)
    assert len(graph) > 10, f"{package}'s modules were not found"
    found = [one_loop(graph, c) for c in cycles(graph)]
    assert found == [], f"import cycles in {package}:\n" + "\n".join(found)


def strays(top: Path) -> list[str]:
    """What sits at core's top level (the folder ``top``) that is neither a public module nor a
    public package nor a room with its docstring."""
    found = []
    for entry in sorted(top.iterdir()):
        if entry.is_file() and entry.suffix == ".py":
            if entry.stem not in PUBLIC_MODULES:
                found.append(entry.name)
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            if entry.name in PUBLIC_PACKAGES:
                continue
            doc = ast.get_docstring(ast.parse((entry / "__init__.py").read_text("utf-8")))
            if entry.name not in ROOMS or doc is None or "May import" not in doc:
                found.append(f"{entry.name}/")
    return found


def test_core_top_level_holds_only_public_modules_and_rooms() -> None:
    top = SOURCE / "cuecard" / "core"
    assert (top / "engine" / "_engine.py").is_file()
    assert strays(top) == []


@pytest.mark.parametrize(
    ("added", "expected"),
    [
        ({"_helper.py": ""}, ["_helper.py"]),
        ({"helper.py": ""}, ["helper.py"]),
        ({"extra/__init__.py": '"""Extra.\n\nMay import: the foundation.\n"""\n'}, ["extra/"]),
        ({"store/__init__.py": '"""The store, with no word on its imports."""\n'}, ["store/"]),
        ({"store/__init__.py": '"""The store.\n\nMay import: the foundation.\n"""\n'}, []),
        ({"fs.py": "", "vault/__init__.py": "", "data/notes.txt": ""}, []),
    ],
    ids=[
        "private-module",
        "unlisted-module",
        "unlisted-room",
        "room-without-rule",
        "room",
        "public",
    ],
)
def test_a_stray_at_the_top_level_is_found(
    tmp_path: Path, added: dict[str, str], expected: list[str]
) -> None:
    assert strays(_write(tmp_path, added)) == expected


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"p/__init__.py": "", "p/a.py": "import p.b\n", "p/b.py": "from p import a\n"},
            ["p.a -> p.b (line 1 of p.a) -> p.a (line 1 of p.b)"],
        ),
        (
            {
                "p/__init__.py": "",
                "p/a.py": "def f():\n    from p.b import x\n",
                "p/b.py": "x = 1\nfrom p.c import y\n",
                "p/c.py": "y = 2\n\n\nclass C:\n    def m(self):\n        from p.a import f\n",
            },
            ["p.a -> p.b (line 2 of p.a) -> p.c (line 2 of p.b) -> p.a (line 6 of p.c)"],
        ),
        (
            {
                "p/__init__.py": "",
                "p/a.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from p.b import x\n",
                "p/b.py": "def f():\n    from p.a import TYPE_CHECKING\n",
            },
            ["p.a -> p.b (line 3 of p.a) -> p.a (line 2 of p.b)"],
        ),
        (
            {
                "p/__init__.py": "",
                "p/a.py": (
                    "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    import p.b\n"
                ),
                "p/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.a\n",
            },
            ["p.a -> p.b (line 5 of p.a) -> p.a (line 3 of p.b)"],
        ),
        (
            {
                "p/__init__.py": "",
                "p/a.py": "from p.b import x\n",
                "p/b.py": "import os\nx = os.sep\n",
            },
            [],
        ),
        (
            {
                "p/__init__.py": "",
                "p/s/__init__.py": "from . import t\n",
                "p/s/t.py": "import p.s\n",
            },
            ["p.s -> p.s.t (line 1 of p.s) -> p.s (line 1 of p.s.t)"],
        ),
    ],
    ids=[
        "module-level",
        "function-level-through-three",
        "type-checking-only",
        "type-checking-else",
        "acyclic",
        "relative",
    ],
)
def test_the_walk_finds_each_cycle(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    graph = import_graph(_write(tmp_path, files), "p")
    assert [one_loop(graph, c) for c in cycles(graph)] == expected
