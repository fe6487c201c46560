"""An npm registry on loopback, over HTTPS with a certificate of its own, that forwards to another.

scripts/check-install runs the test command's dependency step against it from a login shell whose
only npm setting is a global npmrc naming this registry and the private CA that signed its
certificate (the usual corporate set-up: a mirror behind a CA of the company's own). A dependency
script that drops the user's npm configuration (``--prefix`` makes npm read another global npmrc)
then fails to download, as it would for that user.

Every request is answered from the upstream registry: a package document with its tarball
addresses pointing back here, a tarball as it is. Each answer's status and path are appended to
the log file, so the caller can see that the downloads went through here.

Usage: python npm_registry_proxy.py --cert FILE --key FILE --upstream URL --port-file FILE
  --log FILE [--upstream-cafile FILE]. It binds 127.0.0.1 on a free port, writes the port to
  --port-file, and serves until it is terminated.
"""

from __future__ import annotations

import argparse
import shutil
import ssl
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_CHUNK = 1 << 20
_HEADERS = ("Content-Type", "ETag", "Last-Modified")


def _handler(
    upstream: str, own: str, log: Path, client: ssl.SSLContext
) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            """Silent: the log file records each answer."""

        def _record(self, status: int) -> None:
            with lock, log.open("a", encoding="utf-8") as out:
                out.write(f"{status} {self.path}\n")

        def do_GET(self) -> None:
            request = urllib.request.Request(
                upstream.rstrip("/") + self.path,
                headers={
                    "Accept": self.headers.get("Accept", "*/*"),
                    "Accept-Encoding": "identity",
                    "User-Agent": self.headers.get("User-Agent", "npm-registry-proxy"),
                },
            )
            try:
                answer = urllib.request.urlopen(request, timeout=120, context=client)
            except urllib.error.HTTPError as error:
                body = error.read()
                self._send(error.code, body, error.headers.get("Content-Type"))
                return
            except OSError as error:
                self._send(502, f"upstream: {error}".encode(), "text/plain")
                return
            with answer:
                kind = answer.headers.get("Content-Type", "")
                if "json" in kind:
                    text = answer.read().decode("utf-8")
                    body = text.replace(upstream.rstrip("/"), own).encode("utf-8")
                    self._send(answer.status, body, kind)
                    return
                self.send_response(answer.status)
                for name in _HEADERS:
                    if answer.headers.get(name):
                        self.send_header(name, answer.headers[name])
                length = answer.headers.get("Content-Length")
                if length is None:
                    body = answer.read()
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_header("Content-Length", length)
                    self.end_headers()
                    shutil.copyfileobj(answer, self.wfile, _CHUNK)
                self._record(answer.status)

        def _send(self, status: int, body: bytes, kind: str | None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind or "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self._record(status)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up mid-answer (npm retrying, pnpm cancelling) is not an error."""
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cert", type=Path, required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--upstream-cafile", type=Path, help="a CA file the upstream needs")
    args = parser.parse_args()
    if not args.upstream.startswith("https://"):
        parser.error("--upstream must be an https:// URL")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server = _Server(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = server.server_address[1]
    client = ssl.create_default_context()
    if args.upstream_cafile:
        client.load_verify_locations(args.upstream_cafile)
    own = f"https://127.0.0.1:{port}"
    server.RequestHandlerClass = _handler(args.upstream, own, args.log, client)
    # the handshake happens in the request's thread, at its first read
    server.socket = context.wrap_socket(
        server.socket, server_side=True, do_handshake_on_connect=False
    )
    args.port_file.write_text(f"{port}\n", encoding="utf-8")
    server.serve_forever()


if __name__ == "__main__":
    main()
