"""Recording Codex's trust for the hooks ``cuecard install codex`` wrote, as Codex's own hook
review records it: ``[hooks.state."<key>"] trusted_hash = "<hash>"`` in the user's
``config.toml`` (keys and hashes: ``cuecard.core.harnesses``).

The file is edited as text, one table per hook, so that comments, order and every other setting
stay as they are; the result is parsed again before it is written, and a file that does not parse
is left alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from cuecard.core.fs import atomic_write
from cuecard.core.harnesses import (
    CodexHook,
    codex_config_path,
    codex_hooks,
    codex_project_trusted,
    codex_trust_state,
    read_toml,
)

__all__ = ["forget_codex_trust", "record_codex_trust", "trust_installed", "trust_step"]


def _header(key: str) -> str:
    return f"[hooks.state.{json.dumps(key, ensure_ascii=False)}]"


def _set_table(text: str, key: str, value: str) -> str:
    """``text`` with ``trusted_hash = value`` in the table of ``key`` (added when missing)."""
    header = _header(key)
    line = f"trusted_hash = {json.dumps(value)}"
    lines = text.splitlines()
    for index, current in enumerate(lines):
        if current.strip() != header:
            continue
        end = index + 1
        while end < len(lines) and not lines[end].lstrip().startswith("["):
            end += 1
        for inner in range(index + 1, end):
            if re.match(r"\s*trusted_hash\s*=", lines[inner]):
                lines[inner] = line
                return "\n".join(lines) + "\n"
        lines.insert(index + 1, line)
        return "\n".join(lines) + "\n"
    prefix = text if not text or text.endswith("\n") else text + "\n"
    gap = "\n" if prefix.strip() else ""
    return f"{prefix}{gap}{header}\n{line}\n"


def record_codex_trust(config_path: Path, hooks: list[CodexHook]) -> list[str]:
    """Trust ``hooks`` in ``config_path`` (created when missing). Returns the keys it changed.
    ``ValueError`` when the file cannot be read or parsed, or the edit does not parse back."""
    config = read_toml(config_path)
    state = codex_trust_state(config, hooks)
    changed = [hook for hook in hooks if state[hook.key] != "trusted"]
    if not changed:
        return []
    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    for hook in changed:
        text = _set_table(text, hook.key, hook.hash)
    import tomllib

    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{config_path}: the edit would not parse ({exc}); left alone") from None
    if any(v != "trusted" for v in codex_trust_state(after, hooks).values()):
        raise ValueError(f"{config_path}: the trust did not read back; left alone")
    config_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(config_path, text, durable=False)
    return [hook.key for hook in changed]


def forget_codex_trust(config_path: Path, hooks: list[CodexHook]) -> bool:
    """Remove the trust tables of ``hooks`` from ``config_path``; whether it changed.
    ``ValueError`` when the file cannot be parsed, or the edit would not parse back."""
    if not config_path.is_file() or not hooks:
        return False
    read_toml(config_path)
    headers = {_header(hook.key) for hook in hooks}
    lines = config_path.read_text(encoding="utf-8").splitlines()
    kept: list[str] = []
    skipping = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            skipping = stripped in headers
        if not skipping:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    text = "\n".join(kept) + "\n" if kept else ""
    if text == config_path.read_text(encoding="utf-8"):
        return False
    import tomllib

    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{config_path}: the edit would not parse ({exc}); left alone") from None
    if any(v == "trusted" for v in codex_trust_state(after, hooks).values()):
        raise ValueError(f"{config_path}: the trust entries did not go; left alone")
    atomic_write(config_path, text, durable=False)
    return True


def trust_step(config_path: Path, hooks: list[CodexHook]) -> str:
    """The exact step that trusts ``hooks`` by hand: the TOML to add, or Codex's review."""
    tables = "\n".join(f"{_header(h.key)}\ntrusted_hash = {json.dumps(h.hash)}" for h in hooks)
    return f"review them in Codex (/hooks), or add to {config_path}:\n{tables}"


def trust_installed(
    hooks_file: Path,
    hooks_config: dict[str, Any],
    project: Path,
    *,
    user: bool,
    home: Path,
    trust: bool,
    environ: dict[str, str] | None,
) -> tuple[list[str], list[str]]:
    """After ``cuecard install codex``: trust the hooks just written (unless ``trust`` is false),
    as Codex's hook review would. Returns (files written, notes for the person)."""
    config_path = codex_config_path(home, environ)
    hooks = codex_hooks(hooks_file, hooks_config)
    written: list[str] = []
    notes: list[str] = []
    if not trust:
        notes.append(
            f"Codex skips hooks until they are trusted; to trust the {len(hooks)} hooks "
            f"written: {trust_step(config_path, hooks)}"
        )
    else:
        try:
            changed = record_codex_trust(config_path, hooks)
        except ValueError as exc:
            notes.append(
                f"Codex trust not recorded: {exc}. To trust the hooks: "
                f"{trust_step(config_path, hooks)}"
            )
        else:
            if changed:
                written.append(str(config_path))
            notes.append(
                f"trusted the {len(hooks)} hooks written, by their current hash, in "
                f"{config_path} ([hooks.state]); `--no-trust` leaves that to you"
            )
    if user:
        return written, notes
    try:
        trusted = codex_project_trusted(read_toml(config_path), project)
    except ValueError:
        trusted = False
    if not trusted:
        notes.append(
            "Codex loads a project's .codex/ folder only once the project is trusted: answer "
            f"yes when Codex asks, or add [projects.{json.dumps(str(project))}] "
            f'trust_level = "trusted" to {config_path}'
        )
    return written, notes
