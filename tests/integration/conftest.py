"""Fixtures of the cross-distribution tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests._support.dsh import Home, isolate, seed_vault


@pytest.fixture(scope="module")
def dsh_seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    """A vault with promoted facts (``tests._support.dsh.FACTS``), as the DSH adapter tests'
    ``seeded``, shared by the read-only tests of one module."""
    with pytest.MonkeyPatch.context() as mp:
        h = isolate(tmp_path_factory.mktemp("seeded"), mp)
        seed_vault()
        yield h
