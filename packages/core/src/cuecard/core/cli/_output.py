"""Shared output for commands: one JSON object for scripts, errors on stderr, exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from cuecard.core._errors import CuecardError, UsageError, ValidationError

__all__ = ["emit_json", "error", "run_command"]


def emit_json(value: dict[str, Any]) -> None:
    """Print one JSON object on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def error(message: str) -> None:
    for line in message.splitlines() or [message]:
        print(f"cuecard: {line}", file=sys.stderr)


def run_command(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command and turn cuecard's errors into messages and exit codes."""
    try:
        return run(args)
    except UsageError as exc:
        error(f"usage: {exc}")
        return 2
    except ValidationError as exc:
        error("\n".join(exc.refusals))
        return 1
    except CuecardError as exc:
        error(str(exc))
        return 1
    except KeyboardInterrupt:
        error("interrupted")
        return 130
