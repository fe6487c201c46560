"""Edits a person makes, validated exactly as ingestion validates (status changes are core's
``cuecard.core.review.Decisions``).

Pure: ``edited`` merges the changed fields into a memory and runs the store's validation plus
ingestion's own refusals (generic advice, a duplicate of another live memory); every refusal is
returned with the form field it names, so the page can show it next to that field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cuecard.core import CuecardError, Memory, ValidationError, validate_memory
from cuecard.core.review import generic_reason

__all__ = [
    "EDITABLE",
    "EditRefused",
    "FieldError",
    "edited",
    "field_errors",
]

EDITABLE = (
    "title",
    "topic",
    "kind",
    "body",
    "not_derivable",
    "triggers",
    "check",
    "evidence",
    "batch",
)
"""Fields a person may change from the memory's page (status has its own action)."""

_LABEL = re.compile(r"^memory (?:\(new\)|[0-9a-f-]{1,8}…?): ")
_FIELD = re.compile(r"^([a-z_]+(?:\[\d+\]|\.[a-z_]+)*)")


@dataclass(frozen=True)
class FieldError:
    """One refusal and the field it names (``(record)`` when it names none)."""

    field: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


class EditRefused(CuecardError, ValueError):
    """An edit broke a rule; nothing was written."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e.field}: {e.message}" for e in errors))


def field_errors(refusals: Iterable[str]) -> list[FieldError]:
    """Each refusal of ``validate_memory`` with the field it names."""
    fields = set(Memory.model_fields)
    out = []
    for refusal in refusals:
        text = _LABEL.sub("", refusal)
        found = _FIELD.match(text)
        name = found.group(1) if found else ""
        root = re.split(r"[.\[]", name, maxsplit=1)[0] if name else ""
        out.append(FieldError(name if root in fields else "(record)", text))
    return out


def _duplicate(memory: Memory, others: Iterable[Memory]) -> FieldError | None:
    from cuecard.core.review import DUPLICATE_AT, jaccard, words

    mine = words(f"{memory.title} {memory.body}")
    for other in others:
        if other.id in (memory.id, memory.revises) or not other.live:
            continue
        score = jaccard(mine, words(f"{other.title} {other.body}"))
        if score >= DUPLICATE_AT:
            return FieldError(
                "body",
                f"it duplicates live memory {other.id[:8]} (similarity {score:.2f}); "
                "edit that memory instead",
            )
    return None


def edited(memory: Memory, changes: Mapping[str, Any], others: Iterable[Memory] = ()) -> Memory:
    """``memory`` with ``changes`` applied and validated; ``EditRefused`` names each field."""
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise EditRefused(
            [
                FieldError(k, f"{k} cannot be changed here (editable: {', '.join(EDITABLE)})")
                for k in unknown
            ]
        )
    raw = memory.model_dump(mode="json")
    for key, value in changes.items():
        raw[key] = (
            value
            if not (
                isinstance(value, str) and key in ("not_derivable", "batch") and not value.strip()
            )
            else None
        )
    try:
        result = validate_memory(raw)
    except ValidationError as exc:
        raise EditRefused(field_errors(exc.refusals)) from None
    narrow = any(t.paths or t.commands or t.symbols for t in result.triggers)
    generic = generic_reason(result.title, result.body, narrow)
    problems = []
    if generic is not None:
        problems.append(FieldError("body", f"the memory {generic}"))
    twin = _duplicate(result, others)
    if twin is not None:
        problems.append(twin)
    if problems:
        raise EditRefused(problems)
    return result
