"""The guard in front of every route: Host, key, same-origin JSON changes, bounded bodies, headers.

An ASGI middleware, checked in this order (a refused request reaches no route and writes nothing):

1. ``Host`` must be exactly ``127.0.0.1:<port>`` or ``localhost:<port>`` (DNS-rebinding guard),
   and only once: 403 ``invalid_host``.
2. A ``GET`` carrying ``?key=`` is answered with a 303 to the same path (always one leading
   slash: a same-origin path, never ``//host/``) without the key; a right
   key sets the cookie ``cuecard_ui_<port>`` (HttpOnly, SameSite=Strict, Path=/), a wrong one is
   403 ``ui_key_required``. Every other request needs that cookie: 403 ``ui_key_required``.
3. Only ``GET``, ``HEAD`` and ``POST``: 405 ``method_not_allowed``.
4. A ``POST`` must come from the page itself: an ``Origin`` or ``Sec-Fetch-Site`` naming another
   site is 403 ``cross_site``, and the page's token must come back in ``X-Cuecard-Token``
   (403 ``token_required``); its body must be ``application/json`` (415 ``json_required``) of
   at most ``max_body`` bytes (413 ``request_too_large``), read whole before the route runs.

Every response carries a restrictive Content-Security-Policy (scripts and styles from this
server only, no inline script, no framing), ``nosniff``, ``no-store`` and ``no-referrer``.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

__all__ = ["CSP", "MAX_BODY", "TOKEN_HEADER", "Guard", "GuardSettings"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY = 64_000
TOKEN_HEADER = "x-cuecard-token"  # noqa: S105 (a header name, not a secret)
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


@dataclass(frozen=True)
class GuardSettings:
    """What the guard compares requests with."""

    port: int
    """The bound loopback port; the only Host accepted is a loopback name with this port."""
    key: str = field(repr=False)
    """The key printed in the URL, exchanged once for the cookie."""
    token: str = field(repr=False)
    """The per-server token served inside the pages and required on every change."""
    max_body: int = MAX_BODY
    """Largest request body accepted, in bytes."""

    @property
    def cookie(self) -> str:
        return f"cuecard_ui_{self.port}"

    @property
    def hosts(self) -> frozenset[str]:
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


class Guard:
    """The ASGI middleware; see the module docstring for the rules."""

    def __init__(self, app: ASGIApp, settings: GuardSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in _HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = kept + _HEADERS
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await refusal(send_secured)
            return
        if scope["method"] == "POST":
            body = await self._read_body(receive, headers)
            if body is None:
                await _error(413, "request_too_large", self._too_large())(send_secured)
                return
            receive = _replay(body)
        await self.app(scope, receive, send_secured)

    def _too_large(self) -> str:
        return f"the request body is larger than {self.settings.max_body} bytes"

    def _refusal(
        self, scope: Scope, headers: dict[str, str]
    ) -> Callable[[Send], Awaitable[None]] | None:
        settings = self.settings
        host = headers.get("host", "")
        hosts = sum(1 for name, _ in scope["headers"] if name.lower() == b"host")
        if hosts != 1 or host.lower() not in settings.hosts:
            expected = " or ".join(sorted(settings.hosts))
            return _error(403, "invalid_host", f"the request must carry one Host: {expected}")
        method = scope["method"]
        query = scope.get("query_string", b"").decode("latin-1")
        pairs = parse_qsl(query, keep_blank_values=True)
        keys = [v for k, v in pairs if k == "key"]
        if keys and method in ("GET", "HEAD"):
            if len(keys) != 1 or not _same(keys[0], settings.key):
                return _error(403, "ui_key_required", "the key in the URL is not this server's")
            rest = urlencode([(k, v) for k, v in pairs if k != "key"])
            location = _same_origin(scope.get("path", "/")) + (f"?{rest}" if rest else "")
            return _redirect(location, settings.cookie, settings.key)
        held = _cookie(headers.get("cookie", ""), settings.cookie)
        if held is None or not _same(held, settings.key):
            return _error(
                403,
                "ui_key_required",
                "open the URL that `cuecard ui` printed (it carries this server's key)",
            )
        if method in ("GET", "HEAD"):
            return None
        if method != "POST":
            return _error(405, "method_not_allowed", f"{method} is not accepted; use GET or POST")
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"http://{host.lower()}":
            return _error(403, "cross_site", "the request's Origin is not this server")
        fetch_site = headers.get("sec-fetch-site")
        if fetch_site is not None and fetch_site not in ("same-origin", "none"):
            return _error(403, "cross_site", "the request's Sec-Fetch-Site is not same-origin")
        if not _same(headers.get(TOKEN_HEADER, ""), settings.token):
            return _error(403, "token_required", f"{TOKEN_HEADER} is missing or wrong")
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return _error(
                415, "json_required", "changes are taken only as Content-Type: application/json"
            )
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_body):
            return _error(413, "request_too_large", self._too_large())
        return None

    async def _read_body(self, receive: Receive, headers: dict[str, str]) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.settings.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _same_origin(path: str) -> str:
    """``path`` as a redirect target on this server: one leading slash (``//evil.example/``
    would be another host's URL), every other character that could end the path encoded."""
    return "/" + quote(path.lstrip("/"), safe="/")


def _cookie(header: str, name: str) -> str | None:
    """The value of cookie ``name``; other cookies (other apps on 127.0.0.1) may be malformed."""
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value.strip().strip('"')
    return None


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _error(status: int, code: str, message: str) -> Callable[[Send], Awaitable[None]]:
    payload = json.dumps({"error": code, "message": message}).encode()

    async def respond(send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    return respond


def _redirect(location: str, cookie: str, key: str) -> Callable[[Send], Awaitable[None]]:
    value = f"{cookie}={key}; HttpOnly; SameSite=Strict; Path=/"

    async def respond(send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode("latin-1", "replace")),
                    (b"set-cookie", value.encode()),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    return respond
