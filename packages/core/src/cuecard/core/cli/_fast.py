"""The per-call commands' fast path: ``vault search`` and ``recall`` without argparse.

Their argument grammar is small (words, ``--limit N``, ``--vault PATH``, ``--json``, ``--``, and
for ``vault search`` also ``--mode bm25|hybrid`` and ``--explain``), so it is read by hand;
anything else (``--help``, an unknown option, a bad value, no query) returns ``None`` and the
full argparse CLI handles it, with its usual messages and exit codes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the per-call path: no typing, no collections.abc
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["fast_command"]

LIMIT_RANGE = (1, 100)


def _parse(
    words: list[str], extra: dict[str, object] | None = None
) -> tuple[list[str], int, str | None, bool] | None:
    """The query, limit, vault and --json; ``extra`` (when given) takes --mode and --explain."""
    query: list[str] = []
    limit, vault, as_json = 8, None, False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            query.extend(words[i + 1 :])
            break
        name, eq, value = word.partition("=")
        if name in ("--limit", "--vault"):
            if (taken := _value(words, i, eq, value)) is None:
                return None
            i, value = taken
            if name == "--vault":
                vault = value
            else:
                if not value.isdigit() or not LIMIT_RANGE[0] <= int(value) <= LIMIT_RANGE[1]:
                    return None
                limit = int(value)
        elif word == "--json":
            as_json = True
        elif extra is not None and name == "--mode":
            if (taken := _value(words, i, eq, value)) is None or taken[1] not in ("bm25", "hybrid"):
                return None
            i, value = taken
            extra["mode"] = value
        elif extra is not None and word == "--explain":
            extra["explain"] = True
        elif word.startswith("-") and word != "-":
            return None
        else:
            query.append(word)
        i += 1
    if not query:
        return None
    return query, limit, vault, as_json


def _value(words: list[str], i: int, eq: str, value: str) -> tuple[int, str] | None:
    """The value of the option at ``i`` (after its ``=``, else the next word) and the index of
    the word it ends on; ``None`` when the value is missing."""
    if eq:
        return i, value
    if i + 1 >= len(words):
        return None
    return i + 1, words[i + 1]


def fast_command(argv: list[str]) -> Callable[[], int] | None:
    """A runner for a per-call command line, or ``None`` to use the full CLI."""
    extra: dict[str, object] = {}
    if argv[:2] == ["vault", "search"]:
        parsed = _parse(argv[2:], extra)
        from_module = "run_search"
    elif argv[:1] == ["recall"]:
        parsed = _parse(argv[1:])
        from_module = "run_recall"
    else:
        return None
    if parsed is None:
        return None
    query, limit, vault, as_json = parsed

    def run() -> int:
        from cuecard.core.base._errors import CuecardError

        try:
            from cuecard.core.cli import _search

            command = getattr(_search, from_module)
            return int(command(vault, " ".join(query), limit, as_json, **extra))
        except (Exception, KeyboardInterrupt) as exc:
            from cuecard.core.cli._output import run_command
            from cuecard.core.vault._errors import database_error

            expected = CuecardError | KeyboardInterrupt | UnicodeError | RecursionError
            if not isinstance(exc, expected) and not database_error(exc):
                raise
            caught = exc

            def again(_: object) -> int:
                raise caught

            return run_command(again, None)  # type: ignore[arg-type]

    return run
