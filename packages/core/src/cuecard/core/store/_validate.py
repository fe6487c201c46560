"""Validation before anything is written: schema and sizes, secrets, unsafe content, globs, rules.

Each refusal names the memory, the field and the rule, e.g.
``memory 7f3a…: triggers[0].paths[1] "../x" leaves the repository``. A secret is never echoed.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

import pydantic

from cuecard.core.base._errors import ValidationError
from cuecard.core.engine._secrets import may_hold_secret
from cuecard.core.engine._text import (
    find_secret,
    may_be_unsafe,
    redact,
    strip_invisibles,
    unsafe_reason,
)
from cuecard.core.store._globs import glob_problem
from cuecard.core.store._memory import TOPIC_PATTERN, Check, Memory, Trigger

__all__ = [
    "MAX_MEMORY_JSON",
    "field_name",
    "flat_strings",
    "memory_label",
    "schema_messages",
    "validate_memory",
    "validate_memory_text",
    "verify_check",
]

MAX_MEMORY_JSON = 32_000
_EXEMPT = re.compile(r"^evidence\[\d+\]\.sha256$")
# A JSON escape, and what the scans of a file's text read for each: as decoded, so that every
# string stands in the text as it is (a quote a credential rule reads is a quote, a tab a space).
# Any other escape (``\\u…``) could hide a character from them.
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_DECODED = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r"}
# A file evidence hash as the model defines it (``Evidence.sha256``) under its key: the scans of a
# file's text read each as ``null``, as the field path exempts its field. A record that passes the
# schema holds a ``sha256`` key nowhere but in an evidence item; any other takes the field path.
_EVIDENCE_HASH = re.compile(r'"sha256"[ \t\n\r]*:[ \t\n\r]*"[0-9a-f]{64}"')
_SYMBOL = re.compile(r"^[A-Za-z_$][\w$.:#-]*$")
_glob_problem = functools.lru_cache(maxsize=16_384)(glob_problem)
"""``glob_problem`` remembered per glob: a compile of 10,000 memories meets the same few
thousand globs again and again, and checking one builds its matcher (≈ 0.2 ms)."""


def memory_label(raw: Mapping[str, Any]) -> str:
    """The short name a refusal gives a memory: ``memory 7f3a…`` or ``memory (new)``."""
    ident = raw.get("id")
    if isinstance(ident, str) and ident:
        return f"memory {ident[:4]}…" if len(ident) > 4 else f"memory {ident}"
    return "memory (new)"


def field_name(loc: tuple[int | str, ...]) -> str:
    """Render a location tuple as ``triggers[0].paths[1]``.

    A location holds the keys of the input, and a key can be a credential
    (``{"AKIA…": 1}``): a key that holds one is shown as ``[redacted]``.
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            key = "[redacted]" if find_secret(str(part)) is not None else str(part)
            out += f".{key}" if out else key
    return out or "(record)"


# What a value must look like, in words, for the patterns a person meets; a message never shows a
# raw regular expression.
_PATTERN_WORDS = {
    TOPIC_PATTERN: (
        "must be lowercase letters, digits, '.', '_' or '-', in up to six parts joined by '/', "
        "each part starting with a letter or digit and at most 64 characters long, "
        "e.g. billing/retries"
    ),
    r"^[A-Za-z0-9_.-]+$": "may hold only letters, digits, '.', '_' and '-', e.g. release_2-1",
    r"^[0-9a-f]{64}$": "must be a sha256 digest: 64 lowercase hexadecimal digits",
}


