"""The vault's review as change routes: conflicts, the inbox, pending promotions, forgetting.

What the vault has to say while a change runs (waiting for its lock, its mirror not updated) goes
to the project's ``notify`` and into the answer as ``"warnings"``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import NotFound
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


def _warned(message: str, heard: list[str]) -> JSONResponse:
    """The answer to a vault change, with the lines the vault had for the user, if any."""
    return ok(message, warnings=heard) if heard else ok(message)


def _vault_conflict(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    decision = text(data, "decision", 20)
    heard: list[str] = []
    with project.open_vault(heard=heard) as vault:
        conflict = vault.adjudicate(str(request.path_params["ident"]), decision)
    return _warned(f"conflict {conflict.id}: {decision}", heard)


def _vault_review(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    heard: list[str] = []
    with project.open_vault(heard=heard) as vault:
        found = vault.review()
    return _warned(
        f"reviewed the inbox: {len(found.items)} pending, {found.queued} new conflict(s), "
        f"{found.review.duplicates} duplicate(s)",
        heard,
    )


def _vault_pending_drop(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    raw = str(request.path_params["ident"])
    if not raw.isdigit() or len(raw) > 18:
        raise NotFound(f"pending item {raw[:40]!r}: no such item")
    heard: list[str] = []
    with project.open_vault(heard=heard) as vault:
        item = vault.drop_pending(int(raw))
    if item is None:
        raise NotFound(f"pending item {raw}: no such item (review the inbox again)")
    return _warned(f"left out of the next promotion: {item.fact[:80]}", heard)


def _vault_apply(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    heard: list[str] = []
    with project.open_vault(heard=heard) as vault:
        done, _ = vault.apply(auto=False)
    return _warned(
        f"promoted {len(done.promoted)} fact(s); {len(done.archived)} inbox file(s) archived",
        heard,
    )


def _vault_forget(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    heard: list[str] = []
    with project.open_vault(heard=heard) as vault:
        moved = vault.forget(today=project.today(), days=project.forget_days, apply=True)
        where = vault.places.forgotten
    return _warned(f"moved {len(moved)} fact(s) to {where}", heard)
