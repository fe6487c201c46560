"""The scripted model server itself, over real HTTP on loopback (no harness needed)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.e2e._support import ModelServer, Reply, ToolCall


def post(url: str, body: dict[str, Any]) -> tuple[str, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.headers.get("Content-Type", ""), answer.read()


def events(raw: bytes) -> list[Any]:
    out = []
    for block in raw.decode().split("\n\n"):
        data = [line[6:] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            out.append("[DONE]" if data[0] == "[DONE]" else json.loads(data[0]))
    return out


SCRIPT = [Reply("Reading.", [ToolCall("Read", {"file_path": "a.py"}, id="t1")]), Reply("Done.")]
TOOLS = [{"name": "Read", "input_schema": {}}]


def test_anthropic_messages_stream_tool_calls_then_text_and_record_the_bodies() -> None:
    with ModelServer(SCRIPT) as server:
        url = f"{server.url}/v1/messages?beta=true"
        kind, raw = post(url, {"model": "m", "stream": True, "tools": TOOLS, "messages": []})
        side = post(url, {"model": "m", "stream": True, "messages": [{"content": "title?"}]})
        _, last = post(url, {"model": "m", "stream": True, "tools": TOOLS,
                             "messages": [{"content": "<memory-data x>"}]})  # fmt: skip
    assert kind == "text/event-stream"
    first = events(raw)
    assert first[0]["type"] == "message_start"
    starts = [e["content_block"] for e in first if e["type"] == "content_block_start"]
    assert starts[1] == {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    deltas = [e["delta"] for e in first if e["type"] == "content_block_delta"]
    assert json.loads(deltas[1]["partial_json"]) == {"file_path": "a.py"}
    assert next(e for e in first if e["type"] == "message_delta")["delta"]["stop_reason"] == (
        "tool_use"
    )
    assert "OK." in side[1].decode()  # a side request leaves the script alone
    assert "Done." in last.decode()
    assert [r.main for r in server.requests] == [True, False, True]
    assert server.spent
    assert server.main_requests[1].count("<memory-data") == 1


def test_responses_stream_function_and_freeform_calls() -> None:
    patch = "*** Begin Patch\n*** End Patch\n"
    script = [Reply(tool_calls=[ToolCall("exec_command", {"cmd": "ls"}),
                                ToolCall("apply_patch", patch)])]  # fmt: skip
    tools = [
        {"type": "function", "name": "exec_command"},
        {"type": "custom", "name": "apply_patch"},
    ]
    with ModelServer(script) as server:
        _, raw = post(f"{server.url}/v1/responses", {"model": "m", "tools": tools, "input": []})
    done = [e for e in events(raw) if e["type"] == "response.output_item.done"]
    assert done[0]["item"]["type"] == "function_call"
    assert json.loads(done[0]["item"]["arguments"]) == {"cmd": "ls"}
    assert done[1]["item"] == {**done[1]["item"], "type": "custom_tool_call", "input": patch}
    assert events(raw)[-1]["type"] == "response.completed"


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/chat/completions"])
def test_chat_completions_stream_tool_call_deltas_and_done(path: str) -> None:
    with ModelServer([Reply(tool_calls=[ToolCall("read", {"filePath": "a"}, id="c1")])]) as server:
        _, raw = post(server.url + path, {"model": "m", "tools": [{"function": {"name": "read"}}],
                                          "messages": [], "stream": True})  # fmt: skip
    chunks = events(raw)
    assert chunks[-1] == "[DONE]"
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks[1:-2]]
    assert calls[0]["id"] == "c1"
    assert calls[0]["function"]["name"] == "read"
    assert json.loads(calls[1]["function"]["arguments"]) == {"filePath": "a"}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert server.requests[0].tool_names() == ["read"]


def test_the_server_stops_on_exit() -> None:
    with ModelServer() as server:
        url = server.url
    with pytest.raises(urllib.error.URLError):  # the port is closed: connection refused
        post(f"{url}/v1/messages", {"model": "m", "messages": []})
