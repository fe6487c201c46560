"""Where the vault is: ``--vault``, then ``CUECARD_VAULT``, then ``vault`` in the user config.

The user config is ``$XDG_CONFIG_HOME/cuecard/config.toml`` (``~/.config/cuecard/config.toml``).
Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from cuecard.core._errors import ConfigError, UsageError

__all__ = ["VAULT_ENV", "cache_home", "resolve_vault_path", "user_config_path"]

VAULT_ENV = "CUECARD_VAULT"


def user_config_path() -> Path:
    """The user configuration file."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cuecard" / "config.toml"


def cache_home() -> Path:
    """Where derived per-machine data lives (recall indexes, use records)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cuecard"


def _from_config() -> str | None:
    path = user_config_path()
    if not path.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    value = data.get("vault")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: key `vault` must be a non-empty string (a folder path)")
    return value


def resolve_vault_path(explicit: str | None) -> Path:
    """The vault folder named by the first of: the argument, the environment, the config."""
    for origin, value in (
        ("--vault", explicit),
        (VAULT_ENV, os.environ.get(VAULT_ENV)),
        ("config `vault`", None if explicit or os.environ.get(VAULT_ENV) else _from_config()),
    ):
        if not value:
            continue
        if value.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                f"{origin}: a PostgreSQL vault is not supported by this version of cuecard; "
                "give a folder path"
            )
        if "\0" in value:
            raise ConfigError(f"{origin}: a vault path must not contain NUL")
        return Path(value).expanduser()
    raise UsageError(
        f"no vault configured: pass --vault PATH, set {VAULT_ENV}, or add "
        f'vault = "PATH" to {user_config_path()}'
    )
