"""The one place a test outside a room reaches one of core's private names.

A test reaches core through its public names; a private module (``cuecard.core.<room>._x``) is
imported only by the tests of its own room, under ``tests/core/<room>/``
(``tests/core/test_private_imports.py`` holds every test to that). A few tests of another room or
of a satellite still need a bound, a table writer or a switch that no public name offers; they take
it from here, so a move inside core changes this file and no test. Each name says why no public
name serves. Imported lazily, on first use, like core's own re-exports: importing this module
imports nothing of core.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.engine._footprint import MAX_BYTES as MAX_BYTES
    from cuecard.core.engine._footprint import PREVIEW_CHARS as PREVIEW_CHARS
    from cuecard.core.engine._path_limit import path_max as path_max
    from cuecard.core.engine._table import MAGIC as MAGIC
    from cuecard.core.engine._table import Table as Table
    from cuecard.core.engine._table import write_table as write_table
    from cuecard.core.engine._text import strip_invisibles as strip_invisibles
    from cuecard.core.lifecycle._maintain import maintain as maintain
    from cuecard.core.lifecycle._repofiles import GlobSet as GlobSet
    from cuecard.core.recall._order import pool_size as pool_size
    from cuecard.core.recall._order import settle as settle
    from cuecard.core.recall._values import NEIGHBOUR_SHARE as NEIGHBOUR_SHARE
    from cuecard.core.store._globs import expand_braces as expand_braces
    from cuecard.core.store._proposal import MemoryProposal as MemoryProposal
    from cuecard.core.store._proposal import RequestProposal as RequestProposal
    from cuecard.core.vault._settings import DEFAULT_WEIGHTS as DEFAULT_WEIGHTS
    from cuecard.core.vault._settings import RRF_K as RRF_K
    from cuecard.core.vault.folder._promote import write_review as write_review
    from cuecard.core.vault.folder._recall import extract as extract
    from cuecard.core.vault.postgres._mirror import pg_cache_dir as pg_cache_dir

# name: (module, attribute; None for the module itself), and why no public name serves.
_PRIVATE: dict[str, tuple[str, str | None]] = {
    # The footprint's bounds: the capture tests write a record just past them.
    "MAX_BYTES": ("cuecard.core.engine._footprint", "MAX_BYTES"),
    "PREVIEW_CHARS": ("cuecard.core.engine._footprint", "PREVIEW_CHARS"),
    # The longest path the hook matches: the doctor names a longer one.
    "path_max": ("cuecard.core.engine._path_limit", "path_max"),
    # The index table's format: the hostile-project tests forge a table the hook must refuse.
    "MAGIC": ("cuecard.core.engine._table", "MAGIC"),
    "Table": ("cuecard.core.engine._table", "Table"),
    "write_table": ("cuecard.core.engine._table", "write_table"),
    # The engine's own normalisation, which the store's validation must agree with.
    "strip_invisibles": ("cuecard.core.engine._text", "strip_invisibles"),
    # The scheduler, whose detached ``cuecard maintain`` a recorded session switches off.
    "schedule": ("cuecard.core.engine._schedule", None),
    # Maintenance run in-process (the command runs it in a child): tests of other rooms set it up.
    "maintain": ("cuecard.core.lifecycle._maintain", "maintain"),
    # The repository-files matcher the engine's glob matcher must agree with.
    "GlobSet": ("cuecard.core.lifecycle._repofiles", "GlobSet"),
    "expand_braces": ("cuecard.core.store._globs", "expand_braces"),
    # The compiler, whose threshold for worker processes a test lowers to compile in parallel.
    "compiler": ("cuecard.core.store._compiler", None),
    # The proposal models the skills' examples must validate against.
    "MemoryProposal": ("cuecard.core.store._proposal", "MemoryProposal"),
    "RequestProposal": ("cuecard.core.store._proposal", "RequestProposal"),
    # The ranking's constants, shared by recall and the vault backends the tests compare.
    "NEIGHBOUR_SHARE": ("cuecard.core.recall._values", "NEIGHBOUR_SHARE"),
    # The ranking's last steps (exact forms first, or the length prior), which recall and the
    # PostgreSQL vault's ranking in SQL share: the tests hand them a reference's pool.
    "pool_size": ("cuecard.core.recall._order", "pool_size"),
    "settle": ("cuecard.core.recall._order", "settle"),
    "DEFAULT_WEIGHTS": ("cuecard.core.vault._settings", "DEFAULT_WEIGHTS"),
    "RRF_K": ("cuecard.core.vault._settings", "RRF_K"),
    # A folder vault's review written with a chosen command line, for seeded pending lists.
    "write_review": ("cuecard.core.vault.folder._promote", "write_review"),
    # A note's recall entries, as the folder vault indexes them.
    "extract": ("cuecard.core.vault.folder._recall", "extract"),
    # Where a Postgres vault's local mirror lives.
    "pg_cache_dir": ("cuecard.core.vault.postgres._mirror", "pg_cache_dir"),
}

__all__ = sorted(_PRIVATE)


def __getattr__(name: str) -> Any:
    found = _PRIVATE.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attribute = found
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    setattr(sys.modules[__name__], name, value)
    return value


def __dir__() -> list[str]:
    return list(__all__)
