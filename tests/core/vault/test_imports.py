"""The vault's import graph, read from its sources: neither backend reaches the other, the
interface names no backend, and only the factory opens one.

The graph is the one ``tests/core/test_import_graph.py`` holds every distribution to no cycle
with (``tests/_support/import_graph.py``): every import counts, wherever it is written (module
top, inside a function, under ``TYPE_CHECKING``). import-linter checks the two backends'
independence on the real import graph too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cuecard.core.vault
from tests._support.import_graph import import_graph

SOURCE = Path(__file__).resolve().parents[3] / "packages/core/src"
PACKAGE = cuecard.core.vault.__name__
VAULT = SOURCE.joinpath(*PACKAGE.split("."))


def graph() -> dict[str, set[str]]:
    """``module -> modules of the vault it imports`` for every module of the vault."""
    return {name: set(targets) for name, targets in import_graph(SOURCE, PACKAGE).items()}


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
