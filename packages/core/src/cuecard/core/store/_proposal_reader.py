"""Reading one inbox proposal: its text checked for credentials (escaped ones too), parsed as
one JSON object and validated as a memory or a request proposal, or refused with a reason code."""

from __future__ import annotations

import pydantic

from cuecard.core.base._decoding import decode_utf8, load_json
from cuecard.core.base._errors import BadInput, CuecardError
from cuecard.core.engine._text import find_secret
from cuecard.core.store._proposal import MemoryProposal, Proposal, RequestProposal
from cuecard.core.store._validate import flat_strings, schema_messages

__all__ = ["Refused", "parse_proposal"]


class Refused(CuecardError):
    """A proposal refused: a reason code (for telemetry) and the reasons (for the agent)."""

    def __init__(self, code: str, reasons: list[str]) -> None:
        self.code = code
        self.reasons = reasons
        super().__init__("; ".join(reasons))


def parse_proposal(data: bytes) -> Proposal:
    """The proposal in the file's bytes ``data``, or ``Refused`` with the reason code and
    reasons. It must be UTF-8 text, one JSON object nested at most ``MAX_NESTING`` levels, with
    no lone surrogate in any key or string (a ``\\ud800`` escape included)."""
    try:
        raw_text = decode_utf8(data, "the proposal")
    except BadInput as exc:
        raise Refused("not_utf8", [str(exc)]) from None
    secret = find_secret(raw_text)
    if secret is not None:
        raise Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    try:
        raw = load_json(raw_text, "the proposal")
    except BadInput as exc:
        raise Refused("invalid_json", [str(exc)]) from None
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
