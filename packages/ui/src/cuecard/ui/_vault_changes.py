"""The vault's review as change routes: conflicts, the inbox, pending promotions, forgetting.

The rules are core's (``cuecard.core.review.Decisions``), as for the terminal's commands.

What the vault has to say while a change runs (waiting for its lock, its mirror not updated) goes
to the project's ``notify`` and into the answer as ``"warnings"``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import NotFound
from cuecard.core.review import Decision
from cuecard.ui._body import Work, ok, text
from cuecard.ui._project import Project

__all__ = ["vault_routes"]


def vault_routes(project: Project) -> list[tuple[str, Work]]:
    """The vault's review: conflicts, the inbox, pending promotions, forgetting."""
    return [
        ("/api/vault/conflicts/{ident}", partial(_vault_conflict, project)),
        ("/api/vault/review", partial(_vault_review, project)),
        ("/api/vault/pending/{ident}/drop", partial(_vault_pending_drop, project)),
        ("/api/vault/apply", partial(_vault_apply, project)),
        ("/api/vault/forget", partial(_vault_forget, project)),
    ]


def _answer(done: Decision) -> JSONResponse:
    """The answer to a vault change, with the lines the vault had for the user, if any."""
    return ok(done.message, warnings=done.warnings) if done.warnings else ok(done.message)


def _vault_conflict(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    decision = text(data, "decision", 20)
    return _answer(project.decisions.adjudicate(str(request.path_params["ident"]), decision))


def _vault_review(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    return _answer(project.decisions.review_inbox())


def _vault_pending_drop(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    raw = str(request.path_params["ident"])
    if not raw.isdigit() or len(raw) > 18:
        raise NotFound(f"pending item {raw[:40]!r}: no such item")
    return _answer(project.decisions.drop_pending(int(raw)))


def _vault_apply(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    return _answer(project.decisions.apply_pending(auto=False))


def _vault_forget(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    return _answer(project.decisions.forget())
