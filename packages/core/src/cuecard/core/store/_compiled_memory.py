"""What one live memory compiles to: its record, its trigger clauses as index entries with
their bucket keys, and its check.

Globs are brace-expanded here and matched on the hot path by ``_wildmatch`` (gitignore
semantics, linear time); ``glob_regex`` keeps pathspec's translation as the reference those
semantics are tested against. Keywords are stored as normalised words (``_words``), command
patterns as words.
"""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any

from cuecard.core.engine._index import command_words
from cuecard.core.engine._words import words
from cuecard.core.store._globs import expand_braces
from cuecard.core.store._memory import Kind, Memory, Trigger
from cuecard.core.store._validate import verify_check

__all__ = ["clause_entry", "compile_memory", "glob_key", "glob_regex"]

_WILD = re.compile(r"[*?\[]")
_KIND_ORDER = {
    Kind.TRAP: 0,
    Kind.FAILED_APPROACH: 1,
    Kind.DECISION: 2,
    Kind.PROCEDURE: 3,
    Kind.FACT: 4,
}


@functools.cache
def glob_regex(glob: str) -> str:
    """The regular expression (Python ``re``) for one brace-free glob, gitignore semantics."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

        regex, _include = GitIgnoreSpecPattern.pattern_to_regex(glob)
    if regex is None:
        raise ValueError(f"{glob!r} matches nothing")
    return str(regex).replace("(?P<ps_d>", "(?:")


def glob_key(glob: str) -> tuple[str, str]:
    """The bucket key of one brace-free glob, and its literal folder prefix."""
    body = glob.rstrip("/")
    segments = body.split("/")
    floating = len(segments) == 1
    if not floating:
        literal: list[str] = []
        for segment in segments:
            if _WILD.search(segment):
                break
            literal.append(segment)
        if literal:
            prefix = "/".join(literal)
            return "p:" + prefix, prefix
    last = segments[-1]
    if not _WILD.search(last):
        return "n:" + last, ""
    dot = last.rfind(".")
    if dot >= 0 and not _WILD.search(last[dot + 1 :]) and last[dot + 1 :]:
        return "x:" + last[dot + 1 :], ""
    return "*", ""


@functools.lru_cache(maxsize=16_384)
def _glob_parts(glob: str) -> tuple[tuple[str, str, str], ...]:
    """Each brace-free glob of ``glob`` with its literal folder prefix and bucket key."""
    parts = []
    for one in expand_braces(glob):
        key, prefix = glob_key(one)
        parts.append((one, prefix, key))
    return tuple(parts)


def clause_entry(memory: Memory, index: int, clause: Trigger) -> tuple[dict[str, Any], list[str]]:
    globs: list[list[str]] = []
    keys: list[str] = []
    for glob in clause.paths:
        for one, prefix, key in _glob_parts(glob):
            globs.append([one, prefix])
            keys.append(key)
    commands = [w for w in (command_words(c) for c in clause.commands) if w]
    entry: dict[str, Any] = {"m": memory.id, "c": index, "on": list(clause.on)}
    if globs:
        entry["g"] = globs
    if commands:
        entry["cmd"] = commands
    if clause.symbols:
        entry["sym"] = list(clause.symbols)
    if clause.keywords:
        entry["kw"] = [w for w in (words(k) for k in clause.keywords) if w]
    if not keys:  # bucket by the first narrowing dimension the clause has
        if commands:
            keys = ["c:" + c[0] for c in commands]
        elif clause.symbols:
            keys = ["s:" + s for s in clause.symbols]
        else:
            keys = ["w:" + w[0] for w in entry.get("kw", [])]
    return entry, list(dict.fromkeys(k.lower() for k in keys))


def _record(memory: Memory) -> dict[str, Any]:
    return {
        "title": memory.title,
        "kind": memory.kind.value,
        "topic": memory.topic,
        "status": memory.status.value,
        "body": memory.body,
        "evidence": [[e.ref, e.sha256] for e in memory.evidence if e.kind == "file" and e.sha256],
        "rank": _KIND_ORDER[memory.kind],
    }


def _check_entry(memory: Memory) -> dict[str, Any]:
    check = memory.check
    assert check is not None
    globs = list(check.paths) or [g for clause in memory.triggers for g in clause.paths]
    expanded = [one for glob in globs for one in expand_braces(glob)]
    kinds = _check_kinds(memory)
    is_command = bool(check.if_command or check.unless_command)
    when = "command" if is_command else (check.when or "turn")
    return {
        "title": memory.title,
        "when": when,
        "if": check.if_command if is_command else check.if_content,
        "unless": check.unless_command if is_command else check.unless_content,
        "paths": expanded,
        "on": kinds,
        "message": check.message or memory.title,
    }


def _check_kinds(memory: Memory) -> list[str]:
    """The event kinds whose files a check judges: those its memory's triggers name among
    ``edit``, ``write`` and ``run`` (files changed through the shell or any other program), else
    all three."""
    named = {k for clause in memory.triggers for k in clause.on}
    return sorted(named & {"edit", "run", "write"}) or ["edit", "run", "write"]


def compile_memory(memory: Memory) -> dict[str, Any]:
    """What one live memory contributes to the index (cached per file between compiles)."""
    out: dict[str, Any] = {
        "id": memory.id,
        "record": _record(memory),
        "clauses": [clause_entry(memory, i, c) for i, c in enumerate(memory.triggers)],
    }
    if memory.check is not None:
        problem = verify_check(memory.check)
        if problem is None:
            out["check"] = _check_entry(memory)
        else:
            out["left_out"] = problem
    return out
