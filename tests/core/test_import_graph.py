"""No import cycle inside any distribution, and core's top level holds only its public modules
and its rooms. Every module is parsed with ``ast``.

The graph holds every import written: those at module level, those inside functions (a lazy
import is still a dependency, only a later one) and those under ``if TYPE_CHECKING:`` (a type
one module needs from another is a dependency of the reader too: a circle of them leaves no
order to read the modules in; the shared type moves down instead). It leaves out the lazy
re-export tables (``_EXPORTS``) of the public modules, which name modules as strings. ``from a
import b`` is an edge to ``a.b`` when that is a module of the package, else to ``a``; a module's
own package (imported implicitly first) is not an edge.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

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


def module_names(source: Path) -> dict[str, Path]:
    """Every module under ``source`` (a ``src`` folder), by dotted name."""
    found = {}
    for path in sorted(source.rglob("*.py")):
        parts = list(path.relative_to(source).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(
    name: str, tree: ast.Module, modules: set[str], *, is_package: bool = False
) -> dict[str, int]:
    """The modules of ``modules`` that module ``name`` imports, each with its first line
    (``is_package``: the module is a package's ``__init__``, for relative imports)."""
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in modules and target != name:
            found.setdefault(target, line)

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child.lineno)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = name.split(".")
                    anchor = anchor[: len(anchor) - child.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    add(full if full in modules else base, child.lineno)
            walk(child)

    walk(tree)
    return found


def import_graph(source: Path, package: str) -> dict[str, dict[str, int]]:
    """``module -> {imported module: line}`` for every module of ``package`` under ``source``."""
    modules = {
        n: p for n, p in module_names(source).items() if n == package or n.startswith(package + ".")
    }
    return {
        name: imports_of(
            name,
            ast.parse(path.read_text(encoding="utf-8")),
            set(modules),
            is_package=path.name == "__init__.py",
        )
        for name, path in modules.items()
    }


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: the graph may be deeper than the recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def one_loop(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    """A readable loop through ``component``: ``a -> b (line 3) -> a (line 9)``."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    queue = [start]
    while queue:  # breadth first from start, back to start: the shortest loop through it
        node = queue.pop(0)
        for nxt in sorted(graph[node]):
            if nxt not in members:
                continue
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                path.reverse()
                path.append(start)
                steps = [path[0]]
                for a, b in itertools.pairwise(path):
                    steps.append(f"{b} (line {graph[a][b]} of {a})")
                return " -> ".join(steps)
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    raise AssertionError(f"no loop through {component}")  # a component always has one


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
