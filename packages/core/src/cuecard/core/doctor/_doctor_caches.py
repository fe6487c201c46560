"""Whether the recall indexes (caches built from the notes and the memories) can be read, as
``cuecard doctor`` reports it. Read-only: a search rebuilds an unreadable index; doctor only
says so."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["cache_findings"]

Finding = Callable[[str, str, str], None]


def _vault_index(env: Mapping[str, str], home: Path) -> str | None:
    """The recall index file of the folder vault the settings name, or ``None``."""
    from cuecard.core.base._errors import CuecardError
    from cuecard.core.vault._layout import vault_problem
    from cuecard.core.vault._location import resolve_vault_location
    from cuecard.core.vault.folder._recall import cache_dir

    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "cuecard" / "config.toml"
    try:
        where = resolve_vault_location(None, environ=env, config=str(config))
    except CuecardError:
        return None
    if "://" in where or vault_problem(where) is not None:
        return None
    return os.path.join(cache_dir(where), "recall.sqlite3")


def cache_findings(
    root: Path | None, home: Path, problem: Finding, env: Mapping[str, str] | None = None
) -> None:
    """A problem for each recall index that exists and cannot be read: the project's
    (``.cuecard/local/recall.sqlite3``) and the vault's."""
    from cuecard.core.recall._index import RecallIndex

    env = os.environ if env is None else env
    places = []
    if root is not None:
        places.append((os.path.join(root, ".cuecard", "local", "recall.sqlite3"), "the next "
                       "`cuecard recall` in this project (or DSH recall) rebuilds it"))  # fmt: skip
    vault = _vault_index(env, home)
    if vault is not None:
        places.append((vault, "`cuecard vault reindex` rebuilds it (a vault search does too)"))
    for path, fix in places:
        why = RecallIndex(path, os.path.dirname(path), lambda: [], lambda _p, _t: []).check()
        if why is not None:
            problem("recall", f"the recall index {path} cannot be read ({why})", fix)
