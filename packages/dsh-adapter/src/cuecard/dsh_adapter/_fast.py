"""The plugins' paths without argparse: ``serve`` (the worker the plugins keep), and ``call
TOOL`` and ``recall`` as they are spawned one at a time (``--mode M``, ``--limit N``,
``--max-chars N``, the message on stdin).

Anything else (``--help``, ``--vault``, ``--json``, text arguments, a bad value) returns ``None``
and the full command line handles it, with its usual messages and exit codes.
"""

from __future__ import annotations

import sys

__all__ = ["fast"]

_MODES = ("auto", "always")
_RANGES = {"--limit": (1, 50), "--max-chars": (200, 20000)}


def _recall_options(words: list[str]) -> dict[str, str | int] | None:
    if len(words) % 2:
        return None
    found: dict[str, str | int] = {"--mode": "auto", "--limit": 5, "--max-chars": 1600}
    for name, value in zip(words[::2], words[1::2], strict=True):
        if name == "--mode" and value in _MODES:
            found[name] = value
        elif name in _RANGES and value.isdigit():
            low, high = _RANGES[name]
            if not low <= int(value) <= high:
                return None
            found[name] = int(value)
        else:
            return None
    return found


def fast(argv: list[str]) -> int | None:
    """Run a per-call command line and return its exit status, or ``None`` for the full CLI."""
    from cuecard.core import CuecardError, UsageError

    try:
        if len(argv) == 2 and argv[0] == "call" and not argv[1].startswith("-"):
            from cuecard.dsh_adapter._call import answer

            return answer(argv[1], None)
        if argv == ["serve"]:
            from cuecard.dsh_adapter._worker import serve

            return serve()
        if argv[:1] == ["recall"]:
            options = _recall_options(argv[1:])
            if options is None:
                return None
            from cuecard.dsh_adapter._recall import recall_text

            return recall_text(
                sys.stdin.buffer.read(64 * 1024).decode("utf-8", "replace"),
                mode=str(options["--mode"]),
                limit=int(options["--limit"]),
                max_chars=int(options["--max-chars"]),
                vault=None,
                as_json=False,
            )
    except UsageError as exc:
        print(f"cuecard: usage: {exc}", file=sys.stderr)
        return 2
    except CuecardError as exc:
        for line in str(exc).splitlines() or [str(exc)]:
            print(f"cuecard: {line}", file=sys.stderr)
        return 1
    return None
