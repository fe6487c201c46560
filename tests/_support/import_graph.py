"""The import graph of a package, read from its sources with ``ast``, and the cycles in it.

The graph holds every import written: those at module level, those inside functions (a lazy
import is still a dependency, only a later one) and those under ``if TYPE_CHECKING:`` (a type
one module needs from another is a dependency of the reader too: a circle of them leaves no
order to read the modules in; the shared type moves down instead). It leaves out the lazy
re-export tables (``_EXPORTS``) of the public modules, which name modules as strings. ``from a
import b`` is an edge to ``a.b`` when that is a module of the package, else to ``a``; a module's own
package (imported implicitly first) is not an edge.

``tests/core/test_import_graph.py`` holds every distribution to no cycle and tests the walk
itself; ``tests/core/vault/test_imports.py`` reads the vault's backends' edges from the same
graph.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

__all__ = ["cycles", "import_graph", "imports_of", "module_names", "one_loop"]


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
