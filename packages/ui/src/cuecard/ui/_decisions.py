"""Decisions on what waits, as change routes: a batch of candidates, an archive request.

The rules are core's (``cuecard.core.review.Decisions``), the same the terminal's
``cuecard accept|reject|archive`` follow; these routes only read the body and answer.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import NotFound
from cuecard.ui._body import BadRequest, Work, ok, text
from cuecard.ui._project import Project

__all__ = ["decision_routes"]


def decision_routes(project: Project) -> list[tuple[str, Work]]:
    """Decisions on what waits: a batch of candidates, an archive request."""
    return [
        ("/api/batch", partial(_batch, project)),
        ("/api/requests/{ident}", partial(_request_decision, project)),
    ]


def _batch(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    name = text(data, "batch", 100)
    decision = text(data, "decision", 20)
    if not name or decision not in ("accept", "reject"):
        raise BadRequest("give batch and decision (accept or reject)")
    done = project.decisions.decide_batch(name, decision)
    return ok(done.message, **done.details)


def _request_decision(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    decision = text(data, "decision", 20)
    item = project.request(str(request.path_params["ident"]))
    if item is None or item.get("resolved"):
        raise NotFound(f"no open request {request.path_params['ident']}")
    if decision not in ("archive", "dismiss"):
        raise BadRequest("decision must be archive or dismiss")
    done = project.decisions.decide_request(str(item.get("id")), decision)
    return ok(done.message, compile=done.details["compile"])
