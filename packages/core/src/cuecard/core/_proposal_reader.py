"""Reading one inbox proposal: its text checked for credentials (escaped ones too), parsed as
one JSON object and validated as a memory or a request proposal, or refused with a reason code."""

from __future__ import annotations

import json
from typing import Any

import pydantic

from cuecard.core._errors import CuecardError
from cuecard.core._proposal import MemoryProposal, Proposal, RequestProposal
from cuecard.core._validate import schema_messages
from cuecard.core.engine._text import find_secret

__all__ = ["Refused", "parse_proposal"]


class Refused(CuecardError):
    """A proposal refused: a reason code (for telemetry) and the reasons (for the agent)."""

    def __init__(self, code: str, reasons: list[str]) -> None:
        self.code = code
        self.reasons = reasons
        super().__init__("; ".join(reasons))


def _decoded_strings(value: Any) -> str:
    """Every key and string of parsed JSON, one per line: what escapes could hide from a scan."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "\n".join(out)


def parse_proposal(raw_text: str) -> Proposal:
    """The proposal in ``raw_text``, or ``Refused`` with the reason code and reasons."""
    secret = find_secret(raw_text)
    if secret is not None:
        raise Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    try:
        raw = json.loads(raw_text)
    except ValueError as exc:
        raise Refused("invalid_json", [f"the proposal is not valid JSON ({exc})"]) from None
    except RecursionError:
        raise Refused("invalid_json", ["the proposal is nested too deeply"]) from None
    if not isinstance(raw, dict):
        raise Refused("not_object", ["the proposal is not one JSON object"])
    secret = find_secret(_decoded_strings(raw))
    if secret is not None:
        raise Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    model: type[MemoryProposal] | type[RequestProposal]
    model = RequestProposal if "request" in raw else MemoryProposal
    try:
        return model.model_validate(raw)
    except pydantic.ValidationError as error:
        raise Refused("schema", schema_messages(error)) from None
