"""Capture: spotting a user correction, and the evidence that makes Stop ask for a memory.

Pure functions over prompt text and footprint records (``cuecard.core.engine.Footprint``). A turn
holds evidence when it has

- a **failure followed by a fix**: a shell command that failed, and later in the same turn the
  same command (same program and subcommand) succeeded after an edit or with different arguments;
- or a **user correction**: the prompt that opened the turn corrects something the agent did
  earlier in the session.

Stop asks once per evidence set: the set's key is recorded in the footprint.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Sequence

TYPE_CHECKING = False  # typing and dataclasses cost a hook process more than its work
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Evidence",
    "command_key",
    "evidence",
    "inbox_proposals",
    "is_correction",
    "request_text",
    "writes_inbox",
]

INBOX = ".cuecard/inbox"
MAX_PROPOSALS = 16
"""Most proposals one hook call ingests; the rest wait for the next call."""

_CORRECTION = re.compile(
    "|".join(
        (
            r"^\s*(?:no|nope|nah)\s*[,.;:!?\u2014-]",
            r"\b(?:that'?s?|this|it)\s+(?:is\s+)?(?:not\s+(?:right|correct|what)|wrong|incorrect"
            r"|backwards)\b",
            r"\bnot\s+what\s+i\s+(?:asked|said|wanted|meant)\b",
            r"\byou\s+(?:broke|misunderstood|misread|ignored|skipped|were\s+wrong|got\s+it\s+wrong"
            r"|did\s*n[o']?t|should\s*n[o']?t\s+have)\b",
            r"\bi\s+(?:told|said|asked)\s+you\b",
            r"\b(?:revert|undo|roll\s*back|back\s+that\s+out)\b",
            r"\binstead\s+of\b|\buse\s+.{1,40}\s+instead\b",
            r"\b(?:do\s*n[o']?t|never)\s+(?:do|use|change|touch|add|remove|edit|modify|create"
            r"|commit|delete|rewrite)\b",
            r"\bstop\s+(?:doing|changing|editing|adding|using|that)\b",
            r"\bwrong\s+(?:file|place|one|approach|direction|branch|function|method)\b",
            r"\b(?:est[a\u00e1]s?\s+mal|mal\s+hecho|no\s+es\s+correcto|est[a\u00e1]\s+equivocad[oa]"
            r"|te\s+equivocaste)\b",
            r"\beso\s+no\s+(?:es|era)\b|\bno\s+es\s+lo\s+que\b",
            r"\bte\s+(?:dije|ped[i\u00ed])\b",
            r"\b(?:revierte|revi[e\u00e9]rtelo|revertir|deshaz|deshacer|vuelve\s+atr[a\u00e1]s)\b",
            r"\ben\s+su\s+lugar\b|\bmejor\s+us[ae]\b",
            r"\bno\s+(?:uses|cambies|toques|agregues|a[\u00f1n]adas|edites|modifiques|crees|borres"
            r"|elimines|hagas|hiciste)\b",
            r"\b(?:archivo|lugar|enfoque|funci[o\u00f3]n|rama)\s+equivocad[oa]\b",
        )
    ),
    re.IGNORECASE,
)
# Programs whose first non-option argument names what they do (git commit, npm test, cargo build).
_MULTIPLEXERS = frozenset(
    "git npm npx yarn pnpm bun deno cargo go make uv poetry pip pip3 docker kubectl dotnet mvn "
    "gradle bundle rake composer php artisan terraform helm just task tox nox hatch".split()
)
_PYTHONS = re.compile(r"^python(?:\d(?:\.\d+)?)?$")


def is_correction(prompt: str) -> bool:
    """Whether a user prompt corrects the agent (English and Spanish phrasings)."""
    return bool(_CORRECTION.search(prompt[:4000]))


def command_key(command: str) -> str:
    """What makes two shell commands "the same command": the program and its subcommand.

    ``pytest -x tests/a`` and ``pytest`` share ``pytest``; ``git commit -m x`` is ``git
    commit``; ``python -m pytest`` is ``python -m pytest``; leading ``VAR=value`` is skipped.
    """
    words = command.strip().split()
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words.pop(0)
    if not words:
        return ""
    program = os.path.basename(words[0])
    rest = words[1:]
    if _PYTHONS.match(program) and len(rest) >= 2 and rest[0] == "-m":
        return f"python -m {rest[1]}"
    if program in _MULTIPLEXERS:
        sub = next((w for w in rest if not w.startswith("-")), "")
        return f"{program} {sub}".strip()
    return program


class Evidence:
    """What in a turn deserves a memory, and the key that makes Stop ask only once for it."""

    __slots__ = ("key", "reasons")

    def __init__(self, key: str, reasons: tuple[str, ...]) -> None:
        self.key = key
        self.reasons = reasons

    def __repr__(self) -> str:
        return f"Evidence({self.key!r}, {self.reasons!r})"


def _tool(record: dict[str, Any]) -> bool:
    return record.get("e") == "tool"


def _fixes(turn: Sequence[dict[str, Any]]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    fixed: set[int] = set()
    for i, failed in enumerate(turn):
        if not _tool(failed) or failed.get("outcome") != "fail" or failed.get("kind") != "run":
            continue
        command = str(failed.get("command", ""))
        key = command_key(command)
        if not key:
            continue
        edited = False
        for j in range(i + 1, len(turn)):
            later = turn[j]
            if not _tool(later):
                continue
            if later.get("kind") in ("edit", "write"):
                edited = True
            same = later.get("kind") == "run" and command_key(str(later.get("command", ""))) == key
            if same and later.get("outcome") == "fail":
                break  # a later failure of the same command is the one a fix would follow
            if (
                same
                and later.get("outcome") == "ok"
                and (edited or later.get("command") != command)
            ):
                if j not in fixed:
                    fixed.add(j)
                    found.append((i, j, key))
                break
    return found


def evidence(records: Sequence[dict[str, Any]]) -> Evidence | None:
    """The evidence of the current turn (the records from the last prompt on), or ``None``."""
    start = 0
    for i, record in enumerate(records):
        if record.get("e") == "prompt":
            start = i
    turn = records[start:]
    items: list[str] = []
    reasons: list[str] = []
    opener = turn[0] if turn and turn[0].get("e") == "prompt" else None
    if opener is not None and opener.get("correction") and any(map(_tool, records[:start])):
        items.append(f"c{start}:{opener.get('t')}")
        preview = str(opener.get("preview", ""))
        reasons.append(
            f'the user corrected you ("{preview}")' if preview else "the user corrected you"
        )
    for i, j, key in _fixes(turn):
        items.append(f"f{start + i}:{start + j}:{turn[j].get('t')}")
        reasons.append(f"`{key}` failed, then succeeded after a change")
    if not items:
        return None
    key = f"{zlib.crc32('|'.join(items).encode()):08x}"
    return Evidence(key, tuple(reasons[:4]))


def request_text(found: Evidence) -> str:
    """Stop's short request for a memory."""
    return (
        "cuecard: this turn holds evidence worth remembering: "
        + "; ".join(found.reasons)
        + ". If it taught you something about this project that an agent reading the code would "
        "not know, save it as one memory: write a JSON object to .cuecard/inbox/<short-name>.json "
        "with topic, kind (trap, failed_approach, decision, fact or procedure), title, body and "
        "not_derivable (the cuecard-save skill shows the format). cuecard answers with the result. "
        "Most turns warrant no memory: if nothing should change next time, write nothing and stop."
    )


def writes_inbox(command: str) -> bool:
    """Whether a shell command may have written a proposal (it names the inbox folder)."""
    return INBOX in command.replace("\\", "/")


def inbox_proposals(root: str) -> list[str]:
    """The proposals waiting in ``.cuecard/inbox/`` (repository-relative, oldest name first):
    regular ``.json`` files only, so that a link or a folder never comes back at every call.
    An inbox that is a link (or inside one) is not read: ingestion moves the files it takes."""
    from cuecard.core.fs import Tree

    try:
        entries = Tree(root).entries(INBOX.rstrip("/"))  # by descriptor: no link on the way
    except OSError:
        return []
    names = [name for name, kind in entries if name.endswith(".json") and kind == "file"]
    return [f"{INBOX}/{name}" for name in names[:MAX_PROPOSALS]]
