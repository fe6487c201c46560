"""The interpreter record the plugins read to resolve their ``default`` python."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from cuecard.core.fs import atomic_write
from cuecard.dsh_adapter.__about__ import __version__
from cuecard.dsh_adapter._errors import DshAdapterError
from cuecard.dsh_adapter._paths import interpreter_record

__all__ = ["record_interpreter"]


def record_interpreter(python: Path, env: Mapping[str, str] | None = None) -> Path:
    """Write ``dsh.json`` naming ``python`` (absolute) for the plugins; return its path."""
    if not python.is_absolute():
        raise DshAdapterError(f"interpreter {python} must be an absolute path")
    record = interpreter_record(env)
    record.parent.mkdir(parents=True, exist_ok=True)
    body = {"python": str(python), "recorded_by": f"cuecard-dsh-adapter {__version__}"}
    atomic_write(record, json.dumps(body, indent=2) + "\n")
    return record
