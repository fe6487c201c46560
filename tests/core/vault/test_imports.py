"""The vault's import graph, read from its sources: no module cycle, and neither backend reaches
the other.

Every import counts, wherever it is written (module top, inside a function, under
``TYPE_CHECKING``): a lazy import is still a dependency, and a cycle of them is still a tangle.
import-linter checks the two backends' independence on the real import graph too; this test
adds cycles, which it cannot express.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

VAULT = Path(__file__).resolve().parents[3] / "packages/core/src/cuecard/core/vault"
PACKAGE = "cuecard.core.vault"


def modules() -> dict[str, Path]:
    """Every module of the vault package, by dotted name."""
    found = {}
    for source in sorted(VAULT.rglob("*.py")):
        parts = list(source.relative_to(VAULT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([PACKAGE, *parts])] = source
    return found


def imports_of(source: Path, known: set[str]) -> set[str]:
    """The vault modules ``source`` imports (``from pkg import _mod`` names the module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module:
            named = {f"{node.module}.{a.name}" for a in node.names} & known
            if named:
                found.update(named)
            elif node.module in known:
                found.add(node.module)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    # The package itself re-exports lazily (names as strings): importing it imports nothing.
    return {name: imports_of(path, known) - {name, PACKAGE} for name, path in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_lazy_and_type_only_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    from cuecard.core.vault.folder._vault import Vault\n"
        "def f():\n"
        "    from cuecard.core.vault.postgres import _schema\n",
        encoding="utf-8",
    )
    known = set(modules())
    assert imports_of(source, known) == {
        "cuecard.core.vault.folder._vault",
        "cuecard.core.vault.postgres._schema",
    }


def test_the_vault_has_no_import_cycle() -> None:
    assert cycles(graph()) == []


@pytest.mark.parametrize(("backend", "other"), [("folder", "postgres"), ("postgres", "folder")])
def test_a_backend_never_imports_the_other(backend: str, other: str) -> None:
    edges = graph()
    crossing = {
        (name, target)
        for name, targets in edges.items()
        if name.startswith(f"{PACKAGE}.{backend}")
        for target in targets
        if target.startswith((f"{PACKAGE}.{other}", f"{PACKAGE}.transfer"))
    }
    assert crossing == set()


def test_the_interface_names_no_backend() -> None:
    """``_backend`` is the protocol alone: it imports no backend, not even lazily."""
    edges = graph()
    assert {
        target
        for target in edges[f"{PACKAGE}._backend"]
        if target.startswith((f"{PACKAGE}.folder", f"{PACKAGE}.postgres", f"{PACKAGE}.transfer"))
    } == set()


def test_the_factory_opens_a_backend_only_when_asked() -> None:
    """``_factory`` imports a backend's package only inside ``open_backend`` (and the mirror
    inside the folder's change hook): importing it imports neither backend."""
    tree = ast.parse((VAULT / "_factory.py").read_text(encoding="utf-8"))
    top = {
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert not {m for m in top if m.startswith((f"{PACKAGE}.folder", f"{PACKAGE}.postgres"))}
    assert {f"{PACKAGE}.folder._backend", f"{PACKAGE}.postgres._backend"} <= graph()[
        f"{PACKAGE}._factory"
    ]


def test_the_public_package_exports_nothing_backend_specific() -> None:
    """What ``cuecard.core.vault`` publishes is the interface: each name is defined outside the
    two backends and the transfer package (their own packages publish what only they have)."""
    import cuecard.core.vault as vault
    import cuecard.core.vault.folder as folder

    where = vault._EXPORTS  # the lazy re-export table: where each public name is defined
    assert set(where) == set(vault.__all__)
    assert where["open_backend"] == f"{PACKAGE}._factory"
    assert where["Backend"] == f"{PACKAGE}._backend"
    assert {
        name
        for name, module in where.items()
        if module.startswith((f"{PACKAGE}.folder", f"{PACKAGE}.postgres", f"{PACKAGE}.transfer"))
    } == set()
    assert {"Vault", "FolderBackend", "cache_dir", "notes_index", "submit"} <= set(folder.__all__)
