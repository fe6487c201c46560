"""A scripted model server on loopback that speaks what each harness expects.

One server answers all three wire formats, chosen by the request's path:

- ``…/messages`` (Anthropic Messages; Claude Code), and ``…/messages/count_tokens``;
- ``…/responses`` (OpenAI Responses; Codex);
- ``…/chat/completions`` (OpenAI Chat Completions; OpenCode, Grok Build, DeepSeek/DSH);
- ``…/models`` (a model list with ``model``).

A *main* request (one that offers tools, by default) takes the next scripted :class:`Reply`; a
side request (a title, a summary, a quota probe) gets a short text and leaves the script alone.
When the script is spent, every main request gets ``Done.``. Every request is recorded, with its
parsed body, so a test asserts on exactly what the model saw.

    with ModelServer([Reply(tool_calls=[ToolCall("Read", {...})]), Reply("ok")]) as server:
        run_the_harness(base_url=server.url)
        assert server.main_requests[1].count("<memory-data") == 1
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.e2e._support._wire import (
    Reply,
    anthropic_events,
    anthropic_message,
    chat_events,
    responses_events,
)

Script = Reply | Callable[["Request"], Reply]


@dataclass
class Request:
    """One request the harness made."""

    method: str
    path: str
    wire: str  # "anthropic", "responses", "chat", "models", "count_tokens" or "other"
    body: Any
    headers: dict[str, str]
    main: bool = False
    reply: Reply | None = None

    def strings(self) -> Iterator[str]:
        """Every string in the body (message texts, tool outputs, instructions…)."""
        stack = [self.body]
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                yield node
            elif isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)

    def text(self) -> str:
        return "\n".join(self.strings())

    def count(self, needle: str) -> int:
        """How many times ``needle`` occurs in the strings of the body."""
        return sum(s.count(needle) for s in self.strings())

    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") if isinstance(self.body, dict) else None
        names = []
        for tool in tools or []:
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if name:
                names.append(str(name))
        return names


def offers_tools(request: Request) -> bool:
    """The default test of a main request: it offers the model tools."""
    return bool(isinstance(request.body, dict) and request.body.get("tools"))


def _wire(path: str) -> str:
    bare = path.split("?", 1)[0].rstrip("/")
    for suffix, wire in (
        ("/messages/count_tokens", "count_tokens"),
        ("/messages", "anthropic"),
        ("/responses", "responses"),
        ("/chat/completions", "chat"),
        ("/models", "models"),
    ):
        if bare.endswith(suffix):
            return wire
    return "other"


@dataclass
class ModelServer:
    """The scripted model. Use it as a context manager: it binds 127.0.0.1 on a free port on
    entry and stops on exit."""

    script: Sequence[Script] = ()
    model: str = "fake-model"
    main: Callable[[Request], bool] = offers_tools
    requests: list[Request] = field(default_factory=list)
    _next: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> ModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                server._handle(self, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                server._handle(self, raw)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "use the server as a context manager"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (add ``/v1`` where the harness wants it)."""
        return f"http://127.0.0.1:{self.port}"

    # -- what happened -----------------------------------------------------------------------

    @property
    def main_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.main]

    @property
    def spent(self) -> bool:
        """Every scripted reply was given."""
        return self._next >= len(self.script)

    def first_with(self, needle: str) -> int | None:
        """The index among main requests of the first one whose body holds ``needle``."""
        for index, request in enumerate(self.main_requests):
            if request.count(needle):
                return index
        return None

    # -- serving -----------------------------------------------------------------------------

    def _reply_for(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            request.main = request.wire in ("anthropic", "responses", "chat") and self.main(request)
            if not request.main:
                return Reply("OK.")
            if self._next >= len(self.script):
                reply = Reply("Done.")
            else:
                step = self.script[self._next]
                self._next += 1
                reply = step(request) if callable(step) else step
            request.reply = reply
            return reply

    def _handle(self, handler: BaseHTTPRequestHandler, raw: bytes | None) -> None:
        path = handler.path
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace") if raw else None
        request = Request(handler.command, path, _wire(path), body, dict(handler.headers))
        if request.wire == "models":
            with self._lock:
                self.requests.append(request)
            model = {"id": self.model, "object": "model", "type": "model", "created": 1,
                     "owned_by": "test", "display_name": self.model}  # fmt: skip
            return _json(handler, {"object": "list", "data": [model], "has_more": False})
        if request.wire == "count_tokens":
            with self._lock:
                self.requests.append(request)
            return _json(handler, {"input_tokens": 10})
        if request.wire == "other" or not isinstance(body, dict):
            with self._lock:
                self.requests.append(request)
            return _json(handler, {"error": {"message": f"no route {path}"}}, status=404)
        reply = self._reply_for(request)
        name = str(body.get("model") or self.model)
        if request.wire == "anthropic":
            if not body.get("stream"):
                return _json(handler, anthropic_message(reply, name))
            events = anthropic_events(reply, name)
        elif request.wire == "responses":
            freeform = {
                str(t.get("name")) for t in body.get("tools") or [] if t.get("type") == "custom"
            }
            events = responses_events(reply, name, freeform)
        else:
            events = chat_events(reply, name)
        _stream(handler, events)


def _json(handler: BaseHTTPRequestHandler, value: Any, status: int = 200) -> None:
    data = json.dumps(value).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _stream(handler: BaseHTTPRequestHandler, events: list[bytes]) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for event in events:
        handler.wfile.write(event)
    handler.wfile.flush()
    handler.close_connection = True