def _rule_words(item: Mapping[str, Any]) -> str:
    if item.get("type") == "string_pattern_mismatch":
        pattern = (item.get("ctx") or {}).get("pattern")
        if pattern in _PATTERN_WORDS:
            return _PATTERN_WORDS[pattern]
        return "does not have the form this field takes"
    message = str(item["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    return message.lower()


def schema_messages(error: pydantic.ValidationError) -> list[str]:
    """One line per schema error, ``field rule``: the rule in words, credentials redacted.

    Every message that renders a schema error goes through here, so that no key or value of
    the input that holds a credential ever reaches a person, an agent or a log.
    """
    return [
        redact(f"{field_name(tuple(item['loc']))} {_rule_words(item)}")
        for item in error.errors(include_url=False, include_input=False)
    ]


_Located = list[tuple[tuple[Any, ...], str]]


def _strings(value: Any, loc: tuple[Any, ...] = (), out: _Located | None = None) -> _Located:
    """Every string key and value of ``value`` with its location, in order (``field_name``
    names a location: made only for a refusal, since naming one scans its keys for
    credentials)."""
    out = [] if out is None else out
    if isinstance(value, str):
        out.append((loc, value))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                out.append(((*loc, "(key)"), key))
            _strings(item, (*loc, str(key)), out)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _strings(item, (*loc, index), out)
    return out


def flat_strings(value: Any) -> list[str]:
    """Every string key and string value of ``value`` (parsed JSON, or any mappings, lists and
    tuples), however deep: what a credential scan of the decoded text reads."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif item is None or isinstance(item, int | float):  # no string (nor a slow ABC test)
            continue
        elif isinstance(item, Mapping):
            stack.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
    return out


def _suspects(texts: list[str]) -> list[int]:
    """The indexes of the texts that may hold a credential alone. A text that may hold one makes
    every run of lines holding it one that may, so the short texts (ids, kinds, times, globs)
    are tested together and halved only while a run may; a long one is tested alone."""
    short = [i for i, text in enumerate(texts) if len(text) < 64]
    found = [i for i, text in enumerate(texts) if len(text) >= 64 and may_hold_secret(text)]
    runs = [short]
    while runs:
        run = runs.pop()
        if not run or not may_hold_secret("\n".join(texts[i] for i in run)):
            continue
        if len(run) == 1:
            found.append(run[0])
        else:
            runs += [run[: len(run) // 2], run[len(run) // 2 :]]
    return found


def _holds_secret(texts: list[str]) -> bool:
    """Whether any of ``texts`` holds a credential (``find_secret``), each tested only when it
    may."""
    return any(find_secret(texts[i]) is not None for i in _suspects(texts))


def _content_refusals(label: str, raw: Mapping[str, Any]) -> list[str]:
    texts = flat_strings(raw)
    unsafe_possible = may_be_unsafe("\n".join(texts))
    if not unsafe_possible and not _holds_secret(texts):
        return []
    located = _strings(raw)  # a refusal to make: the same strings in order, with their fields
    texts = [text for _, text in located]
    suspects = set(_suspects(texts))
    refusals = []
    for index, (loc, text) in enumerate(located):
        secret = find_secret(text) if index in suspects else None
        unsafe = unsafe_reason(text) if unsafe_possible else None
        if secret is None and unsafe is None:
            continue
        where = field_name(loc)
        if _EXEMPT.match(where):
            continue
        if secret is not None:
            refusals.append(
                f"{label}: {where} holds a credential-shaped value ({secret}); "
                "secrets are never stored"
            )
        if unsafe is not None:
            refusals.append(f"{label}: {where} {unsafe}")
    return refusals


def _schema_refusals(label: str, error: pydantic.ValidationError) -> list[str]:
    return [f"{label}: {message}" for message in schema_messages(error)]


def _rule_refusals(label: str, memory: Memory) -> list[str]:
    refusals = []
    for i, clause in enumerate(memory.triggers):
        for j, glob in enumerate(clause.paths):
            problem = _glob_problem(glob)
            if problem is not None:
                refusals.append(f'{label}: triggers[{i}].paths[{j}] "{glob}" {problem}')
        for j, symbol in enumerate(clause.symbols):
            if not _SYMBOL.match(symbol):
                refusals.append(
                    f'{label}: triggers[{i}].symbols[{j}] "{symbol}" is not an identifier'
                )
        if not (clause.paths or clause.symbols or clause.commands or clause.keywords):
            refusals.append(
                f"{label}: triggers[{i}] has no paths, symbols, commands or keywords, "
                "so it would fire on every event"
            )
        if clause.keywords and "prompt" not in clause.on:
            refusals.append(f"{label}: triggers[{i}].keywords match prompts only; add prompt to on")
        if clause.commands and not {"run", "read", "search"} & set(clause.on):
            refusals.append(f"{label}: triggers[{i}].commands need run, read or search in on")
        refusals.extend(_word_refusals(f"{label}: triggers[{i}]", clause))
    refusals.extend(_evidence_refusals(label, memory))
    if memory.check is not None:
        for j, glob in enumerate(memory.check.paths):
            problem = _glob_problem(glob)
            if problem is not None:
                refusals.append(f'{label}: check.paths[{j}] "{glob}" {problem}')
        refusals.extend(_check_refusals(label, memory))
    if memory.live and not memory.not_derivable and not memory.review.migrated:
        refusals.append(
            f"{label}: not_derivable is required for a live memory "
            "(say why a capable agent reading the code would not work this out)"
        )
    if memory.revises == memory.id:
        refusals.append(f"{label}: revises names the memory itself")
    return refusals


COMMAND_SYNTAX = (
    "a command pattern is the words a command starts with, program first (`alembic downgrade`); "
    "an argument may end with * to match any word that starts with the rest (`rm -rf build*`), "
    "and a trailing / is ignored (`rm -rf build/` is `rm -rf build`)"
)


def _word_refusals(where: str, clause: Trigger) -> list[str]:
    """Command patterns and keywords the matcher could never read as written."""
    from cuecard.core.engine._words import words

    refusals = []
    for j, command in enumerate(clause.commands):
        parts = command.split()
        if not parts:
            refusals.append(f'{where}.commands[{j}] "{command}" is empty; {COMMAND_SYNTAX}')
            continue
        if "*" in parts[0] or any("*" in w[:-1] for w in parts[1:]):
            refusals.append(
                f'{where}.commands[{j}] "{command}" uses * other than at the end of an '
                f"argument; {COMMAND_SYNTAX}"
            )
    for j, keyword in enumerate(clause.keywords):
        if not words(keyword):
            refusals.append(f'{where}.keywords[{j}] "{keyword}" holds no word to match')
    return refusals


def _evidence_refusals(label: str, memory: Memory) -> list[str]:
    """File evidence must name a file inside the repository by a relative path."""
    from cuecard.core.engine._evidence import ref_problem

    refusals = []
    for j, item in enumerate(memory.evidence):
        if item.kind == "file":
            problem = ref_problem(item.ref)
            if problem is not None:
                refusals.append(f'{label}: evidence[{j}].ref "{item.ref}" {problem}')
    return refusals


def _check_refusals(label: str, memory: Memory) -> list[str]:
    from cuecard.core.engine._checks import (
        pattern_problem,  # re2 is loaded only when a check exists
    )

    check = memory.check
    assert check is not None
    refusals = []
    content = check.if_content or check.unless_content
    command = check.if_command or check.unless_command
    if not (check.if_content or check.if_command):
        refusals.append(f"{label}: check needs if_content or if_command")
    if content and command:
        refusals.append(f"{label}: check mixes content and command patterns; keep one kind")
    for name in ("if_content", "unless_content", "if_command", "unless_command"):
        pattern = getattr(check, name)
        if pattern is not None:
            problem = pattern_problem(pattern)
            if problem is not None:
                refusals.append(f"{label}: check.{name} {problem}")
    return refusals


def verify_check(check: Check) -> str | None:
    """Why ``check`` fails its own examples (or RE2 refuses it), or ``None`` when it holds.

    The compiler asks this of each check: a check that fails it is left out of the index."""
    from cuecard.core.engine._checks import pattern_problem, violates

    is_command = bool(check.if_command or check.unless_command)
    if_pattern = check.if_command if is_command else check.if_content
    unless_pattern = check.unless_command if is_command else check.unless_content
    for name, pattern in (("if", if_pattern), ("unless", unless_pattern)):
        if pattern is not None:
            problem = pattern_problem(pattern)
            if problem is not None:
                return f"{name} pattern {problem}"
    for i, example in enumerate(check.violates):
        if not violates(if_pattern, unless_pattern, example):
            return f"violates[{i}] is not reported by the check"
    for i, example in enumerate(check.passes):
        if violates(if_pattern, unless_pattern, example):
            return f"passes[{i}] is reported by the check"
    return None


def _taken_in(value: Any) -> Any:
    """``value`` with harmless invisibles stripped from every string (``strip_invisibles``)."""
    if isinstance(value, str):
        return strip_invisibles(value)
    if isinstance(value, Mapping):
        return {key: _taken_in(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_taken_in(item) for item in value]
    return value


def validate_memory(raw: Mapping[str, Any]) -> Memory:
    """The memory ``raw`` describes, or ``ValidationError`` naming every broken rule.

    Harmless invisibles (a variation selector in "⚠️", a zero-width joiner) are stripped from
    its text first; what could hide or reorder meaning is refused.
    """
    label = memory_label(raw)
    if not isinstance(raw, Mapping):
        raise ValidationError([f"{label}: the record is not a JSON object"])
    raw = _taken_in(raw)
    refusals = _content_refusals(label, raw)
    size = len(json.dumps(raw, ensure_ascii=False, default=str))
    if size > MAX_MEMORY_JSON:
        refusals.append(f"{label}: the record is {size} characters; the limit is {MAX_MEMORY_JSON}")
    if refusals:
        raise ValidationError(refusals)
    try:
        memory = Memory.model_validate(dict(raw))
    except pydantic.ValidationError as error:
        raise ValidationError(_schema_refusals(label, error)) from None
    refusals = _rule_refusals(label, memory)
    if refusals:
        raise ValidationError(refusals)
    return memory


def _scanned(text: str) -> str | None:
    """A memory file's JSON text as its scans read it: each escape of a quote, backslash, line
    feed, tab or carriage return as the character it stands for, so that each string and key
    stands in it whole as decoded; ``None`` when another escape could hide a character."""
    if "\\" not in text:
        return text
    if not {m.group(1) for m in _ESCAPE.finditer(text)} <= _DECODED.keys():
        return None
    return _ESCAPE.sub(lambda m: _DECODED[m.group(1)], text)


def validate_memory_text(text: str) -> Memory:
    """The memory a file's JSON text describes: ``validate_memory`` with a fast path.

    Text that no write rule could touch (one scan of the whole file) and that is within the size
    limit is parsed and validated in one step; so is text that only looks as if it could hold a
    credential ("api key", "token") while none of its strings does. Neither scan reads a file
    evidence hash (64 lowercase hexadecimal digits under ``"sha256"``), whose field the path that
    names fields exempts too: a memory is no suspect for its evidence. Anything else takes the
    path that names fields.
    """
    if len(text) > MAX_MEMORY_JSON:
        return validate_memory(json.loads(text))
    seen = _EVIDENCE_HASH.sub('"sha256": null', text)
    scanned = _scanned(seen)
    if scanned is None or may_be_unsafe(scanned):
        return validate_memory(json.loads(text))
    if may_hold_secret(scanned):  # a word such as "token" or "key" in prose is enough
        try:
            raw = json.loads(seen)  # the record with its evidence hashes as None
        except ValueError:
            raw = None
        if not isinstance(raw, Mapping) or _holds_secret(flat_strings(raw)):
            return validate_memory(json.loads(text))
    try:
        memory = Memory.model_validate_json(text)
    except pydantic.ValidationError:
        return validate_memory(json.loads(text))
    refusals = _rule_refusals(memory_label({"id": memory.id}), memory)
    if refusals:
        raise ValidationError(refusals)
    return memory
