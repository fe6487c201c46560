"""Reading one inbox proposal: its text checked for credentials (escaped ones too), parsed as
one JSON object and validated as a memory or a request proposal, or refused with a reason code."""

from __future__ import annotations

import json

import pydantic

from cuecard.core._errors import CuecardError
from cuecard.core._proposal import MemoryProposal, Proposal, RequestProposal
from cuecard.core._validate import flat_strings, schema_messages
from cuecard.core.engine._text import find_secret

__all__ = ["Refused", "parse_proposal"]


class Refused(CuecardError):
    """A proposal refused: a reason code (for telemetry) and the reasons (for the agent)."""

    def __init__(self, code: str, reasons: list[str]) -> None:
        self.code = code
        self.reasons = reasons
        super().__init__("; ".join(reasons))


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
    # What escapes could hide from the scan above: every key and string, decoded.
    secret = find_secret("\n".join(flat_strings(raw)))
    if secret is not None:
        raise Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    model: type[MemoryProposal] | type[RequestProposal]
    model = RequestProposal if "request" in raw else MemoryProposal
    try:
        return model.model_validate(raw)
    except pydantic.ValidationError as error:
        raise Refused("schema", schema_messages(error)) from None
