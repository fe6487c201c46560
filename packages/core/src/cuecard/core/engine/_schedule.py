"""When maintenance is due: what a harness's session start calls, on the hook's path.

``maintain_if_due(root)`` spawns ``cuecard maintain`` (``cuecard.core.lifecycle._maintain``)
detached from the session at most once a day and returns at once; ``last_run`` reads when it last
finished.
Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import time

from cuecard.core.engine._paths import opted_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = ["DUE_EVERY", "STAMP", "last_run", "maintain_if_due"]

DUE_EVERY = 24 * 3600
STAMP = "maintain.json"
"""The file in ``.cuecard/local/`` where a maintenance run records when it finished."""
_SPAWN = "maintain.spawn"


_LOCAL = ".cuecard/local"


def last_run(root: str) -> float | None:
    """When maintenance last finished in the project at ``root`` (Unix seconds), or ``None``."""
    from cuecard.core.base._confined import Tree

    try:
        value = json.loads(Tree(root).read_bytes(f"{_LOCAL}/{STAMP}", 64 * 1024)).get("ran_at")
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) else None


_DETACHED: list[Any] = []


def _spawn_detached(command: Sequence[str], root: str) -> None:
    import subprocess

    env = {**os.environ, "CUECARD_PROJECT_DIR": root}
    # Held, never waited for: the caller (a hook process) exits at once and the child, in its
    # own session, outlives it. Holding it keeps Popen from warning that it still runs.
    _DETACHED.append(
        subprocess.Popen(
            list(command),
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    )


def maintain_if_due(
    root: str,
    *,
    clock: Callable[[], float] = time.time,
    spawn: Callable[[Sequence[str], str], None] | None = None,
) -> bool:
    """Spawn a detached ``cuecard maintain`` when the last run (or spawn) is a day old.

    Returns whether it spawned one. Never raises: a session start must not fail on this.
    """
    try:
        from cuecard.core.base._confined import Tree

        tree = Tree(root)
        if not opted_in(root):
            return False
        now = clock()
        ran = last_run(root)
        if ran is not None and now - ran < DUE_EVERY:
            return False
        marker = f"{_LOCAL}/{_SPAWN}"
        st = tree.lstat(marker)
        if st is not None:
            if now - st.st_mtime < DUE_EVERY:
                return False
            tree.remove(marker)
        if not tree.create(marker, f"{now}\n"):
            return False  # another session start claimed this run
        with tree.folder(_LOCAL) as folder:
            os.utime(_SPAWN, (now, now), dir_fd=folder, follow_symlinks=False)
        command = [  # isolated (-I): the project folder is the child's cwd, never its sys.path
            sys.executable,
            "-I",
            "-c",
            "import sys; from cuecard.core.cli import main; "
            "sys.exit(main(['maintain', '--quiet']))",
        ]
        (spawn or _spawn_detached)(command, root)
        return True
    except Exception:
        return False
