"""The changes a person makes, as JSON routes. Each one validates first, writes through the store's
transaction (or the vault's lock), journals what it did, and recompiles the trigger index.

Answers: 200 ``{"ok": true, "message": …}`` (plus ``"warnings": [lines]`` when the vault had
something to say: it waited for its lock, its mirror was not updated); 422 ``{"error":
"invalid", "errors": [{field, message}]}`` when a field breaks a rule (nothing written); 409
``{"error": "refused", "message"}`` when the store refuses; 400 for a body that is not one JSON
object; 404 for an unknown id; 409 ``{"error": "refused", "message", "unsafe": [lines]}`` for
every change while an entry under ``.cuecard/`` is a link, a special file or another user's
folder (the message names each path and why); 503 ``{"error": "vault_unavailable",
"message"}`` when a PostgreSQL vault's server is gone or refuses a statement (its transaction
rolled back).
"""

from __future__ import annotations

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
from cuecard.core.vault import database_error
from cuecard.ui._body import BadRequest, Work, ok, read_body, text
from cuecard.ui._decisions import decision_routes
from cuecard.ui._edits import EditRefused, FieldError, edited, field_errors
from cuecard.ui._project import Project, refusal
from cuecard.ui._vault_changes import vault_routes

__all__ = ["routes"]

Handler = Callable[[Request], Awaitable[JSONResponse]]


def _guarded(project: Project, work: Work) -> Handler:
    async def handler(request: Request) -> JSONResponse:
        unsafe = project.unsafe()
        if unsafe:
            body = {"error": "refused", "message": refusal(unsafe), "unsafe": unsafe}
            return JSONResponse(body, status_code=409)
        try:
            return work(request, await read_body(request))
        except BadRequest as exc:
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
        except Exception as exc:
            if not database_error(exc):
                raise
            # (A PostgreSQL server gone or a statement refused: said, nothing half-done.)
            message = f"the PostgreSQL vault: {str(exc).strip() or type(exc).__name__}"
            return JSONResponse({"error": "vault_unavailable", "message": message}, status_code=503)

    return handler


def _memory(project: Project, request: Request) -> Memory:
    return project.store.get(str(request.path_params["ident"]))


def routes(project: Project) -> list[tuple[str, Handler]]:
    """``(path, handler)`` for every change route."""
    table: list[tuple[str, Work]] = [
        *_memory_routes(project),
        *decision_routes(project),
        ("/api/settings", partial(_settings, project)),
        *vault_routes(project),
    ]
    return [(path, _guarded(project, work)) for path, work in table]


def _memory_routes(project: Project) -> list[tuple[str, Work]]:
    """Changes to one memory: its fields, its status, its review mark, a dry run of triggers."""
    return [
        ("/api/memories/{ident}/edit", partial(_edit, project)),
        ("/api/memories/{ident}/status", partial(_status, project)),
        ("/api/memories/{ident}/reviewed", partial(_reviewed, project)),
        ("/api/memories/{ident}/dryrun", partial(_dryrun, project)),
    ]


# --- one memory ----------------------------------------------------------------------------------


def _edit(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    store = project.store
    changes = data.get("changes")
    if not isinstance(changes, dict) or not changes:
        raise BadRequest("changes must be a non-empty JSON object of fields")
    with store.transaction() as tx:
        memory = tx.get(store.resolve_id(str(request.path_params["ident"])))
        others = [m for m in store.memories() if m.id != memory.id]
        updated = edited(memory, changes, others)
        changed = sorted(
            k for k in changes if getattr(updated, k, None) != getattr(memory, k, None)
        )
        if not changed:
            return ok("nothing changed; nothing was written", id=memory.id, fields=[])
        saved = tx.put(updated)
    project.record(saved.id, "edit", fields=changed)
    compiled = project.recompile()
    said = f"saved {', '.join(changed)}; the index was recompiled"
    for item in compiled["left_out"]:
        if item.get("id") == saved.id:
            said += f"; its check was left out of the index: {item.get('reason')}"
    return ok(said, id=saved.id, fields=changed, compile=compiled)


def _status(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    target = text(data, "status", 20)
    note = text(data, "note", 500)
    memory = _memory(project, request)
    done = project.decisions.set_status(memory.id, target, note=note)
    return ok(done.message, compile=done.details["compile"])


def _reviewed(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    note = text(data, "note", 1000)
    done = project.decisions.mark_reviewed(_memory(project, request).id, note=note)
    return ok(done.message, compile=done.details["compile"])


def _dryrun(project: Project, request: Request, data: dict[str, Any]) -> JSONResponse:
    from cuecard.core.review import dry_run, recorded_sessions

    memory = _memory(project, request)
    triggers = data.get("triggers")
    if triggers is not None:
        if not isinstance(triggers, list):
            raise BadRequest("triggers must be a list of clauses")
        raw = {**memory.model_dump(mode="json"), "triggers": triggers}
        from cuecard.core import validate_memory

        memory = validate_memory(raw)
    result = dry_run(memory, recorded_sessions(str(project.store.local_dir)))
    said = (
        f"{result.matched} of {result.events} recorded events in {result.sessions} "
        f"session(s) would fire this memory"
    )
    return ok(said, dryrun=result.as_json())


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
    return ok(
        f"saved: auto-accept {state}, delivery limit {new.delivery_limit:,}", compile=compiled
    )
