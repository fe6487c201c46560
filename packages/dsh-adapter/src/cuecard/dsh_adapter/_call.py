"""``cuecard dsh call <tool>``: one tool call of the DSH memory plugin, JSON in, JSON out.

Requests (stdin): ``search {"query", "limit"?}``, ``show {"doc"}``, ``submit {"facts",
"agent"?}``, ``status {}``. Response (stdout): ``{"ok": bool, "output": str, "error"?: str,
"data"?: object}``. Every request is validated here too, whatever the plugin checked.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from cuecard.core import BadInput, CuecardError, load_json
from cuecard.dsh_adapter._bound import bound
from cuecard.dsh_adapter._errors import BadRequest
from cuecard.dsh_adapter._vault import VaultClient

# Not `from typing import ...` at run time: the per-call paths stay lean.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    "respond",
    "tool_name",
]

TOOLS = ("search", "show", "submit", "status")
ALIASES = {f"memory_{tool}": tool for tool in TOOLS}
"""The names the model sees (``memory_search`` …) name the same tools."""
LIMIT_RANGE = (1, 50)
DEFAULT_LIMIT = 8
DEFAULT_AGENT = "dsh"
MAX_QUERY_CHARS = 2000
MAX_FACTS_CHARS = 64 * 1024
MAX_REQUEST_BYTES = 256 * 1024
_AGENT = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
_DOC = re.compile(r"^(?!.*\.\.)\w[\w .-]{0,199}$")
_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "search": {"query": str, "limit": (int, float, str)},
    "show": {"doc": str},
    "submit": {"facts": str, "agent": str},
    "status": {},
}
_REQUIRED = {"search": ("query",), "show": ("doc",), "submit": ("facts",), "status": ()}


def clamp_limit(value: object) -> int:
    """A result limit clamped to 1–50; anything that is not a finite number gives 8."""
    if isinstance(value, bool):
        return DEFAULT_LIMIT
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return DEFAULT_LIMIT
    if (
        not isinstance(value, int | float)
        or value != value
        or value in (float("inf"), -float("inf"))
    ):
        return DEFAULT_LIMIT
    return max(LIMIT_RANGE[0], min(LIMIT_RANGE[1], int(value)))


def doc_problem(doc: str) -> str | None:
    """Why ``doc`` cannot name a note, or ``None``: no separators, no ``..``, no leading dot."""
    d = doc.strip()
    if not d:
        return 'doc must be a note id or a note name such as "deploy.md"'
    if "/" in d or "\\" in d:
        return f"doc {d[:80]!r} must not contain a path separator"
    if ".." in d:
        return f'doc {d[:80]!r} must not contain ".."'
    if not _DOC.match(d):
        return (
            f'doc {d[:80]!r} is not a note id or a note name (letters, digits, "_", "-", '
            '".", space; at most 200)'
        )
    return None


def tool_name(tool: str) -> str:
    """The short name of ``tool`` (``memory_search`` -> ``search``); raises ``BadRequest``."""
    name = ALIASES.get(tool, tool)
    if name not in TOOLS:
        raise BadRequest(
            f"tool {tool[:80]!r} is unknown: choose one of {', '.join(TOOLS)} "
            f"(or {', '.join(ALIASES)})"
        )
    return name


def parse_request(tool: str, raw: str | bytes) -> dict[str, Any]:
    """The request object for ``tool`` (a short or a model-facing name), checked key by key;
    raises ``BadRequest``."""
    tool = tool_name(tool)
    if len(raw) > MAX_REQUEST_BYTES:
        raise BadRequest(f"request must be at most {MAX_REQUEST_BYTES} bytes")
    try:  # UTF-8 without a lone surrogate, bounded nesting: core's one rule for payloads
        request = load_json(raw, "request") if raw.strip() else {}
    except BadInput as exc:
        raise BadRequest(str(exc)) from None
    if not isinstance(request, dict):
        raise BadRequest("request must be a JSON object")
    fields = _FIELDS[tool]
    for key, value in request.items():
        if key not in fields:
            raise BadRequest(
                f"{tool}: key {key!r} is not accepted (keys: {', '.join(fields) or 'none'})"
            )
        if not isinstance(value, fields[key]) or isinstance(value, bool):
            raise BadRequest(f"{tool}: key {key!r} has the wrong type")
    for key in _REQUIRED[tool]:
        if key not in request:
            raise BadRequest(f"{tool}: key {key!r} is required")
    return request


def _search(
    client: VaultClient, request: Mapping[str, Any], project: Path | None
) -> dict[str, Any]:
    query = " ".join(str(request["query"]).split())
    if not query:
        return refusal("search: query must not be empty")
    if len(query) > MAX_QUERY_CHARS:
        return refusal(f"search: query must be at most {MAX_QUERY_CHARS} characters")
    return {
        "ok": True,
        "output": client.search(query, clamp_limit(request.get("limit")), project=project),
    }


def _show(client: VaultClient, request: Mapping[str, Any], _project: Path | None) -> dict[str, Any]:
    problem = doc_problem(request["doc"])
    if problem is not None:
        return refusal(f"show: {problem}")
    return {"ok": True, "output": client.show(request["doc"].strip())}


def _submit(
    client: VaultClient, request: Mapping[str, Any], _project: Path | None
) -> dict[str, Any]:
    agent = request.get("agent", DEFAULT_AGENT)
    if not _AGENT.match(agent):
        return refusal(f"submit: agent {agent[:40]!r} must match {_AGENT.pattern}")
    facts_text = request["facts"]
    if len(facts_text) > MAX_FACTS_CHARS:
        return refusal(f"submit: facts must be at most {MAX_FACTS_CHARS} characters")
    facts = [line.strip() for line in facts_text.splitlines() if line.strip()]
    if not facts:
        return refusal("submit: facts must hold at least one non-empty line")
    from cuecard.core import find_secret, wrap_memory_data

    for number, line in enumerate(facts, 1):
        shape = find_secret(line)
        if shape is not None:
            return refusal(
                f"submit: fact {number} looks like a credential ({shape}); nothing was written. "
                "Never submit credentials: store them in a secret manager."
            )
    data = client.submit(facts, agent)
    lines = [f"submitted {len(facts)} fact(s) to the vault inbox as agent {agent!r}"]
    lines += [f"{key}: {value}" for key, value in data.items() if isinstance(value, str | int)]
    lines.append("They become searchable after a person reviews and promotes them.")
    return {"ok": True, "output": wrap_memory_data("\n".join(lines)), "data": data}


def _status(
    client: VaultClient, _request: Mapping[str, Any], _project: Path | None
) -> dict[str, Any]:
    from cuecard.core import wrap_memory_data

    data = client.status()
    labels = (
        ("vault", "vault"),
        ("layout", "layout"),
        ("index", "index"),
        ("pending", "pending inbox files"),
        ("conflicts", "conflicts waiting"),
        ("last_promotion", "last promotion"),
    )
    lines = [f"{label}: {_render(data.get(key))}" for key, label in labels]
    return {"ok": True, "output": wrap_memory_data("\n".join(lines)), "data": data}


def _render(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_render(v)}" for k, v in value.items())
    return str(value)


_HANDLERS: dict[str, Callable[[VaultClient, Mapping[str, Any], Path | None], dict[str, Any]]] = {
    "search": _search,
    "show": _show,
    "submit": _submit,
    "status": _status,
}


def refusal(message: str) -> dict[str, Any]:
    from cuecard.core import redact

    return {"ok": False, "output": "", "error": redact(message)}


def handle(
    tool: str, request: Mapping[str, Any], client: VaultClient, *, project: Path | None = None
) -> dict[str, Any]:
    """Run one validated request; cuecard's own errors become ``ok: false`` responses."""
    try:
        response = _HANDLERS[tool](client, request, project)
    except CuecardError as exc:
        return refusal(str(exc))
    except Exception as exc:  # a bug below must still answer the plugin with JSON
        return refusal(f"{tool}: the vault call failed unexpectedly ({type(exc).__name__}: {exc})")
    if tool in ("submit", "status"):  # search and show print what the vault already redacted
        from cuecard.core import redact

        response["output"] = redact(response.get("output", ""))
    response["output"] = bound(response.get("output", ""))
    return response


def respond(tool: str, raw: str | bytes, vault: str | None) -> tuple[int, dict[str, Any]]:
    """The exit status and response of one call: ``raw`` is the JSON request."""
    from cuecard.dsh_adapter._errors import BadRequest, VaultNotConfigured
    from cuecard.dsh_adapter._vault import VaultClient, session_project, vault_location

    try:
        request = parse_request(tool, raw)
        tool = tool_name(tool)
    except BadRequest as exc:
        return 2, refusal(str(exc))
    response = handle(tool, request, VaultClient(vault), project=session_project())
    if response["ok"]:
        return 0, response
    try:
        vault_location(vault)
    except VaultNotConfigured as exc:
        if "CUECARD_VAULT" not in response["error"]:
            response["error"] = f"{response['error']}\n{exc}"
    return 1, response


def answer(tool: str, vault: str | None) -> int:
    """Read the request on stdin, print the response, return the exit status."""
    code, response = respond(tool, sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1), vault)
    sys.stdout.write(json.dumps(response, ensure_ascii=False) + "\n")
    return code
