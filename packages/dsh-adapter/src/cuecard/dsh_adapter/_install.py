"""The interpreter record the plugins read to resolve their ``default`` python."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from cuecard.core.fs import atomic_write
from cuecard.dsh_adapter.__about__ import __version__
from cuecard.dsh_adapter._errors import DshAdapterError
from cuecard.dsh_adapter._journal import Journal
from cuecard.dsh_adapter._paths import interpreter_record

__all__ = ["record_interpreter"]


def record_interpreter(
    python: Path, env: Mapping[str, str] | None = None, *, journal: Journal | None = None
) -> Path:
    """Write ``dsh.json`` naming ``python`` (absolute) for the plugins; return its path. With a
    ``journal``, the write is undone when the install fails."""
    if not python.is_absolute():
        raise DshAdapterError(f"interpreter {python} must be an absolute path")
    record = interpreter_record(env)
    body = {"python": str(python), "recorded_by": f"cuecard-dsh-adapter {__version__}"}
    if journal is not None:
        journal.before_write(record)
    atomic_write(record, json.dumps(body, indent=2) + "\n")
    return record
