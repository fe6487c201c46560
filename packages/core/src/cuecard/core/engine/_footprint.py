"""A session's footprint: what the agent touched and how it went, for capture. Stdlib only.

The hooks append one JSON line per prompt and per finished tool call to
``.cuecard/local/sessions/<safe session>/footprint.jsonl`` (beside the session's ledger); Stop
reads the current turn back to decide whether it holds evidence, and ingestion reads the whole file
to suggest triggers. Each line is one ``os.write`` with ``O_APPEND``, so parallel hooks never
interleave lines. Line format (keys absent when empty):

``{"t": 1767225600.123, "e": "prompt", "correction": true, "preview": "no, use …"}``
    A user prompt; it starts a turn. The prompt text is never kept: only ``correction`` (the
    prompt was detected as a user correction) and, for a correction only, a ``preview`` of at
    most ``PREVIEW_CHARS`` characters, redacted.
``{"t": …, "e": "tool", "tool": "Bash", "kind": "run", "agent": "a1", "paths": ["src/x.py"],
"command": "pytest -q", "patterns": ["TODO"], "symbols": ["charge"], "outcome": "fail",
"exit": 1}``
    A finished tool call: the tool's name, the event ``kind`` (read, edit, write, run, search),
    the subagent id when not the main agent, repository-relative ``paths``, the shell
    ``command`` (redacted, at most ``COMMAND_CHARS`` characters), search ``patterns`` and
    identifiers (``symbols``), and the ``outcome`` (``ok``, ``fail`` or ``unknown``) with the
    exit code when the harness gave one.
``{"t": …, "e": "stop", "asked": "3f2a9c1d"}``
    Stop's marker: the key of the evidence set it asked a memory for (``asked`` is absent when
    Stop asked nothing).
``{"t": …, "e": "epoch", "reason": "compact"}``
    A compaction or clear started a new delivery epoch.

Past ``MAX_BYTES`` (4 MB, about 7,000 tool calls) a session takes no more prompts or tool calls,
only Stop's and epochs' own markers.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "COMMAND_CHARS",
    "MAX_BYTES",
    "PREVIEW_CHARS",
    "Footprint",
    "has_correction",
    "touched_paths",
]

MAX_BYTES = 4 * 1024 * 1024
PREVIEW_CHARS = 160
COMMAND_CHARS = 500
_LIST_ITEMS = 32
_ITEM_CHARS = 300


def _bounded(values: Iterable[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        if value and value not in out:
            out.append(value[:_ITEM_CHARS])
        if len(out) >= _LIST_ITEMS:
            break
    return out


class Footprint:
    """One session's footprint file."""

    def __init__(
        self, local_dir: str, session: str, *, clock: Callable[[], float] = time.time
    ) -> None:
        from cuecard.core.engine._ledger import safe_name
        from cuecard.core.engine._paths import local_tree

        self.folder = os.path.join(local_dir, "sessions", safe_name(session))
        self.path = os.path.join(self.folder, "footprint.jsonl")
        self.tree, local = local_tree(local_dir)
        parts = (local, "sessions", safe_name(session), "footprint.jsonl")
        self.rel = "/".join(p for p in parts if p)
        """The file relative to ``tree``, reached by descriptor without following a link."""
        self.clock = clock

    # -- writing ----------------------------------------------------------------------------------

    def full(self) -> bool:
        """Whether the footprint reached ``MAX_BYTES`` and takes no more prompts or tool calls."""
        try:
            st = self.tree.lstat(self.rel)
        except OSError:
            return False
        return st is not None and st.st_size >= MAX_BYTES

    def _append(self, record: dict[str, Any]) -> None:
        line = {"t": round(self.clock(), 3), **record}
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        self.tree.append(self.rel, data)

    def prompt(self, *, correction: bool, preview: str = "") -> bool:
        """Record a prompt (never its text; a redacted preview of a correction only)."""
        if self.full():
            return False
        record: dict[str, Any] = {"e": "prompt"}
        if correction:
            from cuecard.core.engine._text import neutralise, redact

            record["correction"] = True
            text = " ".join(redact(neutralise(preview)).split())
            if text:
                record["preview"] = text[:PREVIEW_CHARS]
        self._append(record)
        return True

    def tool(
        self,
        tool: str,
        kind: str,
        *,
        agent: str = "",
        paths: Iterable[str] = (),
        command: str = "",
        patterns: Iterable[str] = (),
        symbols: Iterable[str] = (),
        outcome: str = "unknown",
        exit_code: int | None = None,
    ) -> bool:
        """Record a finished tool call; ``False`` when the footprint is full."""
        if self.full():
            return False
        record: dict[str, Any] = {"e": "tool", "tool": tool[:100], "kind": kind}
        if agent:
            record["agent"] = agent[:100]
        for key, values in (("paths", paths), ("patterns", patterns), ("symbols", symbols)):
            bounded = _bounded(values)
            if bounded:
                record[key] = bounded
        if command:
            from cuecard.core.engine._text import redact

            record["command"] = redact(command)[:COMMAND_CHARS]
        record["outcome"] = outcome
        if exit_code is not None:
            record["exit"] = exit_code
        self._append(record)
        return True

    def stop(self, asked: str = "") -> None:
        """Record Stop's marker (always, even when the footprint is full)."""
        self._append({"e": "stop", "asked": asked} if asked else {"e": "stop"})

    def epoch(self, reason: str) -> None:
        """Record that a compaction or clear started a new epoch."""
        self._append({"e": "epoch", "reason": reason[:40]})

    # -- reading ----------------------------------------------------------------------------------

    def records(self) -> list[dict[str, Any]]:
        """Every readable line, in order; a torn or foreign line is skipped."""
        try:
            data = self.tree.read_bytes(self.rel, MAX_BYTES + 64 * 1024, whole=False)
        except OSError:
            return []
        lines = data.decode("utf-8", "replace").splitlines()
        out = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("e"), str):
                out.append(record)
        return out

    def turn(self, records: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """The current turn: the records from the last prompt on (all of them without one)."""
        records = self.records() if records is None else records
        start = 0
        for i, record in enumerate(records):
            if record["e"] == "prompt":
                start = i
        return records[start:]

    def asked(self, records: list[dict[str, Any]] | None = None) -> set[str]:
        """The evidence keys Stop already asked a memory for in this session."""
        records = self.records() if records is None else records
        return {str(r["asked"]) for r in records if r["e"] == "stop" and r.get("asked")}

    def changed(self, turn: list[dict[str, Any]]) -> list[tuple[str, str]]:
        """What ``turn`` may have changed, as ``(path, kind)`` pairs for turn checks: the paths
        of edits and writes, and those of shell commands (kind ``run``: ``sed -i``, a
        redirection…), unless the call failed."""
        return [
            (path, str(record.get("kind")))
            for record in turn
            if record["e"] == "tool"
            and record.get("kind") in ("edit", "write", "run")
            and record.get("outcome") != "fail"
            for path in record.get("paths", [])
            if isinstance(path, str)
        ]

    def touched(self, records: list[dict[str, Any]] | None = None) -> dict[str, int]:
        """Repository paths the session touched, with how many tool calls touched each."""
        records = self.records() if records is None else records
        counts: dict[str, int] = {}
        for record in records:
            for path in record.get("paths", []) if record["e"] == "tool" else []:
                if isinstance(path, str):
                    counts[path] = counts.get(path, 0) + 1
        return counts


def touched_paths(local_dir: str, session: str) -> list[str]:
    """Every repository path the session's tool calls touched, once per call (most recent last)."""
    return [
        path
        for record in Footprint(local_dir, session).records()
        if record["e"] == "tool"
        for path in record.get("paths", [])
        if isinstance(path, str)
    ]


def has_correction(local_dir: str, session: str) -> bool:
    """Whether the session recorded a user correction that follows something the agent did."""
    acted = False
    for record in Footprint(local_dir, session).records():
        if record["e"] == "tool":
            acted = True
        elif record["e"] == "prompt" and record.get("correction") and acted:
            return True
    return False
