"""Grok Build's folder trust: it runs a project's hooks (``.grok/hooks/*.json``) only in a folder
the person trusted, and skips them silently elsewhere.

Trust lives in ``~/.grok/trusted_folders.toml``, one table per folder, and covers the folder's
subfolders too::

    [folders."/home/me/src/app"]
    trusted = true
    decided_at = 1767225600

``/hooks-trust`` in Grok Build, or one launch with ``grok --trust``, writes it. The gate is off
altogether with ``GROK_FOLDER_TRUST=0`` or ``[folder_trust] enabled = false`` in
``~/.grok/config.toml``. A trust grant also lets the folder's own MCP and LSP servers run.
Standard library only (``cuecard doctor`` and ``cuecard install grok`` read it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "grok_findings",
    "grok_folder_trust",
    "grok_gate_off",
    "grok_trust_file",
    "grok_trust_step",
    "grok_trust_table",
    "read_trust",
]


def grok_trust_file(home: Path) -> Path:
    """Where Grok Build records folder trust."""
    return home / ".grok" / "trusted_folders.toml"


def _read(path: Path) -> dict[str, Any]:
    import tomllib

    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not readable as TOML ({exc})") from None


def grok_gate_off(home: Path, environ: dict[str, str]) -> bool:
    """Whether the person turned folder trust off (then project hooks always run)."""
    if environ.get("GROK_FOLDER_TRUST", "").strip().lower() in ("0", "false", "no", "off"):
        return True
    try:
        config = _read(home / ".grok" / "config.toml")
    except ValueError:
        return False
    gate = config.get("folder_trust")
    return isinstance(gate, dict) and gate.get("enabled") is False


def grok_folder_trust(config: dict[str, Any], folder: Path) -> tuple[str, str | None]:
    """``("trusted", where)`` when ``folder`` or a folder above it is trusted, ``("distrusted",
    where)`` when the person decided against ``folder`` itself, else ``("unknown", None)``."""
    folders = config.get("folders")
    if not isinstance(folders, dict):
        return "unknown", None
    target = str(folder)
    own = folders.get(target)
    if isinstance(own, dict) and own.get("trusted") is False:
        return "distrusted", target
    for candidate in (folder, *folder.parents):
        entry = folders.get(str(candidate))
        if isinstance(entry, dict) and entry.get("trusted") is True:
            return "trusted", str(candidate)
    return "unknown", None


def grok_trust_table(folder: Path, decided_at: int) -> str:
    """The TOML table that trusts ``folder``."""
    return f"[folders.{json.dumps(str(folder))}]\ntrusted = true\ndecided_at = {decided_at}\n"


def grok_trust_step(folder: Path, home: Path) -> str:
    """The exact step that trusts ``folder`` by hand."""
    table = grok_trust_table(folder, 0).replace("decided_at = 0\n", "")
    return (
        f"run /hooks-trust in Grok Build in {folder} (or start it there once with `grok "
        f"--trust`), or add to {grok_trust_file(home)}:\n{table}"
    )


def read_trust(home: Path) -> dict[str, Any]:
    """``trusted_folders.toml`` parsed (``{}`` when missing); ``ValueError`` when unreadable."""
    return _read(grok_trust_file(home))


def grok_findings(
    scope: str, root: Path | None, home: Path, environ: dict[str, str]
) -> list[tuple[bool, str, str]]:
    """``cuecard doctor``'s findings on Grok Build's trust for cuecard's project hooks:
    ``(problem, message, hint)``. User hooks (``~/.grok/hooks``) need no trust."""
    if scope != "project" or root is None or grok_gate_off(home, environ):
        return []
    try:
        state, _ = grok_folder_trust(read_trust(home), root)
    except ValueError as exc:
        return [(True, f"Grok Build's folder trust: {exc}", "fix or remove the file")]
    if state == "trusted":
        return []
    why = (
        f"{root} is marked untrusted in {grok_trust_file(home)}"
        if state == "distrusted"
        else f"{root} is not trusted in {grok_trust_file(home)}"
    )
    return [
        (
            True,
            f"Grok Build skips the project's hooks (.grok/hooks/cuecard.json) silently: {why}",
            "`cuecard install grok` records the trust; or " + grok_trust_step(root, home),
        )
    ]
