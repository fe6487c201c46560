"""Fixtures of the real-harness tests.

The harnesses come from ``scripts/deps/harnesses.sh`` (``scripts/test`` runs it). Without them a
test skips, saying how to install them; in CI (``CI`` set) a missing harness fails instead.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

# the shared assertions of the harness tests report their values as a test's own do
pytest.register_assert_rewrite("tests.e2e._support._project")

from tests.e2e._support._project import Project, make_project  # noqa: E402


@pytest.fixture
def new_project(tmp_path: Path) -> Callable[..., Project]:
    """``new_project(harness, opt_in=True, user=False, install=[...])``: a project set up as the
    README tells a user (see ``_support._project.make_project``), in this test's folder."""
    count = 0

    def make(
        harness: str,
        *,
        opt_in: bool = True,
        user: bool = False,
        install: list[str] | None = None,
        prepare: Callable[[Project], None] | None = None,
    ) -> Project:
        nonlocal count
        count += 1
        return make_project(
            tmp_path / f"p{count}",
            harness,
            opt_in=opt_in,
            user=user,
            install=install,
            prepare=prepare,
        )

    return make
