"""The vault backend interface: what every ``cuecard vault`` command asks of a vault.

A protocol only: it names no implementation (``_factory.open_backend`` chooses one). Commands
never ask which backend they hold; where the two store things differently (the pending list is
a file or a table), ``places`` names where, for messages.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date
    from typing import Any, Protocol, Self

    from cuecard.core.vault._digest import DigestConfig
    from cuecard.core.vault._model import (
        Applied,
        Candidate,
        Conflict,
        Found,
        Pending,
        Places,
        Reviewed,
        Shown,
    )
    from cuecard.core.vault._settings import Settings
else:
    Protocol = object  # the interface is for type checkers; at run time, a plain base class

__all__ = ["Backend"]


class Backend(Protocol):
    """A vault, folder or database. Every method is one whole operation, safe to run while
    other processes (other machines, for a database) run any of them."""

    kind: str
    """``folder`` or ``postgresql``."""
    layout_name: str

    @property
    def location(self) -> str:
        """The folder path or the URL (never holding a password)."""
        ...

    @property
    def places(self) -> Places:
        """Where this backend keeps each queue and archive, for messages."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc: object) -> None: ...

    def today(self) -> date:
        """The vault clock's date (stamps, forgetting)."""
        ...

    def status(self) -> dict[str, Any]:
        """What ``vault status --json`` prints."""
        ...

    def submit(self, agent: str, lines: list[str]) -> tuple[str, int]:
        """Queue one submission; its name and fact count."""
        ...

    def search(
        self,
        query: str,
        limit: int,
        *,
        mode: str = "bm25",
        explain: bool = False,
        settings: Settings | None = None,
    ) -> Found:
        """The best canonical facts for ``query``; they count as used. ``mode`` is ``bm25``
        (lexical ranking) or ``hybrid`` (streams fused by RRF with ``settings``, by default the
        user config's); with ``explain`` each result carries its rank in every stream."""
        ...

    def show(self, name: str) -> Shown:
        """A canonical note by id or file name; its facts count as used. ``NotFound`` if none."""
        ...

    def inbox(self) -> list[str]:
        """The names of the submissions waiting for review or promotion, in order."""
        ...

    def pending(self) -> list[tuple[int, Pending]]:
        """The pending list as it stands (what ``apply`` would promote), with item ids."""
        ...

    def review(self) -> Reviewed:
        """Classify the waiting submissions into the pending list; queue conflicts."""
        ...

    def drop_pending(self, ident: int) -> Pending | None:
        """Leave one pending item out of the next apply; the item, or None if no such id."""
        ...

    def apply(self, *, auto: bool) -> tuple[Applied, int]:
        """Promote the pending list (``auto``: review first, in one step); (done, conflicts)."""
        ...

    def conflicts(self) -> list[Conflict]:
        """The conflict queue, in order."""
        ...

    def adjudicate(self, ident: str, decision: str) -> Conflict:
        """Carry out a decision on one queued conflict (id or unique prefix)."""
        ...

    def forget(self, *, today: date, days: int, apply: bool) -> list[Candidate]:
        """The stale, unprotected, unused facts; moved out (reversibly) when ``apply``."""
        ...

    def archive(self, agent: str, title: str, text: str) -> tuple[str, int] | None:
        """Append a redacted session block to the day's archive; (archive name, lines)."""
        ...

    def digest(self, config: DigestConfig, *, dry_run: bool, limit: int | None) -> dict[str, Any]:
        """Digest new session-archive text into one submission (see ``_digest``)."""
        ...
