"""A shell command's exit status from the harness's own transcript, where the hook payload has
none. Stdlib only (the hot path).

Codex's PostToolUse for a shell command carries only the command's output (``""`` for a silent
one), whatever its exit status. The model is told the status in the tool output it receives,
and Codex writes that output to the session's rollout file (the payload's ``transcript_path``)
as ``{"type": "function_call_output", "call_id": …, "output": "…Process exited with code
N…"}`` -- after PostToolUse has run (Codex 0.171.0), so Stop reads the whole turn's statuses
from it, pairing the turn's shell calls (``turn_id``) with the footprint's shell records in
order. Only the file's last part is read, and only from a regular file (never a FIFO or a
device, never through a link).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["backfill_codex_outcomes", "codex_turn_exit_codes", "read_tail"]

TAIL = 512 * 1024
_CODE = re.compile(r"Process exited with code (-?\d+)")


SHELL_TOOLS = frozenset({"exec_command", "shell", "local_shell", "container.exec"})


def read_tail(path: str, tail: int) -> bytes | None:
    """The last ``tail`` bytes of the regular file ``path``, through the regular-file reader: a
    FIFO, a device or a folder is never read (nor waited for), a link never followed; ``None``
    then."""
    from cuecard.core.engine import open_regular

    fd = open_regular(path)
    if fd is None:
        return None
    try:
        start = max(0, os.fstat(fd).st_size - tail)
        chunks: list[bytes] = []
        while tail > 0:
            chunk = os.pread(fd, tail, start)
            if not chunk:
                break
            chunks.append(chunk)
            start += len(chunk)
            tail -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def codex_turn_exit_codes(payload: Mapping[str, Any], tail: int = TAIL) -> list[int | None]:
    """The exit statuses of the turn's shell calls, in order, as Codex told the model (``None``
    where it did not say). The turn is the payload's ``turn_id``; empty when unknown."""
    path = payload.get("transcript_path")
    turn = payload.get("turn_id")
    if not isinstance(path, str) or not path or not isinstance(turn, str) or not turn:
        return []
    data = read_tail(path, tail)
    if data is None:
        return []
    calls: list[str] = []
    outputs: dict[str, int | None] = {}
    needle = json.dumps(turn).encode()
    for line in data.splitlines():
        if b"call_id" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        item = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(item, dict) or not isinstance(item.get("call_id"), str):
            continue
        if item.get("type") == "function_call" and item.get("name") in SHELL_TOOLS:
            meta = item.get("internal_chat_message_metadata_passthrough")
            if needle in line and isinstance(meta, dict) and meta.get("turn_id") == turn:
                calls.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            output = item.get("output")
            found = _CODE.search(output) if isinstance(output, str) else None
            outputs[item["call_id"]] = int(found.group(1)) if found else None
    return [outputs.get(call) for call in calls]


def backfill_codex_outcomes(payload: Mapping[str, Any], turn: list[dict[str, Any]]) -> None:
    """Fill in the outcome of ``turn``'s shell records (footprint records, in order) that Codex's
    PostToolUse left unknown, from the exit statuses Codex told the model; only when the turn's
    shell calls and the records pair up one to one."""
    shells = [r for r in turn if r.get("e") == "tool" and r.get("tool") == "shell"]
    codes = codex_turn_exit_codes(payload)
    if not shells or len(codes) != len(shells):
        return
    for record, code in zip(shells, codes, strict=True):
        if record.get("outcome") == "unknown" and code is not None:
            record["outcome"] = "ok" if code == 0 else "fail"
            record["exit"] = code
