"""Outside text, decoded strictly: the one rule every surface applies to what it is given.

Command-line arguments, the standard input, files a command reads and JSON payloads (HTTP
bodies, DSH requests, proposals) must be UTF-8 text without a lone surrogate, and JSON must nest
at most ``MAX_NESTING`` levels. What breaks the rule is refused with ``BadInput``, whose message
says where and why and never repeats the text: a credential pasted in the wrong place is not
printed back. Standard library only.
"""

from __future__ import annotations

from cuecard.core.base._errors import BadInput

TYPE_CHECKING = False  # the cold search path checks its arguments here: no typing
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["MAX_NESTING", "check_arguments", "check_text", "decode_utf8", "load_json"]

MAX_NESTING = 64
"""The deepest nesting of arrays and objects a JSON payload may have; no record needs more than
a few levels, and Python's own parser gives up near a thousand."""


def _surrogate_at(text: str) -> int:
    """The index of the first lone surrogate in ``text``, or -1."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return -1


def check_text(text: str, where: str, *, from_os: bool = False) -> str:
    """``text`` itself, or ``BadInput`` when it holds a lone surrogate. With ``from_os`` (an
    argument, a file name) U+DC80..U+DCFF name the byte that was not UTF-8, as Python carries
    it."""
    at = _surrogate_at(text)
    if at >= 0:
        code = ord(text[at])
        what = (
            f"the byte 0x{code - 0xDC00:02x} (not UTF-8)"
            if from_os and 0xDC80 <= code <= 0xDCFF
            else f"a lone surrogate (U+{code:04X})"
        )
        raise BadInput(f"{where}: holds {what} at character {at}; send UTF-8 text")
    return text


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` decoded as UTF-8 (a leading byte-order mark dropped), or ``BadInput``."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"{where}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def check_arguments(argv: Sequence[str]) -> None:
    """``BadInput`` naming the first command-line argument that is not UTF-8 text (by its
    position and the option it belongs to, never by its text)."""
    for index, arg in enumerate(argv):
        if _surrogate_at(arg) < 0:
            continue
        option = arg.partition("=")[0] if arg.startswith("--") and "=" in arg else ""
        if not option and index and argv[index - 1].startswith("-") and argv[index - 1] != "-":
            option = argv[index - 1]
        name = option.lstrip("-")  # named only when it has an option's shape: text is not echoed
        shaped = option.isascii() and len(option) <= 40 and name.replace("-", "").isalnum()
        named = f" (the value of {option})" if shaped else ""
        check_text(arg, f"argument {index + 1}{named}", from_os=True)


def _check_value(value: Any, where: str, max_nesting: int) -> None:
    """``BadInput`` at the first key or string of a parsed value that holds a lone surrogate,
    or when it nests deeper than ``max_nesting``. Iterative: the depth cannot overflow it."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            check_text(item, f"{where}, {path}" if path else where)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth >= max_nesting:
            raise BadInput(f"{where}: nests arrays or objects deeper than {max_nesting} levels")
        if isinstance(item, dict):
            for key, inner in item.items():
                check_text(key, f"{where}, a key of {path or 'the object'}")
                named = len(key) <= 40 and key.isascii() and key.replace("-", "_").isidentifier()
                name = key if named else "[…]"  # a key is outside text too: not echoed
                stack.append((inner, f"{path}.{name}" if path else name, depth + 1))
        else:
            stack.extend((inner, f"{path}[{i}]", depth + 1) for i, inner in enumerate(item))


def load_json(data: bytes | str, where: str, *, max_nesting: int = MAX_NESTING) -> Any:
    """The JSON value in ``data``: UTF-8, nested at most ``max_nesting`` levels, every key and
    string free of lone surrogates (a ``\\ud800`` escape included); ``BadInput`` else, and for
    text that is not JSON at all."""
    import json  # here: json imports re, which the cold search path (checking arguments) avoids

    text = decode_utf8(data, where) if isinstance(data, bytes) else check_text(data, where)
    try:
        value = json.loads(text)
    except RecursionError:
        deeper = f"deeper than {max_nesting} levels"
        raise BadInput(f"{where}: nests arrays or objects {deeper}") from None
    except ValueError as exc:
        raise BadInput(f"{where}: is not valid JSON ({exc})") from None
    _check_value(value, where, max_nesting)
    return value
