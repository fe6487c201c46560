"""``cuecard dsh call <tool>``: one tool call of the DSH memory plugin, JSON in, JSON out.

Requests (stdin): ``search {"query", "limit"?}``, ``show {"doc"}``, ``submit {"facts",
"agent"?}``, ``status {}``. Response (stdout): ``{"ok": bool, "output": str, "error"?: str,
"data"?: object}``. The tools are core's (``cuecard.core.tools``), the same functions the MCP
server (``cuecard mcp``) calls.
"""

from __future__ import annotations

from cuecard.core.tools import (
    ALIASES,
    DEFAULT_AGENT,
    LIMIT_RANGE,
    TOOLS,
    answer,
    clamp_limit,
    doc_problem,
    handle,
    parse_request,
    refusal,
    respond,
    tool_name,
)

__all__ = [
    "ALIASES",
    "DEFAULT_AGENT",
    "LIMIT_RANGE",
    "TOOLS",
    "answer",
    "clamp_limit",
    "doc_problem",
    "handle",
    "parse_request",
    "refusal",
    "respond",
    "tool_name",
]
