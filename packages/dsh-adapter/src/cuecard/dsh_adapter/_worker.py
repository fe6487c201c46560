"""``python -I -m cuecard.dsh_adapter serve``: the long-lived worker a DSH plugin keeps, so that
a tool call or a turn's recall does not start an interpreter.

Protocol: one JSON object per line on stdin, one answer per line on stdout, in order, each with
the request's ``id``:

- ``{"id", "op": "hello"}`` -> ``{"id", "ok": true, "version", "python", "vault",
  "vault_problem"}``: what the plugin checks at startup (an interpreter that lacks cuecard never
  gets this far); ``vault_problem`` says why the vault cannot serve the tools, or is null.
- ``{"id", "op": "call", "tool", "request", "project"?}`` -> ``{"id", "code", "response"}``:
  what ``cuecard dsh call TOOL`` prints and its exit status.
- ``{"id", "op": "recall", "text", "mode"?, "limit"?, "max_chars"?, "project"?, "session"?}``
  -> ``{"id", "output", "topics", "searched"}``: what ``cuecard dsh recall`` prints; with the
  DSH ``session``, project memories already delivered this epoch are left out and those
  recalled are recorded in the project's delivery ledger.
- ``{"id", "op": "hook", "event", "payload"}`` -> ``{"id", "output"}``: what ``cuecard dsh hook
  EVENT`` prints for the hook bridge's JSON ``payload`` (a string), "" for nothing; a folder that
  has not opted in answers "" at once.

A request that fails answers ``{"id", "error"}`` and the worker goes on; end of input ends it.
Every string of every answer but ``hello``'s is redacted with core's credential detector
(``cuecard.core.redact``) before it is written: what the plugins pass on to the model (a
tool's output, a recall, a hook's context, an error) has been through the one detector.
Lines cuecard has for the user while a request runs (a recall index rebuilt because it could not
be read) come back in the answer, as ``notices``, so that the plugins can show them.
``project`` is the session folder (data: it becomes ``CUECARD_PROJECT_DIR`` for that request,
never a place to import from). Anything else that writes to the standard output while a request
runs goes to the standard error instead, so it cannot break the protocol.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping

# Not `from typing import ...` at run time: the worker's start stays lean.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

__all__ = ["MAX_LINE", "answer_line", "serve"]

MAX_LINE = 1024 * 1024
"""The longest request line read; a longer one is refused (and skipped to its end)."""


def _int(value: object, default: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return max(low, min(high, value))


def _hello(_request: Mapping[str, Any], vault: str | None) -> dict[str, Any]:
    from cuecard.core.vault import vault_problem
    from cuecard.dsh_adapter.__about__ import __version__
    from cuecard.dsh_adapter._errors import VaultNotConfigured
    from cuecard.dsh_adapter._vault import vault_location

    try:
        where: str | None = vault_location(vault)
        problem = None if where is None else vault_problem(where)
    except VaultNotConfigured as exc:
        where, problem = None, str(exc)
    return {
        "ok": True,
        "version": __version__,
        "python": sys.executable,
        "vault": where,
        "vault_problem": problem,
    }


def _call(request: Mapping[str, Any], vault: str | None) -> dict[str, Any]:
    from cuecard.dsh_adapter._call import respond

    body = request.get("request", {})
    code, response = respond(str(request.get("tool", "")), json.dumps(body), vault)
    return {"code": code, "response": response}


def _recall(request: Mapping[str, Any], vault: str | None) -> dict[str, Any]:
    from cuecard.dsh_adapter._recall import recall_for

    text = request.get("text")
    result = recall_for(
        text[: 64 * 1024] if isinstance(text, str) else "",
        mode="always" if request.get("mode") == "always" else "auto",
        limit=_int(request.get("limit"), 5, 1, 50),
        max_chars=_int(request.get("max_chars"), 1600, 200, 20000),
        vault=vault,
        session=session if isinstance(session := request.get("session"), str) else None,
    )
    return {"output": result.output, "topics": list(result.topics), "searched": result.searched}


def _hook(request: Mapping[str, Any], _vault: str | None) -> dict[str, Any]:
    from cuecard.dsh_adapter._hookevent import answer

    payload = request.get("payload")
    data = payload.encode("utf-8", "replace") if isinstance(payload, str) else b""
    return {"output": answer(str(request.get("event", "")), data)}


_OPS: dict[str, Callable[[Mapping[str, Any], str | None], dict[str, Any]]] = {
    "hello": _hello,
    "call": _call,
    "recall": _recall,
    "hook": _hook,
}


def _noticed(
    op: Callable[[Mapping[str, Any], str | None], dict[str, Any]],
    request: Mapping[str, Any],
    vault: str | None,
) -> dict[str, Any]:
    """``op``'s answer, with ``notices``: the lines cuecard had for the user while it ran."""
    from cuecard.core.recall import collect_notices

    with collect_notices() as lines:
        answer = op(request, vault)
    return {**answer, "notices": lines[-5:]} if lines else answer


