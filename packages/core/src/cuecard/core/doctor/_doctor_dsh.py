"""The DeepSeek Harness set-up as ``cuecard doctor`` reports it, read from files the DSH adapter
writes (core imports no satellite): the interpreter ``cuecard dsh install`` recorded (and
whether it runs cuecard), the DSH profiles holding the plugins, the hook bridge's configuration,
the vault the plugins use, and the last failure the plugins recorded.

Nothing here applies until ``cuecard dsh install`` ran (its record, ``dsh.json``, exists).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["PLUGINS", "dsh_hooks", "dsh_setup"]

PLUGINS = ("cuecard-dsh-memory", "cuecard-dsh-discipline")
Finding = Callable[[str, str, str], None]
_HINT = "run `cuecard dsh install --profile PROFILE` with the Python that has cuecard installed"


def _config_dir(env: Mapping[str, str], home: Path) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(home / ".config")
    return Path(base) / "cuecard"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _runs_cuecard(python: str) -> str | None:
    """Why ``python`` cannot run the DSH adapter, or ``None``."""
    if not os.path.isfile(python) or not os.access(python, os.X_OK):
        return "is missing or not executable"
    try:
        done = subprocess.run(
            [python, "-I", "-c", "import cuecard.dsh_adapter"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd=os.path.abspath(os.sep),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"could not be run ({exc})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return f"cannot import cuecard.dsh_adapter ({last[:200]})"
    return None


def _profiles(dsh_home: Path) -> list[str]:
    found = []
    for manifest in sorted((dsh_home / "profiles").glob("*/package.json")):
        data = _read_json(manifest)
        deps = data.get("dependencies") if isinstance(data, dict) else None
        if isinstance(deps, dict) and any(p in deps for p in PLUGINS):
            found.append(manifest.parent.name)
    return found


def _vault(env: Mapping[str, str], config: Path) -> tuple[str | None, str | None]:
    """The vault the plugins use, as ``env`` and the user config file in ``config`` name it,
    and why it is unusable (or ``None``)."""
    from cuecard.core.base._errors import CuecardError
    from cuecard.core.vault._layout import vault_problem
    from cuecard.core.vault._location import resolve_vault_location

    try:
        where = resolve_vault_location(None, environ=env, config=str(config / "config.toml"))
    except CuecardError as exc:
        return None, str(exc)
    return where, vault_problem(where)


_RUNS_CUECARD = ("cuecard.dsh_adapter hook", "cuecard-hook")


def dsh_hooks(home: Path, env: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """DSH's Claude Code hook bridge as doctor lists a harness's hooks (``{harness: "dsh",
    scope: "user", file}``): ``dsh-hooks.json`` when it runs cuecard and a DSH profile under
    DSH_HOME mounts it (``cuecard dsh install --hooks``); else an empty list."""
    env = os.environ if env is None else env
    hooks_file = _config_dir(env, home) / "dsh-hooks.json"
    try:
        text = hooks_file.read_text(encoding="utf-8")
    except OSError:
        return []
    if not any(mark in text for mark in _RUNS_CUECARD):
        return []
    dsh_home = Path(env.get("DSH_HOME") or home / ".dsh")
    mounted = json.dumps(str(hooks_file))
    for patch in sorted((dsh_home / "profiles").glob("*/cordis.patch.yml")):
        try:
            if mounted in patch.read_text(encoding="utf-8"):
                return [{"harness": "dsh", "scope": "user", "file": str(hooks_file)}]
        except OSError:
            continue
    return []


def dsh_setup(
    home: Path, problem: Finding, note: Finding, env: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """The DSH report (``None`` when ``cuecard dsh install`` never ran); findings go to
    ``problem`` and ``note`` as ``(check, message, hint)``. Every setting (the config folder,
    DSH_HOME, the vault) is read from ``env`` (default ``os.environ``) and ``home``."""
    env = os.environ if env is None else env
    config = _config_dir(env, home)
    record = _read_json(config / "dsh.json")
    if record is None:
        return None
    python = record.get("python") if isinstance(record, dict) else None
    why = "is not named in the record" if not isinstance(python, str) else _runs_cuecard(python)
    if why is not None:
        problem("dsh", f"the DSH plugins' interpreter {python} {why}", _HINT)
    dsh_home = Path(env.get("DSH_HOME") or home / ".dsh")
    profiles = _profiles(dsh_home)
    if not profiles:
        problem(
            "dsh",
            f"no DSH profile under {dsh_home} has the cuecard plugins",
            "run `cuecard dsh install --profile PROFILE` (dsh must be on PATH, or pass --dsh)",
        )
    hooks_file = config / "dsh-hooks.json"
    hooks = _read_json(hooks_file)
    if isinstance(hooks, dict) and "PreToolUse" in (hooks.get("hooks") or {}):
        problem(
            "dsh",
            f"{hooks_file} runs cuecard at PreToolUse, where DSH drops what a hook prints: those "
            "memories are lost for the whole epoch",
            "run `cuecard dsh install --hooks` again (it delivers them after the tool call)",
        )
    vault, unusable = _vault(env, config)
    if unusable is not None:
        problem("dsh", f"the DSH memory tools have no vault: {unusable}", (
            "`cuecard vault init --vault PATH`, then set CUECARD_VAULT or `vault` in the user "
            "config (or the plugins' `vault` option)"
        ))  # fmt: skip
    failure = _read_json(config / "dsh-status.json")
    last = failure.get("last_failure") if isinstance(failure, dict) else None
    if isinstance(last, dict) and isinstance(last.get("message"), str):
        note("dsh", f"the DSH plugins' last failure ({last.get('at')}): {last['message']}", "")
    return {
        "interpreter": python,
        "runs_cuecard": why is None,
        "profiles": profiles,
        "hooks": str(hooks_file) if hooks is not None else None,
        "vault": vault,
        "last_failure": last if isinstance(last, dict) else None,
    }
