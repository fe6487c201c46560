"""A change's body and answer: one bounded JSON object in, ``{"ok": true, "message"}`` out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import BadInput, CuecardError, load_json

__all__ = ["MAX_DEPTH", "BadRequest", "Work", "ok", "read_body", "text"]

Work = Callable[[Request, dict[str, Any]], JSONResponse]
"""A change: the request and its body in, the answer out."""


class BadRequest(CuecardError):
    """The body is not what the route takes (answered 400)."""


def ok(message: str, **extra: Any) -> JSONResponse:
    """A change's 200 answer: ``{"ok": true, "message": …, **extra}``."""
    return JSONResponse({"ok": True, "message": message, **extra})


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a body may have; no change needs more than a few."""


async def read_body(request: Request) -> dict[str, Any]:
    """The request's body as one JSON object (an empty body is ``{}``); ``BadRequest`` else."""
    try:  # UTF-8 without a lone surrogate, nested at most MAX_DEPTH levels: core's one rule
        data = load_json(await request.body() or b"{}", "the body", max_nesting=MAX_DEPTH)
    except BadInput as exc:
        raise BadRequest(str(exc)) from None
    if not isinstance(data, dict):
        raise BadRequest("the body must be one JSON object")
    return data


def text(data: dict[str, Any], key: str, limit: int = 1000) -> str:
    """The string field ``key`` (``""`` when absent), stripped and cut at ``limit``."""
    value = data.get(key, "")
    if not isinstance(value, str):
        raise BadRequest(f"{key} must be a string")
    return value.strip()[:limit]
