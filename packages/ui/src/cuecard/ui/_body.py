"""A change's body and answer: one bounded JSON object in, ``{"ok": true, "message"}`` out."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import CuecardError

__all__ = ["MAX_DEPTH", "BadRequest", "Work", "ok", "read_body", "text", "too_deep"]

Work = Callable[[Request, dict[str, Any]], JSONResponse]
"""A change: the request and its body in, the answer out."""


class BadRequest(CuecardError):
    """The body is not what the route takes (answered 400)."""


def ok(message: str, **extra: Any) -> JSONResponse:
    """A change's 200 answer: ``{"ok": true, "message": …, **extra}``."""
    return JSONResponse({"ok": True, "message": message, **extra})


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a body may have; no change needs more than a few."""


def too_deep(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests arrays and objects deeper than ``limit`` (strings skipped)."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


async def read_body(request: Request) -> dict[str, Any]:
    """The request's body as one JSON object (an empty body is ``{}``); ``BadRequest`` else."""
    raw = await request.body()
    if too_deep(raw):
        raise BadRequest(f"the body nests arrays or objects deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise BadRequest("the body must be one JSON object")
    return data


def text(data: dict[str, Any], key: str, limit: int = 1000) -> str:
    """The string field ``key`` (``""`` when absent), stripped and cut at ``limit``."""
    value = data.get(key, "")
    if not isinstance(value, str):
        raise BadRequest(f"{key} must be a string")
    return value.strip()[:limit]
