"""Helpers the search tests share: the user config file and `vault search --json` results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["explain_of", "rows", "search", "write_config"]

Run = Callable[..., tuple[int, str, str]]


def write_config(tmp_path: Path, text: str) -> None:
    """The user config; the vector stream (tested in test_hybrid_vectors) is off unless the
    text sets weights, so the other tests run the standard-library streams only, and fast."""
    if "[recall]\n" in text and "weights" not in text:
        text = text.replace("[recall]\n", "[recall]\nweights = { vectors = 0 }\n")
    path = tmp_path / "config" / "cuecard" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def search(cc: Run, vault: str | Path, *args: str) -> dict[str, object]:
    """`cuecard vault search --json ARGS` on a folder or a URL; its JSON object."""
    code, out, err = cc("vault", "search", "--vault", str(vault), "--json", *args)
    assert code == 0, err
    value: dict[str, object] = json.loads(out)
    return value


def rows(value: dict[str, object]) -> list[dict[str, Any]]:
    found = value["results"]
    assert isinstance(found, list)
    return found


def explain_of(value: dict[str, object]) -> dict[str, object]:
    explain = value["explain"]
    assert isinstance(explain, dict)
    return explain