def _redacted(value: Any) -> Any:
    """``value`` (an answer) with every string in it redacted."""
    from cuecard.core import redact

    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value


def answer_line(line: bytes, vault: str | None = None) -> dict[str, Any]:
    """The answer to one request line (never raises)."""
    from cuecard.core import BadInput, load_json

    ident: object = None
    try:
        try:  # UTF-8, no lone surrogate in any field (the id included), bounded nesting
            request = load_json(line, "the request")
        except BadInput as exc:
            return {"id": None, "error": str(exc)}
        if not isinstance(request, dict):
            return {"id": None, "error": "a request must be a JSON object"}
        ident = request.get("id")
        op = _OPS.get(str(request.get("op")))
        if op is None:
            return {"id": ident, "error": f"op {str(request.get('op'))[:40]!r} is unknown"}
        project = request.get("project")
        saved = os.environ.pop("CUECARD_PROJECT_DIR", None)
        if isinstance(project, str) and os.path.isabs(project):
            os.environ["CUECARD_PROJECT_DIR"] = project
        try:
            answer = _noticed(op, request, vault)
            return {"id": ident, **(answer if op is _hello else _redacted(answer))}
        finally:
            os.environ.pop("CUECARD_PROJECT_DIR", None)
            if saved is not None:
                os.environ["CUECARD_PROJECT_DIR"] = saved
    except Exception as exc:  # one bad request never stops the worker
        from cuecard.core import redact

        return {"id": ident, "error": redact(f"{type(exc).__name__}: {exc}")[:2000]}


def _encoded(answer: dict[str, Any]) -> bytes:
    """One answer line; an answer that cannot be UTF-8 (text read from elsewhere holding a lone
    surrogate) becomes an error answer, so the protocol never breaks."""
    try:
        return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"
    except (UnicodeError, ValueError, RecursionError):
        error = {"id": None, "error": "the answer held text that is not UTF-8"}
        return json.dumps(error).encode("utf-8") + b"\n"


def serve(vault: str | None = None, stdin: BinaryIO | None = None) -> int:
    """Answer request lines until the end of input; returns 0."""
    source = stdin if stdin is not None else sys.stdin.buffer
    # The protocol gets its own copy of the standard output; file descriptor 1 and sys.stdout
    # then point at the standard error, so a stray print cannot corrupt an answer.
    with os.fdopen(os.dup(1), "wb", buffering=0) as protocol:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        while True:
            line = source.readline(MAX_LINE + 1)
            if not line:
                return 0
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while True:  # skip the rest of the overlong line
                    rest = source.readline(MAX_LINE)
                    if not rest or rest.endswith(b"\n"):
                        break
                answer: dict[str, Any] = {"id": None, "error": f"request over {MAX_LINE} bytes"}
            elif not line.strip():
                continue
            else:
                answer = answer_line(line, vault)
            protocol.write(_encoded(answer))
