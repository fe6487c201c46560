"""Submissions: facts an agent writes to the vault inbox, one file per submission.

Every line is checked before anything is written; one credential-shaped or unsafe line refuses
the whole submission. The file is published by exclusive atomic create, so two agents never
share a name; a taken name moves on to the next number.
"""

from __future__ import annotations

import re

from cuecard.core._errors import UsageError, ValidationError
from cuecard.core._fsio import exclusive_create
from cuecard.core.engine._text import strip_invisibles, unsafe_reason
from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._facts import inbox_facts
from cuecard.core.vault._secrets import find_credential
from cuecard.core.vault.folder._vault import Vault

__all__ = ["AGENT_RULE", "MAX_FACTS", "MAX_FACT_CHARS", "check_agent", "check_facts", "submit"]

AGENT = re.compile(r"^[^\W_][\w.-]{0,63}$")
AGENT_RULE = (
    "use 1-64 letters, digits, dots, underscores or hyphens, starting with a letter or digit"
)
MAX_FACTS = 200
MAX_FACT_CHARS = 4_000
MAX_SEQUENCE = 999


def check_agent(agent: str) -> str:
    if not AGENT.fullmatch(agent):
        raise UsageError(f"--agent {agent!r}: invalid agent name: {AGENT_RULE}")
    return agent


def check_facts(lines: list[str]) -> list[str]:
    """The facts of the submitted text, or ``ValidationError`` naming every refused line."""
    facts = [
        f for f in (strip_invisibles(fact).strip() for fact in inbox_facts("\n".join(lines))) if f
    ]
    if not facts:
        raise ValidationError(["nothing to submit: give at least one non-blank fact line"])
    refusals: list[str] = []
    if len(facts) > MAX_FACTS:
        refusals.append(f"submission: {len(facts)} facts, at most {MAX_FACTS} per submission")
    for number, fact in enumerate(facts, 1):
        secret = find_credential(fact)
        if secret is not None:
            refusals.append(
                f"fact {number}: looks like a plaintext credential ({secret}); store a label or "
                "where it is kept, never the secret"
            )
        unsafe = unsafe_reason(fact)
        if unsafe is not None:
            refusals.append(f"fact {number}: {unsafe}")
        if len(fact) > MAX_FACT_CHARS:
            refusals.append(f"fact {number}: {len(fact)} characters, at most {MAX_FACT_CHARS}")
    if refusals:
        raise ValidationError(["submission rejected, nothing written:", *refusals])
    return facts


def submit(vault: Vault, agent: str, lines: list[str]) -> tuple[str, int]:
    """Write one inbox file; return its name and the number of facts."""
    check_agent(agent)
    facts = check_facts(lines)
    body = "".join(f"- {fact}\n" for fact in facts)
    stamp = vault.now().strftime("%Y%m%d-%H%M%S")
    vault.inbox.mkdir(parents=True, exist_ok=True)
    for sequence in range(1, MAX_SEQUENCE + 1):
        name = f"{agent}-{stamp}-{sequence:02d}.md"
        if exclusive_create(vault.inbox / name, body):
            return name, len(facts)
    raise VaultError(f"could not allocate an inbox file name for {agent}-{stamp}-NN.md")
