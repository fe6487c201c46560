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
from dataclasses import dataclass, field, replace
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
from cuecard.wp_projection._queue import QUEUE_NAME, DurableQueue, QueuedEvent, Retry
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
    retry_attempts: int = 5
    """Attempts to apply one event before it is given up and listed as refused."""
    retry_backoff_s: float = 2.0
    """Wait before an event's second attempt, doubled after each failure (at most 5 minutes)."""


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
        self._batch_failures = 0
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
            pairs: list[tuple[QueuedEvent, Change]] = []
            refused: list[Retry] = []
            for row in rows:
                known = self.checked.pop(row.event_id, None)
                if known is not None:
                    pairs.append((row, known))
                    continue
                try:
                    envelope = parse_envelope(json.loads(row.body))
                    change = change_from_envelope(
                        envelope,
                        aliases=self.settings.aliases,
                        default_agent=self.settings.default_agent,
                    )
                except (ValueError, RecursionError, ProjectionError) as exc:
                    # checked at intake; a queue from an older receiver may still hold one
                    refused.append(self._retry_of(row, str(exc), final=True))
                    continue
                pairs.append((row, change))
            try:
                result = self.projector.apply([change for _, change in pairs])
            except Exception as exc:  # the root itself failed (lock, manifest): no event's fault
                self.apply_error = f"apply: {exc}"
                log.error("apply failed: %s", exc)
                self._batch_failures += 1
                self.stopping.wait(min(30.0, 0.5 * 2**self._batch_failures))
                continue
            self.apply_error = None
            self._batch_failures = 0
            crash_point("wp-applied")
            done = [row.id for row, _ in pairs]
            for (row, _), outcome in zip(pairs, result.outcomes, strict=False):
                if outcome.action == "failed":
                    done.remove(row.id)
                    refused.append(self._retry_of(row, outcome.detail))
            self.queue.retry(refused)
            self.queue.done(done)
            if result.reconcile:
                self._reconcile_if_needed()

    def _retry_of(self, row: QueuedEvent, error: str, *, final: bool = False) -> Retry:
        """The next attempt of an event that failed, or (attempts spent) its refusal."""
        attempts = row.attempts + 1
        settings = self.settings
        last = final or attempts >= settings.retry_attempts
        delay = min(300.0, settings.retry_backoff_s * 2 ** (attempts - 1))
        try:
            detail = _named(json.loads(row.body))
        except (ValueError, RecursionError):
            detail = {"event_id": row.event_id}
        if last:
            log.error("event %s given up after %d attempts: %s", row.event_id, attempts, error)
        else:
            log.warning("event %s failed (attempt %d): %s", row.event_id, attempts, error)
        return Retry(
            id=row.id,
            attempts=attempts,
            error=error,
            next_at=None if last else time.time() + delay,
            detail=detail,
        )

    def _reconcile_if_needed(self, *, at_start: bool = False) -> None:
        try:
            self._reconcile_when_needed(at_start=at_start)
        except Exception as exc:  # the root itself (its manifest, its lock): said in status
            self.apply_error = f"apply: {exc}"
            log.error("cannot read the root: %s", exc)

    def _reconcile_when_needed(self, *, at_start: bool) -> None:
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
                if sync.bridge_secret is None:  # the bridge signs with the receiver's secret
                    sync = replace(sync, bridge_secret=self.settings.secret)
                with self.client_factory() as client:
                    reconcile(self.projector, sync, client=client)
                self.apply_error = None
            except Exception as exc:  # reported in status; the next gap or restart retries
                self.reconcile_error = f"reconcile: {exc}"
                log.error("reconcile failed: %s", exc)


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects an envelope may hold (it needs four)."""


def _bad_text(data: object) -> str | None:
    """Why a decoded body is not text the projection takes, or ``None``: nesting deeper than
    ``MAX_DEPTH``, or a string (a value or a key) holding a lone surrogate, which no UTF-8 file,
    log line or answer can carry. Walks without recursion, whatever the depth."""
    stack: list[tuple[object, int, str]] = [(data, 0, "body")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return f"{where}: holds a lone surrogate (\\ud800-\\udfff), not valid Unicode"
            continue
        if not isinstance(value, dict | list):
            continue
        if depth >= MAX_DEPTH:
            return f"body: JSON nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            for key, item in value.items():
                name = key if key.isascii() and key.isprintable() else "a key"
                stack.append((key, depth + 1, f"{where}.{name}"[:200]))
                stack.append((item, depth + 1, f"{where}.{name}"[:200]))
        else:
            stack.extend((item, depth + 1, f"{where}[{i}]"[:200]) for i, item in enumerate(value))
    return None


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
            pass  # creates the managed folder, refusing a planted link
        queue = DurableQueue(root.database(QUEUE_NAME))
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
        except RecursionError:
            return await self.refused(400, f"body: JSON nested deeper than {MAX_DEPTH} levels")
        except UnicodeDecodeError:
            return await self.refused(400, "body: not UTF-8 (JSON text must be)")
        except ValueError:
            return await self.refused(400, "body: not valid JSON")
        problem = _bad_text(data)
        if problem is not None:
            return await self.refused(400, problem, data)
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
        queue: DurableQueue = self.state["queue"]
        try:
            snapshot = projector.snapshot or projector.load()
            report = await asyncio.to_thread(
                status_report,
                self.root,
                queue.counts(),
                snapshot,
                queue.refusals(),
                queue.retrying(),
            )
        except ProjectionError as exc:  # the root's manifest is not a file cuecard reads
            return _refuse(503, f"status: {exc}")
        if request.query_params.get("brief"):
            report["projected"] = len(report["projected"])
        errors = [e for e in (worker.apply_error, worker.reconcile_error) if e]
        report["worker_error"] = "; ".join(errors) or None
        report["idle"] = idle and report["queue"]["waiting"] == 0
        return JSONResponse(report)
