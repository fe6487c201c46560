"""Decisions on what waits, as change routes: a batch of candidates, an archive request."""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import CuecardError, Memory, NotFound, ValidationError
from cuecard.ui._body import BadRequest, Work, ok, text
from cuecard.ui._edits import EditRefused, with_status
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
    members = [m for m in project.store.memories() if m.batch == name and m.status == "candidate"]
    requests = [r for r in project.requests() if r.get("batch") == name]
    if not members and not requests:
        raise NotFound(f"batch {name!r} has nothing waiting")
    done: list[str] = []
    refused: list[dict[str, Any]] = []
    left: list[dict[str, Any]] = []
    for memory in members:
        if memory.revises:
            left.append({"id": memory.id, "reason": "a revision: decide it on its own"})
            continue
        try:
            _decide_member(project, memory, name, decision)
        except (CuecardError, EditRefused) as exc:
            reasons = exc.refusals if isinstance(exc, ValidationError) else [str(exc)]
            refused.append({"id": memory.id, "title": memory.title, "reasons": reasons})
            continue
        project.record(memory.id, "batch-" + decision, batch=name)
        done.append(memory.id)
    for item in requests:
        try:
            if decision == "accept":
                _carry_out(project, item)
            else:
                _resolve(project, item, "dismissed")
            done.append(str(item.get("id")))
        except CuecardError as exc:
            refused.append(
                {"id": item.get("id"), "title": "archive request", "reasons": [str(exc)]}
            )
    compiled = project.recompile()
    verb = "accepted" if decision == "accept" else "rejected"
    said = f"batch {name}: {len(done)} {verb}, {len(refused)} refused, {len(left)} left to you"
    return ok(said, done=done, refused=refused, left=left, compile=compiled)


def _decide_member(project: Project, memory: Memory, name: str, decision: str) -> None:
    """Accept one candidate of batch ``name``, or archive it as rejected with the batch."""
    store = project.store
    if decision == "accept":
        store.accept(memory.id, reviewer=project.reviewer)
        return
    with store.transaction() as tx:
        tx.put(
            with_status(
                tx.get(memory.id),
                "archived",
                reviewer=project.reviewer,
                now=store.now(),
                note=f"rejected with batch {name}",
            )
        )


def _request_decision(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    decision = text(data, "decision", 20)
    item = project.request(str(request.path_params["ident"]))
    if item is None or item.get("resolved"):
        raise NotFound(f"no open request {request.path_params['ident']}")
    if decision == "archive":
        said = _carry_out(project, item)
    elif decision == "dismiss":
        _resolve(project, item, "dismissed")
        said = "request dismissed; the memory stays as it is"
    else:
        raise BadRequest("decision must be archive or dismiss")
    compiled = project.recompile()
    return ok(said, compile=compiled)


# --- archive requests ----------------------------------------------------------------------------


def _resolve(project: Project, item: dict[str, Any], decision: str) -> None:
    store = project.store
    resolved = {
        **item,
        "resolved": decision,
        "resolved_by": project.reviewer,
        "resolved_at": store.now().isoformat(),
    }
    with store.transaction() as tx:
        tx.put_request(resolved)


def _carry_out(project: Project, item: dict[str, Any]) -> str:
    """Archive the request's target if it is still live, and close the request."""
    store = project.store
    target_id = str(item.get("target", ""))
    with store.transaction() as tx:
        try:
            target = tx.get(target_id)
        except NotFound:
            target = None
        if target is not None and target.live:
            reason = str(item.get("reason") or "archived on request")
            tx.put(
                with_status(
                    target, "archived", reviewer=project.reviewer, now=store.now(), note=reason
                )
            )
            said = f"memory {target.id[:8]} archived"
        else:
            said = "the target is no longer live; request closed"
        tx.put_request(
            {
                **item,
                "resolved": "archived",
                "resolved_by": project.reviewer,
                "resolved_at": store.now().isoformat(),
            }
        )
    if target is not None:
        project.record(target.id, "status", before=target.status.value, after="archived")
    return said
