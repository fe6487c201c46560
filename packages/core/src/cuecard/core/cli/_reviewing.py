"""What the terminal's review commands share: the REFs they take, their common options, and
core's ``Decisions`` for this project, this person and the configured vault."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.lifecycle._decisions import Decisions

__all__ = ["REFS", "add_common", "decisions"]

REFS = """\
what to give accept, reject and archive (REF):
  ID                a memory (its id or a unique prefix): a candidate, a revision, a contested
                    memory; accept makes it live (a revision supersedes what it revises),
                    reject archives a candidate, archive retires a live memory
  request:ID        an agent's archive request: accept (or archive) carries it out,
                    reject dismisses it
  batch:NAME        a batch, decided whole: each candidate under its own rules (one refused
                    is reported, the others go on), a revision in it left to you
  inbox             the vault's inbox: accept reviews and promotes every submission at once
                    (a conflict is queued); `cuecard vault review` lists them first
  pending           the vault's pending list: accept promotes it
  pending:N         one pending item: reject leaves it out of the promotion
  conflict:ID       a vault conflict: accept uses the new fact, reject keeps the old
                    (`cuecard vault adjudicate` also offers keep-both and defer)
"""


def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vault",
        metavar="PATH|URL",
        help="the vault whose inbox and conflicts to include, a folder or a postgresql:// URL "
        "(default: CUECARD_VAULT or config `vault`)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def decisions(args: argparse.Namespace, *, need_vault: bool = False) -> Decisions:
    """Core's ``Decisions`` for this project, the person and the vault the settings name."""
    import getpass

    from cuecard.core.base._errors import UsageError
    from cuecard.core.cli.vault._open import notice
    from cuecard.core.lifecycle._decisions import Decisions
    from cuecard.core.store._store import Store
    from cuecard.core.vault._location import resolve_vault_location

    store = Store.open()
    store.config()
    try:
        vault: str | None = resolve_vault_location(getattr(args, "vault", None))
    except UsageError:
        if need_vault:
            raise
        vault = None  # no vault configured: nothing of it waits
    reviewer = getattr(args, "reviewer", None) or getpass.getuser() or "person"
    return Decisions(store, reviewer=reviewer, vault_location=vault, notify=notice)
