"""The three wire formats the harnesses speak, as server-sent events built from one reply.

A :class:`Reply` is what the scripted model says in one turn: some text, then tool calls. Each
``*_events`` function turns it into the byte stream that API's streaming endpoint sends.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(1)


@dataclass
class ToolCall:
    """One tool call of the model: the tool's name and its arguments (a JSON object, or a
    string for a freeform tool such as Codex's ``apply_patch``)."""

    name: str
    arguments: dict[str, Any] | str
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = f"call_{next(_ids):04d}"

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return json.dumps({"input": self.arguments})
        return json.dumps(self.arguments)


@dataclass
class Reply:
    """One model turn: ``text`` then ``tool_calls`` (none: the turn ends)."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)


def _sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n" if event else ""
    body = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {body}\n\n".encode()


# -- Anthropic Messages ---------------------------------------------------------------------------


def anthropic_events(reply: Reply, model: str) -> list[bytes]:
    message: dict[str, Any] = {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    out = [_sse("message_start", {"type": "message_start", "message": message})]
    index = 0
    if reply.text or not reply.tool_calls:
        block: dict[str, Any] = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": reply.text or "Done."}
        out += _block(index, block, delta)
        index += 1
    for call in reply.tool_calls:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}
        out += _block(index, block, delta)
        index += 1
    stop = "tool_use" if reply.tool_calls else "end_turn"
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return out


def anthropic_message(reply: Reply, model: str) -> dict[str, Any]:
    """The same reply as one JSON message (a request without ``stream``)."""
    content: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        content.append({"type": "text", "text": reply.text or "Done."})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": call.id, "name": call.name,
                        "input": call.arguments})  # fmt: skip
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _block(index: int, block: dict[str, Any], delta: dict[str, Any]) -> list[bytes]:
    return [
        _sse("content_block_start",
             {"type": "content_block_start", "index": index, "content_block": block}),
        _sse("content_block_delta",
             {"type": "content_block_delta", "index": index, "delta": delta}),
        _sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]  # fmt: skip


# -- OpenAI Responses -----------------------------------------------------------------------------


def responses_events(reply: Reply, model: str, freeform: set[str]) -> list[bytes]:
    """``freeform``: the request's tools of type ``custom`` (their calls carry raw ``input``)."""
    rid = f"resp_{next(_ids):04d}"
    out = [_sse("response.created", {"type": "response.created",
                                      "response": {"id": rid, "model": model}})]  # fmt: skip
    items: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        text = reply.text or "Done."
        items.append({
            "type": "message", "id": f"msg_{next(_ids):04d}", "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        })  # fmt: skip
    for call in reply.tool_calls:
        if call.name in freeform:
            raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            items.append({"type": "custom_tool_call", "id": f"ctc_{call.id}", "status": "completed",
                          "call_id": call.id, "name": call.name, "input": raw})  # fmt: skip
        else:
            items.append({"type": "function_call", "id": f"fc_{call.id}", "status": "completed",
                          "call_id": call.id, "name": call.name,
                          "arguments": call.arguments_json()})  # fmt: skip
    for index, item in enumerate(items):
        out.append(
            _sse(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": item},
            )
        )
        if item["type"] == "message":
            out.append(
                _sse(
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        out.append(
            _sse(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}  # fmt: skip
    out.append(
        _sse(
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": rid,
                    "model": model,
                    "status": "completed",
                    "output": items,
                    "usage": usage,
                },
            },
        )
    )
    return out


# -- OpenAI Chat Completions (OpenCode, Grok Build, DeepSeek) -------------------------------------


def chat_events(reply: Reply, model: str) -> list[bytes]:
    cid = f"chatcmpl-{next(_ids):04d}"

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        return _sse(None, {"id": cid, "object": "chat.completion.chunk", "created": 1,
                           "model": model, "choices": [{"index": 0, "delta": delta,
                                                        "finish_reason": finish}],
                           **extra})  # fmt: skip

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.text or not reply.tool_calls:
        out.append(chunk({"content": reply.text or "Done."}))
    for index, call in enumerate(reply.tool_calls):
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "function": {
                                "arguments": call.arguments_json()
                                if isinstance(call.arguments, str)
                                else json.dumps(call.arguments)
                            },
                        }
                    ]
                }
            )
        )
    finish = "tool_calls" if reply.tool_calls else "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    out.append(chunk({}, finish, usage=usage))
    out.append(_sse(None, "[DONE]"))
    return out
