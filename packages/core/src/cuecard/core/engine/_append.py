"""Appending records to a log file, never through a link and never blocking. Standard library only.

Every append-only log cuecard keeps (the delivery ledger, footprints, held check reports, the
reports held for Stop, the usage log of a folder vault, the review UI's history, the ingest
telemetry) lives in a folder a repository or a vault holds, where a link or a FIFO can be
planted: a committed ``ledger.jsonl -> ~/.bashrc`` must not receive cuecard's lines, and a FIFO
must not hang the hook that opens it. So every log is appended here: opened with ``O_NOFOLLOW``
(a link in the file's place is refused) and ``O_NONBLOCK`` (a FIFO without a reader is refused
at once instead of blocking), required to be a regular file, and written with one ``write`` on
``O_APPEND`` so that lines from parallel processes never interleave.
"""

from __future__ import annotations

import os
import stat

__all__ = ["append_record"]

_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_APPEND
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def append_record(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> None:
    """Append ``data`` to the regular file ``path`` (created with ``mode``) in one ``write``.

    Raises ``OSError`` for a link, a FIFO, a device or a folder in the file's place; nothing is
    written then. Callers on the hot path catch it and carry on without the record.
    """
    fd = os.open(path, _FLAGS, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{os.fspath(path)}: not a regular file, nothing appended")
        os.write(fd, data)
    finally:
        os.close(fd)
