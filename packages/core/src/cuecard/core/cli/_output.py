"""Shared output for commands: one JSON object for scripts, errors on stderr, exit codes."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from cuecard.core.base._errors import CuecardError, UsageError, ValidationError

__all__ = ["CLOSED_PIPE", "closed_pipe", "emit_json", "error", "run_command"]

# The exit status of a command whose reader went away (``cuecard list | head``): that of a process
# ended by SIGPIPE, as other command-line tools report it.
CLOSED_PIPE = 141


def emit_json(value: dict[str, Any]) -> None:
    """Print one JSON object on stdout."""
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def error(message: str) -> None:
    for line in message.splitlines() or [message]:
        print(f"cuecard: {line}", file=sys.stderr)


def closed_pipe() -> int:
    """Stop quietly after the reader of stdout closed the pipe; returns the exit status.

    What is still buffered for stdout can never be written, and Python would report that at exit
    as an error: stdout is pointed at the null device instead, so the process ends silently.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (captured, closed)
        pass
    return CLOSED_PIPE


def _bad_text(exc: UnicodeError) -> str:
    """One line for text that is not UTF-8 (it reached a strict decoder or encoder), saying where
    without repeating it."""
    if isinstance(exc, UnicodeDecodeError):
        byte = exc.object[exc.start : exc.start + 1].hex()
        return f"the input is not UTF-8 text (byte 0x{byte} at offset {exc.start})"
    return "the input holds a lone surrogate or a byte that is not UTF-8; send UTF-8 text"


def run_command(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command and turn cuecard's errors into messages and exit codes.

    A reader that stops early (``| head``) ends the command quietly with status ``CLOSED_PIPE``.
    """
    try:
        code = run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return closed_pipe()
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
    except UnicodeError as exc:  # text that reached a strict codec: the input's fault
        error(_bad_text(exc))
        return 1
    except RecursionError:
        error("the input nests too deeply")
        return 1
    except Exception as exc:
        from cuecard.core.vault._errors import database_error

        if not database_error(exc):
            raise
        # (A server gone, a statement refused: the person's problem to see, not a traceback.)
        error(f"the PostgreSQL vault: {str(exc).strip() or type(exc).__name__}")
        return 1
