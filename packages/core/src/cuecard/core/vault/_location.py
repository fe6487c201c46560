"""Where the vault is: ``--vault``, then ``CUECARD_VAULT``, then ``vault`` in the user config.

The user config is ``$XDG_CONFIG_HOME/cuecard/config.toml`` (``~/.config/cuecard/config.toml``).
Standard library only, and no pathlib or re: the cold search path resolves the vault here.
"""

from __future__ import annotations

import os

from cuecard.core._errors import ConfigError, UsageError

__all__ = ["VAULT_ENV", "cache_home", "resolve_vault_path", "user_config_path"]

VAULT_ENV = "CUECARD_VAULT"


def user_config_path() -> str:
    """The user configuration file."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "cuecard", "config.toml")


def cache_home() -> str:
    """Where derived per-machine data lives (recall indexes, use records)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cuecard")


def _from_config() -> str | None:
    path = user_config_path()
    if not os.path.isfile(path):
        return None
    import tomllib

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    value = data.get("vault")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: key `vault` must be a non-empty string (a folder path)")
    return value


def resolve_vault_path(explicit: str | None) -> str:
    """The vault folder named by the first of: the argument, the environment, the config."""
    env = os.environ.get(VAULT_ENV)
    for origin, value in (
        ("--vault", explicit),
        (VAULT_ENV, env),
        ("config `vault`", None if explicit or env else _from_config()),
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
        return os.path.expanduser(value)
    raise UsageError(
        f"no vault configured: pass --vault PATH, set {VAULT_ENV}, or add "
        f'vault = "PATH" to {user_config_path()}'
    )
