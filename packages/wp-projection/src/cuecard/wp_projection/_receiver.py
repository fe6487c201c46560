"""The receiver: ``POST /events`` and ``GET /status`` (Starlette), a durable queue, one worker.

Every request is checked in this order, and a refused one writes nothing: Host (loopback names
unless configured otherwise), body size, content type, signature and timestamp window, JSON,
schema, safe target path, replayed event id. 202 is answered only after the queue's commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cuecard.core.fs import crash_point
from cuecard.wp_projection._change import Change, change_from_envelope
from cuecard.wp_projection._envelope import Envelope, parse_envelope
from cuecard.wp_projection._errors import (
    EnvelopeRefused,
    PathRefused,
    ProjectionError,
    SignatureRefused,
)
from cuecard.wp_projection._paths import site_key
from cuecard.wp_projection._projector import Projector
from cuecard.wp_projection._queue import QUEUE_NAME, DurableQueue
from cuecard.wp_projection._reconcile import SyncSettings, reconcile
from cuecard.wp_projection._safefs import SafeRoot
from cuecard.wp_projection._signature import MAX_SKEW_S, verify
from cuecard.wp_projection._status import status_report
from cuecard.wp_projection._wiring import refresh

__all__ = ["ReceiverSettings", "Worker", "build_app"]

log = logging.getLogger("cuecard.wp_projection")
MAX_BODY = 1024 * 1024
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass(frozen=True)
class ReceiverSettings:
    """Everything the receiver needs; built by ``cuecard wp serve``."""

    root: Path
    """The runtime root; records land under ``root/managed``."""
    secret: bytes = field(repr=False)
    """The shared HMAC secret (from ``--secret-file`` or ``CUECARD_WP_SECRET``)."""
    managed: str = ".dm-memory"
    """The one managed folder under the root."""
    allowed_hosts: frozenset[str] = LOOPBACK_NAMES
    """Host header names accepted (without the port)."""
    max_body: int = MAX_BODY
    """Largest request body accepted, in bytes."""
    max_skew_s: int = MAX_SKEW_S
    """Largest distance between the request timestamp and this clock."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Home URL -> site folder name."""
    default_agent: str | None = None
    """Agent slug for scopes with agent id 0 and no slug from the bridge."""
    sync: SyncSettings | None = None
    """When set, the worker reconciles at start and whenever a site needs it."""
    batch: int = 256
    """Most events applied under one lock and one manifest write."""
    reconcile_every_s: float = 300.0
    """With ``sync``: pull this often too, for writes Data Machine emits no event for."""


