"""What mypy's overrides for tests cannot tell apart: in a test module only a test function (and a
fixture) may leave its parameters untyped; every helper is typed like the packages' code."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def untyped_helpers(source: str) -> list[str]:
    """``name:line`` of each function in ``source`` that is neither a test nor a fixture and
    leaves a parameter (other than ``self``/``cls``) or its return unannotated."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.name.startswith("test_"):
            continue
        if any("fixture" in ast.unparse(d) for d in node.decorator_list):
            continue
        a = node.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]
        bare = [p.arg for p in params if p.annotation is None and p.arg not in ("self", "cls")]
        if bare or node.returns is None:
            found.append(f"{node.name}:{node.lineno}")
    return found


def test_the_rule_tells_a_helper_from_a_test_and_a_fixture() -> None:
    source = (
        "import pytest\n"
        "def test_a(tmp_path): pass\n"
        "@pytest.fixture\ndef store(tmp_path): pass\n"
        "def helper(x) -> int: return 1\n"
        "def no_return(x: int): return 1\n"
        "def varargs(*args) -> None: pass\n"
        "def typed(x: int, *args: str, **kw: object) -> None: pass\n"
        "class C:\n    def method(self, x: int) -> None: pass\n"
    )
    assert untyped_helpers(source) == ["helper:5", "no_return:6", "varargs:7"]


def test_every_helper_under_tests_is_typed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "tests" in config["tool"]["mypy"]["files"]  # the rule below rests on mypy seeing them
    found = {
        str(path.relative_to(ROOT)): untyped
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (untyped := untyped_helpers(path.read_text(encoding="utf-8")))
    }
    assert found == {}
