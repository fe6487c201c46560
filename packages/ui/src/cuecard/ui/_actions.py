"""The changes a person makes, as JSON routes. Each one validates first, writes through the store's
transaction (or the vault's lock), journals what it did, and recompiles the trigger index.

Answers: 200 ``{"ok": true, "message": …}`` (plus ``"warnings": [lines]`` when the vault had
something to say: it waited for its lock, its mirror was not updated); 422 ``{"error":
"invalid", "errors": [{field, message}]}`` when a field breaks a rule (nothing written); 409
``{"error": "refused", "message"}`` when the store refuses; 400 for a body that is not one JSON
object; 404 for an unknown id.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from cuecard.core import (
    CuecardError,
    Memory,
    NotFound,
    ProjectConfig,
    TopicConflict,
    ValidationError,
)
from cuecard.ui._edits import EditRefused, FieldError, edited, field_errors, with_status
from cuecard.ui._project import Project

__all__ = ["routes"]

Handler = Callable[[Request], Awaitable[JSONResponse]]


class _BadRequest(CuecardError):
    pass


def _ok(message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"ok": True, "message": message, **extra})


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a body may have; no change needs more than a few."""


def _too_deep(raw: bytes, limit: int = MAX_DEPTH) -> bool:
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


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if _too_deep(raw):
        raise _BadRequest(f"the body nests arrays or objects deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError) as exc:
        raise _BadRequest(f"the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise _BadRequest("the body must be one JSON object")
    return data


def _guarded(work: Callable[[Request, dict[str, Any]], JSONResponse]) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        try:
            return work(request, await _body(request))
        except _BadRequest as exc:
            return JSONResponse({"error": "bad_request", "message": str(exc)}, status_code=400)
        except EditRefused as exc:
            errors = [e.as_json() for e in exc.errors]
            return JSONResponse({"error": "invalid", "errors": errors}, status_code=422)
        except ValidationError as exc:
            errors = [e.as_json() for e in field_errors(exc.refusals)]
            return JSONResponse({"error": "invalid", "errors": errors}, status_code=422)
        except NotFound as exc:
            return JSONResponse({"error": "not_found", "message": str(exc)}, status_code=404)
        except TopicConflict as exc:
            errors = [{"field": "topic", "message": str(exc)}]
            return JSONResponse({"error": "invalid", "errors": errors}, status_code=422)
        except CuecardError as exc:
            return JSONResponse({"error": "refused", "message": str(exc)}, status_code=409)

    return handler


def _memory(project: Project, request: Request) -> Memory:
    return project.store.get(str(request.path_params["ident"]))


def _text(data: dict[str, Any], key: str, limit: int = 1000) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise _BadRequest(f"{key} must be a string")
    return value.strip()[:limit]


Work = Callable[[Request, dict[str, Any]], JSONResponse]


def routes(project: Project) -> list[tuple[str, Handler]]:
    """``(path, handler)`` for every change route."""
    table: list[tuple[str, Work]] = [
        *_memory_routes(project),
        *_decision_routes(project),
        ("/api/settings", partial(_settings, project)),
        *_vault_routes(project),
    ]
    return [(path, _guarded(work)) for path, work in table]


def _memory_routes(project: Project) -> list[tuple[str, Work]]:
    """Changes to one memory: its fields, its status, its review mark, a dry run of triggers."""
    return [
        ("/api/memories/{ident}/edit", partial(_edit, project)),
        ("/api/memories/{ident}/status", partial(_status, project)),
        ("/api/memories/{ident}/reviewed", partial(_reviewed, project)),
        ("/api/memories/{ident}/dryrun", partial(_dryrun, project)),
    ]


def _decision_routes(project: Project) -> list[tuple[str, Work]]:
    """Decisions on what waits: a batch of candidates, an archive request."""
    return [
        ("/api/batch", partial(_batch, project)),
        ("/api/requests/{ident}", partial(_request_decision, project)),
    ]


def _vault_routes(project: Project) -> list[tuple[str, Work]]:
    """The vault's review: conflicts, the inbox, pending promotions, forgetting."""
    return [
        ("/api/vault/conflicts/{ident}", partial(_vault_conflict, project)),
        ("/api/vault/review", partial(_vault_review, project)),
        ("/api/vault/pending/{ident}/drop", partial(_vault_pending_drop, project)),
        ("/api/vault/apply", partial(_vault_apply, project)),
        ("/api/vault/forget", partial(_vault_forget, project)),
    ]


# --- one memory ----------------------------------------------------------------------------------


def _edit(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    store = project.store
    changes = data.get("changes")
    if not isinstance(changes, dict) or not changes:
        raise _BadRequest("changes must be a non-empty JSON object of fields")
    with store.transaction() as tx:
        memory = tx.get(store.resolve_id(str(request.path_params["ident"])))
        others = [m for m in store.memories() if m.id != memory.id]
        updated = edited(memory, changes, others)
        changed = sorted(
            k for k in changes if getattr(updated, k, None) != getattr(memory, k, None)
        )
        if not changed:
            return _ok("nothing changed; nothing was written", id=memory.id, fields=[])
        saved = tx.put(updated)
    project.record(saved.id, "edit", fields=changed)
    compiled = project.recompile()
    said = f"saved {', '.join(changed)}; the index was recompiled"
    for item in compiled["left_out"]:
        if item.get("id") == saved.id:
            said += f"; its check was left out of the index: {item.get('reason')}"
    return _ok(said, id=saved.id, fields=changed, compile=compiled)


def _status(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    store = project.store
    target = _text(data, "status", 20)
    note = _text(data, "note", 500)
    memory = _memory(project, request)
    before = memory.status.value
    if memory.status == "candidate" and target == "active":
        saved = store.accept(memory.id, reviewer=project.reviewer)
    else:
        with store.transaction() as tx:
            current = tx.get(memory.id)
            saved = tx.put(
                with_status(current, target, reviewer=project.reviewer, now=store.now(), note=note)
            )
    project.record(saved.id, "status", before=before, after=saved.status.value)
    compiled = project.recompile()
    return _ok(f"memory {saved.id[:8]} is now {saved.status.value}", compile=compiled)


def _reviewed(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    store = project.store
    note = _text(data, "note", 1000)
    with store.transaction() as tx:
        memory = tx.get(_memory(project, request).id)
        update: dict[str, Any] = {"reviewed_by": project.reviewer, "reviewed_at": store.now()}
        if note:
            update["note"] = note
        saved = tx.put(
            memory.model_copy(update={"review": memory.review.model_copy(update=update)})
        )
    project.record(saved.id, "reviewed")
    compiled = project.recompile()
    return _ok(f"memory {saved.id[:8]} marked reviewed", compile=compiled)


def _dryrun(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    from cuecard.core.review import dry_run, recorded_sessions

    memory = _memory(project, request)
    triggers = data.get("triggers")
    if triggers is not None:
        if not isinstance(triggers, list):
            raise _BadRequest("triggers must be a list of clauses")
        raw = {**memory.model_dump(mode="json"), "triggers": triggers}
        from cuecard.core import validate_memory

        memory = validate_memory(raw)
    result = dry_run(memory, recorded_sessions(str(project.store.local_dir)))
    said = (
        f"{result.matched} of {result.events} recorded events in {result.sessions} "
        f"session(s) would fire this memory"
    )
    return _ok(said, dryrun=result.as_json())


# --- decisions on what waits ---------------------------------------------------------------------


def _batch(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    name = _text(data, "batch", 100)
    decision = _text(data, "decision", 20)
    if not name or decision not in ("accept", "reject"):
        raise _BadRequest("give batch and decision (accept or reject)")
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
    return _ok(said, done=done, refused=refused, left=left, compile=compiled)


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
    decision = _text(data, "decision", 20)
    item = project.request(str(request.path_params["ident"]))
    if item is None or item.get("resolved"):
        raise NotFound(f"no open request {request.path_params['ident']}")
    if decision == "archive":
        said = _carry_out(project, item)
    elif decision == "dismiss":
        _resolve(project, item, "dismissed")
        said = "request dismissed; the memory stays as it is"
    else:
        raise _BadRequest("decision must be archive or dismiss")
    compiled = project.recompile()
    return _ok(said, compile=compiled)


def _settings(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    unknown = sorted(set(data) - {"auto_accept", "delivery_limit"})
    if unknown:
        raise EditRefused(
            [FieldError(k, f"{k} is not a setting this page changes") for k in unknown]
        )
    config = project.store.config()
    raw = {**config.model_dump(mode="json"), **data}
    import pydantic

    try:
        new = ProjectConfig.model_validate(raw)
    except pydantic.ValidationError as error:
        raise EditRefused(
            [
                FieldError(str(e["loc"][0]) if e["loc"] else "(record)", e["msg"].lower())
                for e in error.errors(include_url=False, include_input=False)
            ]
        ) from None
    project.write_config(new)
    project.record("", "settings", **{k: data[k] for k in sorted(data)})
    compiled = project.recompile()
    state = "on" if new.auto_accept else "off"
    return _ok(
        f"saved: auto-accept {state}, delivery limit {new.delivery_limit:,}", compile=compiled
    )


# --- the vault -----------------------------------------------------------------------------------


def _warned(message: str, heard: list[str]) -> JSONResponse:
    """The answer to a vault change, with the lines the vault had for the user, if any."""
    return _ok(message, warnings=heard) if heard else _ok(message)


def _vault_conflict(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    decision = _text(data, "decision", 20)
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