class Worker(threading.Thread):
    """Applies queued events in arrival order; reconciles when a site needs it."""

    def __init__(
        self,
        settings: ReceiverSettings,
        queue: DurableQueue,
        projector: Projector,
        *,
        client_factory: Callable[[], httpx.Client] = httpx.Client,
        checked: dict[str, Change] | None = None,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(name="cuecard-wp-worker", daemon=True)
        self.on_idle = on_idle
        """Called each time the worker finds the queue empty (everything queued is applied)."""
        self.settings = settings
        self.queue = queue
        self.projector = projector
        self.client_factory = client_factory
        self.stopping = threading.Event()
        self.idle = threading.Event()
        self.apply_error: str | None = None
        self._last_pull = time.monotonic()
        self.reconcile_error: str | None = None
        self.checked = {} if checked is None else checked

    def run(self) -> None:
        self._reconcile_if_needed(at_start=True)
        while not self.stopping.is_set():
            rows = self.queue.take(self.settings.batch)
            if not rows:
                due = time.monotonic() - self._last_pull >= self.settings.reconcile_every_s
                if self.settings.sync is not None and due:
                    self._reconcile_if_needed(at_start=True)
                self.idle.set()
                if self.on_idle is not None:
                    self.on_idle()
                crash_point("wp-idle")  # crash tests: stopped once all that was queued is done
                self.queue.wakeup.wait(0.5)
                self.queue.wakeup.clear()
                continue
            self.idle.clear()
            changes, ids = [], []
            for row in rows:
                ids.append(row.id)
                known = self.checked.pop(row.event_id, None)
                if known is not None:
                    changes.append(known)
                    continue
                try:
                    envelope = parse_envelope(json.loads(row.body))
                    changes.append(
                        change_from_envelope(
                            envelope,
                            aliases=self.settings.aliases,
                            default_agent=self.settings.default_agent,
                        )
                    )
                except (ValueError, ProjectionError) as exc:  # checked at intake; be safe anyway
                    log.warning("event %s dropped: %s", row.event_id, exc)
            try:
                result = self.projector.apply(changes)
            except Exception as exc:  # keep the events queued and retry; status shows why
                self.apply_error = f"apply: {exc}"
                log.error("apply failed: %s", exc)
                self.stopping.wait(1.0)
                continue
            self.apply_error = None
            crash_point("wp-applied")
            self.queue.done(ids)
            if result.reconcile:
                self._reconcile_if_needed()

    def _reconcile_if_needed(self, *, at_start: bool = False) -> None:
        sync = self.settings.sync
        if sync is None:
            if at_start:  # after downtime, push alone cannot know what it missed
                for site, known in self.projector.load().sites.items():
                    self.projector.request_reconcile(site, known.home_url, "receiver restarted")
            return
        manifest = self.projector.load()
        state = manifest.sites.get(sync.site)
        if at_start or state is None or state.reconcile_needed:
            self._last_pull = time.monotonic()
            try:
                with self.client_factory() as client:
                    reconcile(self.projector, sync, client=client)
                self.apply_error = None
            except Exception as exc:  # reported in status; the next gap or restart retries
                self.reconcile_error = f"reconcile: {exc}"
                log.error("reconcile failed: %s", exc)


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _text(value: object, limit: int = 200) -> str | int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    return "".join(c for c in str(value) if c.isprintable())[:limit]


def _named(data: object) -> dict[str, object]:
    """What a signed envelope says about itself, for the refusal record (bounded, printable)."""
    if not isinstance(data, dict):
        return {}
    scope = data.get("scope") if isinstance(data.get("scope"), dict) else {}
    assert isinstance(scope, dict)
    site = data.get("site") if isinstance(data.get("site"), dict) else {}
    assert isinstance(site, dict)
    named = {
        "event_id": _text(data.get("event_id"), 64),
        "seq": _text(data.get("seq")),
        "type": _text(data.get("type"), 40),
        "home_url": _text(site.get("home_url")),
        "layer": _text(scope.get("layer"), 20),
        "user_id": _text(scope.get("user_id")),
        "agent_id": _text(scope.get("agent_id")),
        "agent_slug": _text(scope.get("agent_slug"), 80),
        "filename": _text(scope.get("filename")),
    }
    return {k: v for k, v in named.items() if v is not None}


def build_app(
    settings: ReceiverSettings,
    *,
    clock: Callable[[], float] = time.time,
    on_idle: Callable[[], None] | None = None,
) -> Starlette:
    """The ASGI app; the queue and the worker start with the app's lifespan. ``on_idle`` is
    called (on the worker's thread) each time the worker finds the queue empty."""
    receiver = _Receiver(settings, clock, on_idle)
    return Starlette(
        routes=[
            Route("/events", receiver.post_event, methods=["POST"]),
            Route("/status", receiver.get_status, methods=["GET"]),
        ],
        lifespan=receiver.lifespan,
    )


class _Receiver:
    """The app's parts (the managed root, the projector, the queue and worker once started) and
    its two routes."""

    def __init__(
        self,
        settings: ReceiverSettings,
        clock: Callable[[], float],
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.on_idle = on_idle
        self.root = SafeRoot(settings.root, settings.managed)
        self.projector = Projector(self.root, on_change=refresh)
        self.state: dict[str, Any] = {}
        self.checked: dict[str, Change] = {}  # event id -> change checked at intake, for the worker

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        root, projector = self.root, self.projector
        with root.lock():
            pass  # creates the managed folder, refusing a planted symlink
        queue = DurableQueue(root.managed_path / QUEUE_NAME)
        queue.start()
        worker = Worker(self.settings, queue, projector, checked=self.checked, on_idle=self.on_idle)
        worker.start()
        self.state.update(queue=queue, worker=worker)
        try:
            yield
        finally:
            worker.stopping.set()
            queue.wakeup.set()
            worker.join()
            queue.close()
            projector.close()

    def host_ok(self, request: Request) -> bool:
        host = request.headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name.lower() in self.settings.allowed_hosts

    async def read_signed(self, request: Request) -> bytes | JSONResponse:
        settings = self.settings
        if not self.host_ok(request):
            return _refuse(421, "Host header names no address this receiver serves")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_body):
            return _refuse(413, f"body: larger than {settings.max_body} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > settings.max_body:
                return _refuse(413, f"body: larger than {settings.max_body} bytes")
            chunks.append(chunk)
        body = b"".join(chunks)
        try:
            verify(
                settings.secret,
                request.headers,
                body,
                now=self.clock(),
                max_skew=settings.max_skew_s,
            )
        except SignatureRefused as exc:
            return _refuse(401, str(exc))
        return body

    async def refused(self, status: int, message: str, data: object = None) -> JSONResponse:
        """Answer a refusal and remember it for ``cuecard wp status`` (what a signed envelope
        named; nothing from a request whose signature did not verify)."""
        queue: DurableQueue | None = self.state.get("queue")
        if queue is not None:
            try:
                await asyncio.wrap_future(queue.note_refusal(status, message, _named(data)))
            except Exception as exc:  # the refusal stands; only its record failed
                log.warning("could not record a refusal: %s", exc)
        log.warning("refused an event (%s): %s", status, message)
        return _refuse(status, message)

    async def post_event(self, request: Request) -> JSONResponse:
        if not self.host_ok(request):
            return await self.refused(421, "Host header names no address this receiver serves")
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return await self.refused(415, "content-type: must be application/json")
        body = await self.read_signed(request)
        if isinstance(body, JSONResponse):
            error = json.loads(bytes(body.body)).get("error", "")
            return await self.refused(body.status_code, str(error))
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return await self.refused(400, "body: not valid JSON")
        checked = await self._checked(data)
        if isinstance(checked, JSONResponse):
            return checked
        envelope, change = checked
        return await self._enqueue(envelope, change, body)

    async def _checked(self, data: object) -> tuple[Envelope, Change] | JSONResponse:
        """The envelope and the change it asks for, or the refusal of a bad one."""
        settings = self.settings
        try:
            envelope = parse_envelope(data)
            change = change_from_envelope(
                envelope, aliases=settings.aliases, default_agent=settings.default_agent
            )
        except EnvelopeRefused as exc:
            if str(exc).startswith("hash:") and isinstance(data, dict):
                await self._reconcile_mismatch(data)
            return await self.refused(422, str(exc), data)
        except PathRefused as exc:
            return await self.refused(422, str(exc), data)
        return envelope, change

    async def _reconcile_mismatch(self, data: dict[str, Any]) -> None:
        """Ask for a reconcile of the site whose event did not match its hash."""
        home = str((data.get("site") or {}).get("home_url", "")).rstrip("/")
        if home:
            await asyncio.to_thread(
                self.projector.request_reconcile,
                site_key(home, self.settings.aliases),
                home,
                "an event's content did not match its hash",
            )

    async def _enqueue(self, envelope: Envelope, change: Change, body: bytes) -> JSONResponse:
        """Store the event in the queue (202), refusing a replayed event id (409)."""
        queue: DurableQueue = self.state["queue"]
        checked = self.checked
        mine = checked.setdefault(envelope.event_id, change) is change
        future = queue.submit(
            envelope.event_id,
            site_key(envelope.home_url, self.settings.aliases),
            envelope.seq,
            body,
        )
        try:
            fresh = await asyncio.wrap_future(future)
        except Exception as exc:
            return _refuse(503, f"queue: could not store the event ({exc})")
        if not fresh:
            if mine and checked.get(envelope.event_id) is change:
                del checked[envelope.event_id]
            return _refuse(409, f"event_id: {envelope.event_id} was already received (replay)")
        return JSONResponse(
            {"queued": True, "event_id": envelope.event_id, "seq": envelope.seq}, status_code=202
        )

    async def get_status(self, request: Request) -> JSONResponse:
        body = await self.read_signed(request)
        if isinstance(body, JSONResponse):
            return body
        worker: Worker = self.state["worker"]
        # Idle is read first: the state read after it already holds all the worker did, so an
        # idle report never shows a site sync or an apply that has not landed yet.
        idle = worker.idle.is_set()
        projector = self.projector
        snapshot = projector.snapshot or projector.load()
        queue: DurableQueue = self.state["queue"]
        report = await asyncio.to_thread(
            status_report, self.root, queue.counts(), snapshot, queue.refusals()
        )
        if request.query_params.get("brief"):
            report["projected"] = len(report["projected"])
        errors = [e for e in (worker.apply_error, worker.reconcile_error) if e]
        report["worker_error"] = "; ".join(errors) or None
        report["idle"] = idle and report["queue"]["waiting"] == 0
        return JSONResponse(report)
