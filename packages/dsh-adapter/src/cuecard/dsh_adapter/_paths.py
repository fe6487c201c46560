"""Where the adapter keeps its own small state: the user config folder of cuecard."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["config_dir", "interpreter_record", "user_config_file"]


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/cuecard``, or ``~/.config/cuecard`` (the JavaScript side agrees)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "cuecard"


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    """The user config file (TOML) that also names the vault."""
    return config_dir(env) / "config.toml"


def interpreter_record(env: Mapping[str, str] | None = None) -> Path:
    """``dsh.json``: the interpreter ``cuecard dsh install`` recorded for the plugins."""
    return config_dir(env) / "dsh.json"
