"""``--limit`` of the search commands (``vault search``, ``recall``)."""

from __future__ import annotations

import argparse

__all__ = ["LIMIT_RANGE", "limit_arg"]

LIMIT_RANGE = (1, 100)


def limit_arg(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--limit {value!r} must be a whole number") from None
    if not LIMIT_RANGE[0] <= number <= LIMIT_RANGE[1]:
        raise argparse.ArgumentTypeError(
            f"--limit {number} must be between {LIMIT_RANGE[0]} and {LIMIT_RANGE[1]}"
        )
    return number
