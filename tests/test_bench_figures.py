"""How the benchmarks report a figure (``tools/bench/_figures.py``): the median of all the runs,
their spread, and the condition they ran under (wheels or editable, which revision)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "tools" / "bench"
sys.path.insert(0, str(BENCH))

from _figures import REVISION_FILE, condition, figure, revision  # noqa: E402

# Scripts in tools/bench that time nothing: the conversational set's generator.
TIMES_NOTHING = {"recall_conversations.py"}


def test_a_figure_is_the_median_of_every_run_with_its_spread_not_the_best_run() -> None:
    got = figure([0.9, 3.1, 1.2, 7.4, 1.0, 2.2])
    assert got == {"median": 1.7, "spread": [0.9, 7.4], "runs": 6}
    assert figure([5.0]) == {"median": 5.0, "spread": [5.0, 5.0], "runs": 1}
    assert figure([1.23456, 2.34567, 9.87654], 2) == {
        "median": 2.35,
        "spread": [1.23, 9.88],
        "runs": 3,
    }


def test_the_editable_checkout_reports_its_own_revision() -> None:
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    got = condition()
    assert got["installed"] == "editable"
    assert str(got["revision"]).split("+")[0] == head
    assert got["revision"] == revision(ROOT / "packages" / "core" / "src")


def test_a_folder_outside_any_repository_has_no_revision(tmp_path: Path) -> None:
    assert revision(tmp_path) is None


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with cuecard's core files in its site-packages, as a wheel puts
    them, and nothing of this checkout on its path."""
    env_dir = tmp_path_factory.mktemp("wheels") / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    shutil.copytree(ROOT / "packages" / "core" / "src" / "cuecard", Path(site) / "cuecard")
    return python


def _clean_env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin"}


def test_an_installed_cuecard_reports_wheels_and_the_revision_wheel_venv_recorded(
    installed: Path,
) -> None:
    prefix = installed.parent.parent
    (prefix / REVISION_FILE).unlink(missing_ok=True)
    assert condition(str(installed), _clean_env()) == {"installed": "wheels", "revision": None}
    (prefix / REVISION_FILE).write_text("0123456789ab+changes\n", encoding="utf-8")
    assert condition(str(installed), _clean_env()) == {
        "installed": "wheels",
        "revision": "0123456789ab+changes",
    }


def test_an_interpreter_without_cuecard_reports_no_condition(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    venv.EnvBuilder(with_pip=False).create(bare)
    got = condition(str(bare / "bin" / "python"), _clean_env())
    assert got == {"installed": None, "revision": None}


@pytest.mark.parametrize(
    "script",
    sorted(p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")),
)
def test_every_benchmark_reports_through_figures(script: str) -> None:
    if script in TIMES_NOTHING:
        return
    text = (BENCH / script).read_text(encoding="utf-8")
    assert "from _figures import" in text, f"{script} does not report through _figures"
    for part in ("figure(", "load()", "machine()"):
        assert part in text, (script, part)
    # redact.py times source trees on PYTHONPATH: their revisions are its condition
    assert "condition(" in text or "revision(" in text, script
