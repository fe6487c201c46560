"""Submissions: facts an agent writes to the vault inbox, one file per submission.

Every line is checked before anything is written; one credential-shaped or unsafe line refuses
the whole submission. The file is published by exclusive atomic create, so two agents never
share a name; a taken name moves on to the next number.
"""

from __future__ import annotations

from cuecard.core.vault._errors import VaultError
from cuecard.core.vault._rules import MAX_SEQUENCE, check_agent, check_facts
from cuecard.core.vault.folder._vault import Vault

__all__ = ["submit"]


def submit(vault: Vault, agent: str, lines: list[str]) -> tuple[str, int]:
    """Write one inbox file; return its name and the number of facts."""
    check_agent(agent)
    facts = check_facts(lines)
    body = "".join(f"- {fact}\n" for fact in facts)
    stamp = vault.now().strftime("%Y%m%d-%H%M%S")
    inbox = vault.layout.inbox
    vault.tree.mkdirs(inbox)
    for sequence in range(1, MAX_SEQUENCE + 1):
        name = f"{agent}-{stamp}-{sequence:02d}.md"
        if vault.tree.create(f"{inbox}/{name}", body, atomic=True):
            return name, len(facts)
    raise VaultError(f"could not allocate an inbox file name for {agent}-{stamp}-NN.md")
