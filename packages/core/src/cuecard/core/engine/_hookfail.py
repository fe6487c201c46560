"""Why ``cuecard-hook`` could not work in a project, kept for the person (stdlib only).

The hook stays silent to the agent whatever goes wrong; a broken ``.cuecard/config.json``, a
store it cannot read, or a hook command with a typo (an unknown harness or event) would then
stop every delivery with no sign. So the hook records why in ``.cuecard/local/hook-failure.json``
(one entry per ``<harness> <event>`` as the command named them, with the time), ``cuecard
doctor`` reports each entry, and SessionStart's one line for the person names the latest.

An entry goes when the same harness and event work again; ``cuecard install`` clears them all
(it rewrites the hook commands).
"""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False  # typing stays out of the hook's imports
if TYPE_CHECKING:
    from typing import Any

    from cuecard.core.base._confined import Tree

__all__ = ["FILE", "clear_failure", "clear_failures", "read_failures", "record_failure"]

FILE = "hook-failure.json"
MAX_REASON = 300


_REL = f".cuecard/local/{FILE}"


def _tree(root: str) -> Tree:
    from cuecard.core.base._confined import Tree

    return Tree(root)


def read_failures(root: str) -> dict[str, dict[str, Any]]:
    """The recorded failures by ``"<harness> <event>"`` (empty when there is none)."""
    try:
        data = json.loads(_tree(root).read_bytes(_REL, 1024 * 1024))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def _write(root: str, data: dict[str, dict[str, Any]]) -> None:
    tree = _tree(root)
    if not data:
        try:  # noqa: SIM105 - contextlib costs the hook process an import
            tree.remove(_REL)
        except OSError:
            pass
        return
    tree.write(_REL, json.dumps(data, indent=1, ensure_ascii=False) + "\n", durable=False)


def record_failure(root: str, key: str, reason: str, *, now: float | None = None) -> None:
    """Record why the hook called as ``key`` (``"<harness> <event>"``) did not work. Never
    raises: a failure to record is itself silent."""
    try:
        from cuecard.core.engine._text import redact

        data = read_failures(root)
        data[key[:80]] = {"at": now if now is not None else time.time(),
                          "reason": redact(reason)[:MAX_REASON]}  # fmt: skip
        _write(root, data)
    except Exception:  # noqa: S110 - the hook never fails because of its own record
        pass


def clear_failure(root: str, key: str) -> None:
    """Forget ``key``'s failure once it works again (a stat when there is no record)."""
    if not os.path.exists(os.path.join(root, ".cuecard", "local", FILE)):  # a stat only
        return
    try:
        data = read_failures(root)
        if data.pop(key, None) is not None:
            _write(root, data)
    except Exception:  # noqa: S110
        pass


def clear_failures(root: str) -> None:
    """Forget every recorded failure (``cuecard install`` rewrote the hook commands)."""
    try:  # noqa: SIM105 - contextlib costs the hook process an import
        _write(root, {})
    except OSError:
        pass
