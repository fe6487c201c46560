"""The ASGI application: the pages, the change routes, and the guard in front of both."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cuecard.ui._actions import routes as change_routes
from cuecard.ui._guard import Guard, GuardSettings
from cuecard.ui._pages import Pages
from cuecard.ui._project import Project

__all__ = ["build_app"]


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": "not_found", "message": "no such page"}, status_code=404)


def build_app(project: Project, guard: GuardSettings) -> Guard:
    """The review UI for ``project``, guarded by ``guard`` (see ``_guard``)."""
    pages = Pages(project, guard.token)
    table = [
        Route("/", pages.overview, methods=["GET"]),
        Route("/queues/{name}", pages.queue, methods=["GET"]),
        Route("/memories", pages.memories, methods=["GET"]),
        Route("/memories/{ident}", pages.memory, methods=["GET"]),
        Route("/settings", pages.settings, methods=["GET"]),
        Route("/static/{name}", pages.static, methods=["GET"]),
        Route("/favicon.ico", _no_icon, methods=["GET"]),
    ]
    table += [Route(path, handler, methods=["POST"]) for path, handler in change_routes(project)]
    app = Starlette(routes=table, exception_handlers={404: _not_found})
    return Guard(app, guard)
