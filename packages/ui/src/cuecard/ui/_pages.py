"""The pages: server-rendered with Jinja2 from one snapshot per request."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from cuecard.core import NotFound, StoreError
from cuecard.core.review import TRANSITIONS
from cuecard.ui._charts import bar_chart
from cuecard.ui._project import Project, Snapshot
from cuecard.ui._queues import QUEUES, VAULT_QUEUES, Queue, build_queues
from cuecard.ui._usage import deliveries_per_day, fires_by_dimension, usage

__all__ = ["STATIC", "Pages"]

STATIC = {"app.js": "text/javascript", "app.css": "text/css"}
_KINDS = ("decision", "trap", "failed_approach", "fact", "procedure")
_EVENT_KINDS = ("prompt", "read", "edit", "write", "run", "search")


def _harness_limits(project: Project, delivery_limit: int) -> list[dict[str, Any]]:
    """What each installed harness's hook delivers at one event (as ``cuecard doctor`` says)."""
    from pathlib import Path

    from cuecard.core.engine import limit_report
    from cuecard.core.harnesses import installed_hooks

    hooks, _broken = installed_hooks(Path(project.store.root), Path.home())
    return limit_report(delivery_limit, (h["harness"] for h in hooks))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("cuecard.ui", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["short"] = lambda ident: str(ident)[:8]
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
    env.filters["when"] = lambda value: value.strftime("%Y-%m-%d %H:%M") if value else ""
    return env


class Pages:
    """Renders every page of one project."""

    def __init__(self, project: Project, token: str) -> None:
        self.project = project
        self.token = token
        self.env = _environment()

    def _render(self, name: str, snap: Snapshot, *, code: int = 200, **context: Any) -> Response:
        queues = build_queues(snap)
        counts = {
            "memories": len(snap.memories),
            "active": sum(1 for m in snap.memories if m.status == "active"),
            "waiting": sum(q.count for q in queues),
        }
        html = self.env.get_template(name).render(
            token=self.token,
            queues=queues,
            counts=counts,
            root=str(self.project.store.root),
            vault=snap.vault,
            health=snap.health,
            problems=snap.problems,
            unsafe=snap.unsafe,
            **context,
        )
        return HTMLResponse(html, status_code=code)

    async def overview(self, request: Request) -> Response:
        snap = self.project.snapshot()
        return self._render("overview.html", snap, page="overview")

    async def queue(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        snap = self.project.snapshot()
        if name not in QUEUES and name not in VAULT_QUEUES:
            return self._render(
                "missing.html",
                snap,
                code=404,
                page="",
                what=f"There is no queue called “{name}”.",
            )
        queue: Queue = next(q for q in build_queues(snap) if q.name == name)
        batches: dict[str, int] = {}
        if name == "candidates":
            for item in queue.items:
                batch = item["memory"].batch
                if batch:
                    batches[batch] = batches.get(batch, 0) + 1
            for request_item in snap.requests:
                batch = request_item.get("batch")
                if isinstance(batch, str) and batch:
                    batches[batch] = batches.get(batch, 0) + 1
        return self._render("queue.html", snap, page=name, queue=queue, batches=batches)

    async def memories(self, request: Request) -> Response:
        snap = self.project.snapshot()
        status = request.query_params.get("status", "")
        shown = [m for m in snap.memories if not status or m.status == status]
        shown.sort(key=lambda m: (m.status.value, m.topic))
        return self._render("memories.html", snap, page="memories", shown=shown, status=status)

    async def memory(self, request: Request) -> Response:
        from cuecard.core.review import SimilarityIndex, dry_run, recorded_sessions

        snap = self.project.snapshot()
        store = self.project.store
        if snap.unsafe:
            # Its page reads the recorded sessions and refreshes local/similarity.json.
            what = "This page reads and writes .cuecard/local/, which is left alone for now."
            return self._render("missing.html", snap, code=409, page="", what=what)
        try:
            memory = store.get(str(request.path_params["ident"]))
        except (NotFound, StoreError) as exc:
            return self._render("missing.html", snap, code=404, page="", what=str(exc))
        breadth = dry_run(memory, recorded_sessions(str(store.local_dir)), limit=0)
        live = [m for m in snap.memories if m.live]
        similar_index = SimilarityIndex(store.local_dir / "similarity.json").refresh(live)
        by_id = snap.by_id()
        similar = [
            (by_id[ident], score)
            for ident, score in similar_index.similar(
                f"{memory.title} {memory.body}", at_least=0.15
            )
            if ident != memory.id and ident in by_id
        ][:5]
        health_entry = None
        if snap.health is not None:
            health_entry = next(
                (
                    e
                    for e in snap.health.get("memories", []) or []
                    if isinstance(e, dict) and e.get("id") == memory.id
                ),
                None,
            )
        return self._render(
            "memory.html",
            snap,
            page="memory",
            memory=memory,
            breadth=breadth,
            stale=set(snap.stale.get(memory.id, [])),
            use=usage(snap.ledger, memory.id),
            similar=similar,
            history=self.project.history(memory.id),
            commits=self.project.commits(memory.id),
            transitions=TRANSITIONS.get(memory.status.value, ()),
            kinds=_KINDS,
            event_kinds=_EVENT_KINDS,
            health_entry=health_entry,
            related={
                "revises": by_id.get(memory.revises or ""),
                "superseded_by": by_id.get(memory.superseded_by or ""),
            },
        )

    async def settings(self, request: Request) -> Response:
        snap = self.project.snapshot()
        per_day = deliveries_per_day(snap.ledger)
        dims = sorted(fires_by_dimension(snap.ledger).items(), key=lambda kv: -kv[1])
        charts = {
            "per_day": bar_chart(per_day, title="Memories delivered per day"),
            "dimensions": bar_chart(dims, title="Fires by dimension"),
            "funnel": "",
        }
        funnel = snap.health.get("funnel") if snap.health else None
        if isinstance(funnel, dict):
            pairs = [(str(k), int(v)) for k, v in funnel.items() if isinstance(v, int)]
            charts["funnel"] = bar_chart(pairs, title="Capture funnel")
        return self._render(
            "settings.html",
            snap,
            page="settings",
            config=snap.config,
            charts=charts,
            funnel=funnel,
            limits=_harness_limits(self.project, snap.config.delivery_limit),
        )

    async def static(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        media = STATIC.get(name)
        if media is None:
            return Response("not found", status_code=404, media_type="text/plain")
        data = resources.files("cuecard.ui").joinpath("static", name).read_bytes()
        return Response(data, media_type=media)
