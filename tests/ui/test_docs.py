"""The UI's README documents every option, queue and header, and shows the screenshots."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from cuecard.core.cli import build_parser
from cuecard.ui._guard import CSP
from cuecard.ui._queues import QUEUES, VAULT_QUEUES

README = Path(__file__).resolve().parents[2] / "packages/ui/README.md"


def _ui_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub, argparse._SubParsersAction)
    ui: argparse.ArgumentParser = sub.choices["ui"]
    return ui


def test_every_option_of_cuecard_ui_is_documented() -> None:
    text = README.read_text()
    options = [o for a in _ui_parser()._actions for o in a.option_strings if o.startswith("--")]
    assert {"--port", "--no-browser", "--vault", "--reviewer"} <= set(options)
    for option in options:
        if option != "--help":
            assert f"`{option}" in text, option


def test_every_queue_is_documented() -> None:
    text = README.read_text()
    names = list(QUEUES) + list(VAULT_QUEUES)
    for name in names:
        assert f"| `{name}` |" in text, name


def test_the_documented_policy_is_the_one_sent() -> None:
    text = " ".join(README.read_text().split())
    assert f"Content-Security-Policy: {CSP}" in text


def test_the_screenshots_shown_exist() -> None:
    shown = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README.read_text())
    assert len(shown) >= 6
    for rel in shown:
        path = README.parent / rel
        assert path.is_file(), rel
        assert path.read_bytes()[:4] == b"\x89PNG", rel
