"""The guard, over real HTTP against `cuecard ui` on a loopback port."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import httpx
import pytest

from tests._support.ui import Seeded, Server


@pytest.fixture
def seeded(shared: tuple[Seeded, Server]) -> Seeded:
    return shared[0]


@pytest.fixture
def ui(shared: tuple[Seeded, Server]) -> Server:
    """Every request here is refused (or only reads), so one server serves the module."""
    return shared[1]


@pytest.fixture
def client(ui: Server) -> Iterator[httpx.Client]:
    c = ui.client()
    try:
        yield c
    finally:
        c.close()


def _edit_url(seeded: Seeded) -> str:
    return f"/api/memories/{seeded.ids['candidate']}/edit"


def test_the_printed_url_trades_its_key_for_a_strict_cookie(ui: Server) -> None:
    with httpx.Client(base_url=ui.base) as c:
        first = c.get(ui.url)
        assert first.status_code == 303
        assert first.headers["location"] == "/"
        cookie = first.headers["set-cookie"]
        assert cookie.startswith(f"cuecard_ui_{ui.port}={ui.key};")
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        assert "Path=/" in cookie
        assert first.headers["referrer-policy"] == "no-referrer"
        page = c.get("/")
        assert page.status_code == 200
        assert "cuecard review" in page.text
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp
        assert "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["cache-control"] == "no-store"


def test_the_key_is_dropped_from_the_url_but_other_parameters_stay(ui: Server) -> None:
    with httpx.Client(base_url=ui.base) as c:
        answer = c.get(f"/memories?status=active&key={ui.key}")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/memories?status=active"


def _raw_get(
    ui: Server, target: str, hosts: list[str], cookie: str = ""
) -> http.client.HTTPResponse:
    """A GET written header by header: the target as given, each Host line as given."""
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=30)
    conn.putrequest("GET", target, skip_host=True, skip_accept_encoding=True)
    for host in hosts:
        conn.putheader("Host", host)
    if cookie:
        conn.putheader("Cookie", cookie)
    conn.endheaders()
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer


@pytest.mark.parametrize(
    ("target", "location"),
    [
        ("//evil.example/", "/evil.example/"),
        ("///evil.example/x?a=1", "/evil.example/x?a=1"),
        ("//%2F/evil.example/", "/evil.example/"),
    ],
    ids=["two-slashes", "three-slashes", "encoded-slash"],
)
def test_the_key_redirect_stays_on_this_server(ui: Server, target: str, location: str) -> None:
    joined = f"{target}{'&' if '?' in target else '?'}key={ui.key}"
    answer = _raw_get(ui, joined, [f"127.0.0.1:{ui.port}"])
    assert answer.status == 303
    assert answer.getheader("location") == location


@pytest.mark.parametrize(
    "hosts",
    [["evil.example", "127.0.0.1:{port}"], ["127.0.0.1:{port}", "127.0.0.1:{port}"]],
    ids=["foreign-first", "same-twice"],
)  # fmt: skip
def test_a_request_with_two_host_headers_is_refused(ui: Server, hosts: list[str]) -> None:
    lines = [h.format(port=ui.port) for h in hosts]
    cookie = f"cuecard_ui_{ui.port}={ui.key}"
    assert _raw_get(ui, "/", [f"127.0.0.1:{ui.port}"], cookie).status == 200  # one is served
    # 403 from the guard, or 400 where the HTTP server refuses the request first (RFC 9112
    # says a server answers 400 to two Host lines; which layer answers depends on its version)
    for answer in (_raw_get(ui, "/", lines, cookie), _raw_get(ui, f"/?key={ui.key}", lines)):
        assert answer.status in (400, 403)
        assert answer.getheader("set-cookie") is None
        assert b"cuecard" not in answer.read().lower() or answer.status == 403


@pytest.mark.parametrize(
    "path", ["/", "/memories", "/settings", "/static/app.js", "/queues/candidates"]
)
def test_no_key_no_page(ui: Server, path: str) -> None:
    answer = httpx.get(ui.base + path)
    assert answer.status_code == 403
    assert answer.json()["error"] == "ui_key_required"
    assert "content-security-policy" in answer.headers


def test_a_wrong_key_or_cookie_is_refused(ui: Server) -> None:
    wrong = httpx.get(f"{ui.base}/?key=not-the-key", follow_redirects=False)
    assert wrong.status_code == 403
    assert "set-cookie" not in wrong.headers
    forged = httpx.get(ui.base + "/", cookies={f"cuecard_ui_{ui.port}": "guess"})
    assert forged.status_code == 403


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "[::1]:{port}"],
    ids=["name", "name-port", "other-port", "no-port", "ipv6"],
)
def test_a_foreign_host_is_refused_even_with_the_key(
    ui: Server, client: httpx.Client, host: str
) -> None:
    header = host.format(port=ui.port)
    page = client.get("/", headers={"Host": header})
    assert page.status_code == 403
    assert page.json()["error"] == "invalid_host"
    keyed = httpx.get(f"{ui.base}/?key={ui.key}", headers={"Host": header})
    assert keyed.status_code == 403
    assert "set-cookie" not in keyed.headers


def test_localhost_is_its_own_host(ui: Server, client: httpx.Client) -> None:
    assert client.get("/", headers={"Host": f"localhost:{ui.port}"}).status_code == 200


def test_changes_need_the_key_too(ui: Server, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    answer = httpx.post(ui.base + _edit_url(seeded), json={"changes": {"title": "x"}})
    assert answer.status_code == 403
    assert seeded.memory_bytes("candidate") == before


def test_form_encoded_changes_are_refused(client: httpx.Client, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    answer = client.post(_edit_url(seeded), data={"changes": "title"})
    assert answer.status_code == 415
    assert answer.json()["error"] == "json_required"
    plain = client.post(
        _edit_url(seeded),
        content=json.dumps({"changes": {"title": "a new title for refunds"}}),
        headers={"Content-Type": "text/plain"},
    )
    assert plain.status_code == 415
    assert seeded.memory_bytes("candidate") == before


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
    ids=["origin", "null-origin", "cross-site", "same-site"],
)
def test_cross_site_changes_are_refused(
    client: httpx.Client, seeded: Seeded, headers: dict[str, str]
) -> None:
    before = seeded.memory_bytes("candidate")
    answer = client.post(
        _edit_url(seeded), json={"changes": {"title": "a new title"}}, headers=headers
    )
    assert answer.status_code == 403
    assert answer.json()["error"] == "cross_site"
    assert seeded.memory_bytes("candidate") == before


def test_changes_need_the_page_token(ui: Server, client: httpx.Client, seeded: Seeded) -> None:
    del client.headers["X-Cuecard-Token"]
    answer = client.post(_edit_url(seeded), json={"changes": {"title": "x"}})
    assert answer.status_code == 403
    assert answer.json()["error"] == "token_required"
    wrong = client.post(
        _edit_url(seeded), json={"changes": {"title": "x"}}, headers={"X-Cuecard-Token": "no"}
    )
    assert wrong.status_code == 403


def test_an_oversize_body_is_refused(client: httpx.Client, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    big = json.dumps({"changes": {"body": "x" * 70_000}})
    declared = client.post(
        _edit_url(seeded), content=big, headers={"Content-Type": "application/json"}
    )
    assert declared.status_code == 413
    assert declared.json()["error"] == "request_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the guard counts while reading
        for _ in range(70):
            yield b" " * 1000

    streamed = client.post(
        _edit_url(seeded), content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert seeded.memory_bytes("candidate") == before


def test_deeply_nested_json_is_a_bad_request(client: httpx.Client, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    deep = 30_000
    for body in (
        b"[" * deep,
        b'{"changes": ' + b"[" * deep + b"]" * deep + b"}",
        b'{"changes": {"title": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}}",
    ):
        answer = client.post(
            _edit_url(seeded), content=body, headers={"Content-Type": "application/json"}
        )
        assert answer.status_code == 400, body[:40]
        assert "deeper than" in answer.json()["message"]
    brackets_in_text = json.dumps({"changes": {"title": "[" * 100 + " a title"}})
    answer = client.post(
        _edit_url(seeded), content=brackets_in_text, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 200, answer.text
    assert seeded.memory_bytes("candidate") != before


@pytest.mark.parametrize(
    "body",
    [
        b'{"changes": {"title": "a new title \\ud800 for refunds"}}',
        b'{"changes": {"body": "\\udfff\\udfff"}}',
        b'{"changes": {"title\\udc80": "a new title for refunds"}}',
        b'{"changes": {"triggers": [{"on": ["edit"], "paths": ["src/\\ud83d.py"]}]}}',
    ],
    ids=["title", "body", "key", "glob"],
)
def test_a_lone_surrogate_is_a_bad_request(
    client: httpx.Client, seeded: Seeded, body: bytes
) -> None:
    before = seeded.memory_bytes("candidate")
    answer = client.post(
        _edit_url(seeded), content=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    assert "lone surrogate" in answer.json()["message"]
    assert seeded.memory_bytes("candidate") == before


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH"])
def test_only_get_and_post(client: httpx.Client, seeded: Seeded, method: str) -> None:
    answer = client.request(method, _edit_url(seeded), json={"changes": {"title": "x"}})
    assert answer.status_code == 405


def test_malformed_json_is_a_bad_request(client: httpx.Client, seeded: Seeded) -> None:
    before = seeded.memory_bytes("candidate")
    for body in (b"{not json", b"[1, 2]", b'"text"'):
        answer = client.post(
            _edit_url(seeded), content=body, headers={"Content-Type": "application/json"}
        )
        assert answer.status_code == 400, body
    assert seeded.memory_bytes("candidate") == before


def test_ui_refuses_outside_a_project(tmp_path, cli) -> None:
    result = cli("ui", "--no-browser", cwd=tmp_path)
    assert result.returncode == 1
    assert "has not opted in" in result.stderr
    assert result.stdout == ""


def test_ui_help_names_its_options(tmp_path, cli) -> None:
    result = cli("ui", "--help", cwd=tmp_path)
    assert result.returncode == 0
    for option in ("--port", "--no-browser", "--vault", "--reviewer"):
        assert option in result.stdout


@pytest.mark.parametrize(
    "path",
    [
        "/static/..%2F_guard.py",
        "/static/%2e%2e%2f__init__.py",
        "/static/app.js%00.css",
        "/memories/..%2F..%2Fconfig",
        "/memories/%2e%2e",
        "/queues/..%2F..%2Fetc",
    ],
)
def test_paths_from_outside_reach_nothing_else(client: httpx.Client, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert "import" not in answer.text
    assert "project_id" not in answer.text


def test_other_apps_cookies_on_the_same_host_do_not_hide_the_key(ui: Server) -> None:
    mine = f"cuecard_ui_{ui.port}={ui.key}"
    for header in (f'junk="a;b; {mine}', f"a=b; {mine}; c=\\x", f"{mine}"):
        answer = httpx.get(ui.base + "/settings", headers={"Cookie": header})
        assert answer.status_code == 200, header
    other_port = f"cuecard_ui_{ui.port + 1}={ui.key}"
    assert httpx.get(ui.base + "/", headers={"Cookie": other_port}).status_code == 403


def test_ui_serves_until_interrupted_and_a_port_in_use_is_a_usage_error(
    seeded: Seeded, ui: Server, cli
) -> None:
    from tests._support.ui import start_ui, stop_ui

    second = start_ui(seeded.root, None)
    assert second.key != ui.key, "every start makes a fresh key"
    with httpx.Client(base_url=second.base) as c:
        assert c.get(second.url).status_code == 303
        assert "No vault is configured" in c.get("/queues/vault-pending").text
    err = stop_ui(second)
    assert second.proc is not None
    assert second.proc.returncode == 0
    assert "cuecard ui: stopped" in err
    taken = cli("ui", "--no-browser", "--port", str(ui.port), cwd=seeded.root)
    assert taken.returncode == 2
    assert f"--port {ui.port}" in taken.stderr
