"""Recording the vault in the user config (``vault = "..."`` in ``config.toml``), so that every
cuecard command finds it without ``--vault`` or ``CUECARD_VAULT``."""

from __future__ import annotations

import json
import re

from cuecard.core.base._errors import ConfigError

__all__ = ["record_vault", "with_vault"]

_VAULT_LINE = re.compile(r"^\s*vault\s*=")
_TABLE = re.compile(r"^\s*\[")


def with_vault(text: str, location: str) -> str:
    """The TOML ``text`` with its top-level ``vault`` key set to ``location`` (added before the
    first table when missing); ``ConfigError`` when ``text`` (or the result) is not TOML."""
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the user config is not valid TOML ({exc}); fix it first") from None
    line = f"vault = {json.dumps(location, ensure_ascii=False)}"
    lines = text.splitlines()
    first_table = next((i for i, current in enumerate(lines) if _TABLE.match(current)), len(lines))
    for index in range(first_table):
        if _VAULT_LINE.match(lines[index]):
            lines[index] = line
            break
    else:
        lines.insert(first_table, line)
    result = "\n".join(lines) + "\n"
    if tomllib.loads(result).get("vault") != location:
        raise ConfigError("the user config's `vault` could not be set safely; set it by hand")
    return result


def record_vault(location: str, path: str | None = None) -> str:
    """Set ``vault`` in the user config file (created when missing); returns the file."""
    import os
    from pathlib import Path

    from cuecard.core.base._fsio import atomic_write
    from cuecard.core.vault._location import user_config_path

    path = path or user_config_path()
    try:
        with open(path, encoding="utf-8") as handle:
            old = handle.read()
    except FileNotFoundError:
        old = ""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(Path(path), with_vault(old, location))
    return path
