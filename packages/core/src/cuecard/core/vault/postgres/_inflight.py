"""A statement sent on a vault's connection without waiting for its answer.

libpq's asynchronous calls (``psycopg.pq``): ``send`` puts one statement on the wire (its own
transaction: it is only sent while no transaction is open) and returns at once; ``answer``
waits for its rows, raising the error the server gave as psycopg would. A search sends the read
of the database's generation before it ranks, so the server answers while this process ranks,
and sends the use record of its results without waiting: its answer is read at the next use of
the connection (``PgVault.conn``) or when the vault is closed, and an error in it is raised
there. psycopg's own connection never sees the statement, so nothing else may use the
connection until the answer is read (``PgVault.conn`` reads it first).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg

__all__ = ["Inflight", "text_array"]


def text_array(values: Sequence[str]) -> str:
    """``values`` as a PostgreSQL array literal of text (each element quoted, ``\\`` and ``"``
    escaped), for a ``text[]`` parameter sent in text format."""
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return "{" + ",".join(quoted) + "}"


def _wait(fileno: int, *, write: bool = False) -> None:
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(fileno, selectors.EVENT_WRITE if write else selectors.EVENT_READ)
        selector.select()


class Inflight:
    """At most one statement on ``conn`` whose answer is still to be read."""

    def __init__(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        self._conn = conn
        self.waiting = False

    def send(self, sql: str, params: Sequence[str | None] = ()) -> bool:
        """Send ``sql`` (``$1``-style parameters, in text format) as its own transaction, after
        reading the answer of the statement before; whether it was sent (not while a
        transaction is open: the caller runs it inside that transaction instead)."""
        from psycopg.pq import TransactionStatus

        self.settle()
        pgconn = self._conn.pgconn
        if pgconn.transaction_status != TransactionStatus.IDLE:
            return False
        enc = self._conn.info.encoding
        pgconn.send_query_params(
            sql.encode(enc), [None if p is None else p.encode(enc) for p in params]
        )
        self.waiting = True
        while pgconn.flush():  # 1 while some of it is still to be written (non-blocking)
            _wait(pgconn.socket, write=True)
        return True

    def answer(self) -> list[tuple[str | None, ...]]:
        """The rows of the statement sent (text), once the server has answered; its error
        raised as psycopg raises it. Nothing is waited for when none was sent."""
        import psycopg
        from psycopg.pq import ExecStatus

        if not self.waiting:
            return []
        self.waiting = False
        pgconn = self._conn.pgconn
        results = []
        while True:
            while pgconn.is_busy():
                _wait(pgconn.socket)
                pgconn.consume_input()
            result = pgconn.get_result()
            if result is None:
                break
            results.append(result)
        rows: list[tuple[str | None, ...]] = []
        enc = self._conn.info.encoding
        for result in results:
            if result.status == ExecStatus.FATAL_ERROR:
                raise psycopg.errors.error_from_result(result, encoding=self._conn.info.encoding)
            for r in range(result.ntuples):
                values = (result.get_value(r, c) for c in range(result.nfields))
                rows.append(tuple(None if v is None else bytes(v).decode(enc) for v in values))
        return rows

    def settle(self) -> None:
        """Read the answer of a statement sent and not read yet (raising its error)."""
        if self.waiting:
            self.answer()
