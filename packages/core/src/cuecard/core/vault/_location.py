"""Where the vault is: ``--vault``, then ``CUECARD_VAULT``, then ``vault`` in the user config.

The user config is ``$XDG_CONFIG_HOME/cuecard/config.toml`` (``~/.config/cuecard/config.toml``).
Standard library only, and no pathlib or re: the cold search path resolves the vault here.
"""

from __future__ import annotations

import os

from cuecard.core.base._errors import ConfigError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from cuecard.core.base._confined import Tree

__all__ = [
    "VAULT_ENV",
    "cache_home",
    "cache_tree",
    "check_database_url",
    "is_database_url",
    "resolve_vault_location",
    "resolve_vault_path",
    "user_config_path",
]

VAULT_ENV = "CUECARD_VAULT"


def user_config_path() -> str:
    """The user configuration file."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "cuecard", "config.toml")


def cache_home() -> str:
    """Where derived per-machine data lives (recall indexes, use records)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cuecard")


def cache_tree(folder: str | os.PathLike[str]) -> Tree:
    """This machine's cache folder ``folder`` of one vault (made when missing), as the base of
    a ``cuecard.core.fs.Tree``: the folder is cuecard's own, under the user's cache home; what
    lies below it (index, mirror files, cursor, use records) is reached through the layer."""
    from cuecard.core.base._confined import Tree

    os.makedirs(folder, exist_ok=True)
    return Tree(folder)


def _from_config(path: str) -> str | None:
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
        raise ConfigError(
            f"{path}: key `vault` must be a non-empty string (a folder path or a postgresql:// URL)"
        )
    return value


def is_database_url(value: str) -> bool:
    """Whether a vault setting names a PostgreSQL vault rather than a folder."""
    return value.startswith(("postgresql://", "postgres://"))


def check_database_url(origin: str, value: str) -> str:
    """The URL, or ``ConfigError`` when it carries a password (it would show in process lists,
    shell history and config files: give it through PGPASSWORD or a pgpass file)."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(value)
        has_password = parts.password is not None
        query = parse_qs(parts.query)
    except ValueError as exc:
        raise ConfigError(f"{origin}: not a valid postgresql:// URL ({exc})") from None
    if has_password or "password" in query:
        raise ConfigError(
            f"{origin}: the PostgreSQL URL holds a password; command lines, environment dumps "
            "and config files are readable by others, so cuecard refuses it: put the password "
            "in PGPASSWORD or a pgpass file (~/.pgpass, or PGPASSFILE) and drop it from the URL"
        )
    if "\0" in value:
        raise ConfigError(f"{origin}: a vault URL must not contain NUL")
    return value


def resolve_vault_location(
    explicit: str | None, *, environ: Mapping[str, str] | None = None, config: str | None = None
) -> str:
    """A vault folder or a ``postgresql://`` URL (password refused), first setting found."""
    return resolve_vault_path(explicit, database=True, environ=environ, config=config)


def resolve_vault_path(
    explicit: str | None,
    *,
    database: bool = False,
    environ: Mapping[str, str] | None = None,
    config: str | None = None,
) -> str:
    """The vault folder named by the first of: the argument, the environment (``environ``,
    default ``os.environ``), the user config file (``config``, default ``user_config_path()``).

    With ``database`` a ``postgresql://`` URL is returned too; without, it is refused."""
    env = (os.environ if environ is None else environ).get(VAULT_ENV)
    config = user_config_path() if config is None else config
    for origin, value in (
        ("--vault", explicit),
        (VAULT_ENV, env),
        ("config `vault`", None if explicit or env else _from_config(config)),
    ):
        if not value:
            continue
        if is_database_url(value):
            if not database:
                raise ConfigError(
                    f"{origin}: this command needs a folder vault, and {value.split('@')[-1]!r} "
                    "names a PostgreSQL vault"
                )
            return check_database_url(origin, value)
        if "\0" in value:
            raise ConfigError(f"{origin}: a vault path must not contain NUL")
        return os.path.expanduser(value)
    raise UsageError(
        f"no vault configured: pass --vault PATH, set {VAULT_ENV}, or add "
        f'vault = "PATH" to {config}'
    )
