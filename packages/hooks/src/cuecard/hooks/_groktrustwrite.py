"""Recording Grok Build's folder trust for a project where ``cuecard install grok`` wrote hooks,
as ``/hooks-trust`` records it (see ``cuecard.core.harnesses``): one table appended to
``~/.grok/trusted_folders.toml``, every other line kept; the result is parsed again before it is
written. A folder the person marked untrusted is left so, with the step to change it.
"""

from __future__ import annotations

import time
from pathlib import Path

from cuecard.core.fs import atomic_write
from cuecard.core.harnesses import (
    grok_folder_grants,
    grok_folder_trust,
    grok_gate_off,
    grok_trust_file,
    grok_trust_step,
    grok_trust_table,
    read_trust,
)

__all__ = ["trust_grok_folder"]


def trust_grok_folder(
    project: Path,
    home: Path,
    *,
    trust: bool,
    environ: dict[str, str],
    clock: float | None = None,
    trust_others: bool = False,
) -> tuple[list[str], list[str]]:
    """After a project install: trust ``project`` for Grok Build unless ``trust`` is false or
    it is trusted already. A grant also runs every other hook, MCP and LSP file the folder holds
    for Grok: when there is one, the folder is trusted only with ``trust_others``, and the note
    names them. Returns (files written, notes for the person)."""
    import tomllib

    folder = project.resolve()
    path = grok_trust_file(home)
    if grok_gate_off(home, environ):
        return [], ["Grok Build's folder trust is off here (GROK_FOLDER_TRUST=0 or [folder_trust]"
                    " enabled = false): it runs the project's hooks as they are"]  # fmt: skip
    try:
        state, where = grok_folder_trust(read_trust(home), folder)
    except ValueError as exc:
        return [], [f"Grok Build trust not recorded: {exc}. {grok_trust_step(folder, home)}"]
    if state == "trusted":
        return [], [f"Grok Build already trusts {where} ({path}): it runs the project's hooks"]
    if state == "distrusted":
        return [], [
            f"Grok Build skips the project's hooks: {folder} is marked untrusted in {path}, "
            f"left as you decided. To run them: set trusted = true there, or run /hooks-trust"
        ]
    others = grok_folder_grants(folder)
    if others:
        listed = "; ".join(others)
        grants = (
            f"trusting {folder} also runs what it holds for Grok Build besides cuecard's: {listed}"
        )
    else:
        grants = f"{folder} holds no other hooks, MCP or LSP servers for Grok Build"
    if not trust:
        return [], [
            f"Grok Build skips the project's hooks until you trust the folder ({grants}); to "
            f"trust it: {grok_trust_step(folder, home)}"
        ]
    if others and not trust_others:
        return [], [
            f"Grok Build trust not recorded: {grants}. Read them first; then "
            "`cuecard install grok --trust-folder` trusts the folder with them, or "
            f"{grok_trust_step(folder, home)}"
        ]
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    stamp = int(time.time() if clock is None else clock)
    gap = "" if not old.strip() else "\n" if old.endswith("\n") else "\n\n"
    text = f"{old}{gap}{grok_trust_table(folder, stamp)}"
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [f"Grok Build trust not recorded ({path}: {exc}); left alone. "
                    f"{grok_trust_step(folder, home)}"]  # fmt: skip
    if grok_folder_trust(after, folder)[0] != "trusted":
        return [], [f"Grok Build trust not recorded: {path} did not read back; left alone"]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text, durable=False)
    return [str(path)], [
        f"trusted {folder} for Grok Build in {path}, which runs the project's hooks ({grants}); "
        "`--no-trust` leaves that to you"
    ]
