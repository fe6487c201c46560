"""Statements sent on a vault's connection without waiting for their answers.

libpq's asynchronous calls in pipeline mode (``psycopg.pq``): ``send`` puts a statement on the
wire as its own transaction (a Sync after it; only sent while no transaction is open) and
returns at once, behind any sent before it whose answers are still to be read; ``answer``
waits for the answers in order and gives the rows of the last, raising the first error the
server gave as psycopg would. A search sends the read of the database's generation before it
ranks, so the server answers while this process ranks, and sends the use record of its results
without waiting: its answer is read with the next search's generation, at the next use of the
connection (``PgVault.conn``) or when the vault is closed, and an error in it is raised there.
psycopg's own connection never sees these statements, so nothing else may use the connection
until their answers are read and pipeline mode is left (``settle``; ``PgVault.conn`` does it).
Where the libpq lacks pipeline mode (before 14), each statement waits for the one before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg
    from psycopg.pq.abc import PGresult

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
    """The statements sent on ``conn`` whose answers are still to be read."""

    def __init__(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        from psycopg import Pipeline

        self._conn = conn
        self._pipeline = Pipeline.is_supported()
        self.waiting = 0

    def send(self, sql: str, params: Sequence[str | None] = ()) -> bool:
        """Send ``sql`` (``$1``-style parameters, in text format) as its own transaction; whether
        it was sent (not while a transaction is open: the caller runs it inside that
        transaction instead)."""
        from psycopg.pq import TransactionStatus

        pgconn = self._conn.pgconn
        if not self._pipeline:
            self.settle()
        if not self.waiting:
            if pgconn.transaction_status != TransactionStatus.IDLE:
                return False
            if self._pipeline:
                pgconn.enter_pipeline_mode()
        enc = self._conn.info.encoding
        pgconn.send_query_params(
            sql.encode(enc), [None if p is None else p.encode(enc) for p in params]
        )
        if self._pipeline:
            pgconn.pipeline_sync()  # its own transaction; the server answers now
        self.waiting += 1
        while pgconn.flush():  # 1 while some of it is still to be written (non-blocking)
            _wait(pgconn.socket, write=True)
        return True

    def _next(self) -> PGresult | None:
        pgconn = self._conn.pgconn
        while pgconn.is_busy():
            _wait(pgconn.socket)
            pgconn.consume_input()
        return pgconn.get_result()

    def _one(self) -> list[PGresult]:
        """The results of the oldest statement sent (and, in pipeline mode, its Sync's)."""
        import psycopg
        from psycopg.pq import ExecStatus

        results = []
        while (result := self._next()) is not None:
            results.append(result)
        if self._pipeline:
            sync = self._next()
            if sync is None or sync.status != ExecStatus.PIPELINE_SYNC:
                raise psycopg.OperationalError(
                    "the server's answers are out of step with the statements sent"
                )
        self.waiting -= 1
        return results

    def answer(self) -> list[tuple[str | None, ...]]:
        """The rows (text) of the last statement sent, once the server has answered it and
        every one before; the first error among them raised as psycopg raises it (after all
        were read). Nothing is waited for when none was sent."""
        import psycopg
        from psycopg.pq import ExecStatus

        error: psycopg.Error | None = None
        results: list[PGresult] = []
        try:
            while self.waiting:
                results = self._one()
                for result in results:
                    if result.status == ExecStatus.FATAL_ERROR and error is None:
                        error = psycopg.errors.error_from_result(
                            result, encoding=self._conn.info.encoding
                        )
        finally:
            if self._pipeline and not self.waiting:
                self._conn.pgconn.exit_pipeline_mode()
        if error is not None:
            raise error
        enc = self._conn.info.encoding
        rows: list[tuple[str | None, ...]] = []
        for result in results:
            for r in range(result.ntuples):
                values = (result.get_value(r, c) for c in range(result.nfields))
                rows.append(tuple(None if v is None else bytes(v).decode(enc) for v in values))
        return rows

    def settle(self) -> None:
        """Read the answers of the statements sent and not read yet (raising the first error)
        and leave pipeline mode: the connection is psycopg's again."""
        if self.waiting:
            self.answer()
