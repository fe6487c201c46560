"""Deploying the vault rules into allowlisted agent instruction files, safely.

Only three files can ever be touched, all under one home folder: ``.dsh/AGENTS.md``,
``.codex/AGENTS.md`` and ``.claude/CLAUDE.md``. A file that does not exist is never created. A
write locks the file's folder (no lock file is left behind), keeps a timestamped backup with the
file's own mode, replaces the file atomically keeping its mode, and reads it back; a failed check
restores the backup.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cuecard.core import UsageError
from cuecard.core.fs import atomic_write
from cuecard.dsh_adapter._deploy import render_block, replace_block, verify
from cuecard.dsh_adapter._errors import DeployError
from cuecard.dsh_adapter._files import create_with_mode, file_mode, folder_lock

__all__ = ["TARGETS", "Deployer", "Outcome", "Target"]

TARGETS: dict[str, str] = {
    "dsh": ".dsh/AGENTS.md",
    "codex": ".codex/AGENTS.md",
    "claude": ".claude/CLAUDE.md",
}
BACKUP_INFIX = ".bak-cuecard-"
LEGACY_LOCK_SUFFIX = ".cuecard-deploy.lock"
"""Where earlier versions locked a target (a file they left behind; apply removes it)."""


@dataclass(frozen=True)
class Target:
    agent: str
    path: Path


@dataclass(frozen=True)
class Outcome:
    """What one verb did to one target."""

    agent: str
    path: str
    changed: bool
    written: bool
    backup: str | None = None
    problem: str | None = None
    diff: str | None = None


class Deployer:
    """The deploy verbs over one home folder."""

    def __init__(
        self,
        home: Path,
        *,
        vault: str | None,
        agent: str | None = None,
        clock: Callable[[], datetime] = datetime.now,
        lock_timeout: float = 10.0,
    ) -> None:
        self.home = home
        self.vault = vault
        self.agent = agent
        self._clock = clock
        self._lock_timeout = lock_timeout

    # -- targets ---------------------------------------------------------------------------

    def _allowlisted(self) -> dict[str, Path]:
        return {agent: self.home / rel for agent, rel in TARGETS.items()}

    def detect(self) -> list[Target]:
        """The allowlisted files that exist (never symlinks)."""
        return [
            Target(agent, path)
            for agent, path in self._allowlisted().items()
            if path.is_file() and not path.is_symlink()
        ]

    def resolve(self, names: Sequence[str]) -> list[Target]:
        """Targets named by agent (``dsh``) or path; anything else is refused (UsageError)."""
        if not names:
            return self.detect()
        allowed = self._allowlisted()
        chosen: list[Target] = []
        for name in names:
            target = self._one(name, allowed)
            if target not in chosen:
                chosen.append(target)
        return chosen

    def _one(self, name: str, allowed: dict[str, Path]) -> Target:
        if name in allowed:
            return Target(name, allowed[name])
        given = Path(name).expanduser()
        if not given.is_absolute():
            given = Path.cwd() / given
        normal = Path(os.path.normpath(given))
        for agent, path in allowed.items():
            if normal == Path(os.path.normpath(path)):
                return Target(agent, path)
        raise UsageError(
            f"--target {name!r} is outside the allowlisted agent instruction files "
            f"({', '.join(str(p) for p in allowed.values())}; or name one of {', '.join(allowed)})"
        )

    def _check_file(self, target: Target) -> None:
        path = target.path
        if path.is_symlink():
            raise DeployError(f"{path}: is a symbolic link; deploy edits only regular files")
        parent = path.parent.resolve()
        if parent != (self.home.resolve() / TARGETS[target.agent]).parent:
            raise DeployError(f"{path}: its folder leads outside {self.home} (a symbolic link?)")
        if not path.is_file():
            raise DeployError(f"{path}: does not exist; deploy never creates an instruction file")

    # -- verbs -----------------------------------------------------------------------------

    def _block(self, target: Target) -> str:
        return render_block(vault=self.vault, agent=self.agent or target.agent)

    def preview(self, targets: Sequence[Target]) -> list[Outcome]:
        out: list[Outcome] = []
        for target in targets:
            self._check_file(target)
            old = target.path.read_text(encoding="utf-8")
            new = replace_block(old, self._block(target))
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    str(target.path),
                    f"{target.path} (after apply)",
                )
            )
            out.append(
                Outcome(target.agent, str(target.path), old != new, False, diff=diff or None)
            )
        return out

    def apply(self, targets: Sequence[Target]) -> list[Outcome]:
        return [self._apply_one(t) for t in targets]

    def _apply_one(self, target: Target) -> Outcome:
        self._check_file(target)
        path = target.path
        block = self._block(target)
        with folder_lock(path.parent, timeout=self._lock_timeout):
            _drop_legacy_lock(path)
            old = path.read_text(encoding="utf-8")
            new = replace_block(old, block)
            if new == old:
                return Outcome(target.agent, str(path), changed=False, written=False)
            backup = self._backup(path, old)
            atomic_write(path, new)
            problem = verify(path.read_text(encoding="utf-8"), block)
            if problem is not None:
                atomic_write(path, old)
                raise DeployError(
                    f"{path}: verification after writing failed ({problem}); restored"
                )
        return Outcome(target.agent, str(path), changed=True, written=True, backup=str(backup))

    def _backup(self, path: Path, text: str) -> Path:
        stamp = self._clock().strftime("%Y%m%d-%H%M%S-%f")
        mode = file_mode(path)
        for n in range(100):
            suffix = f"{stamp}" if n == 0 else f"{stamp}-{n:02d}"
            backup = path.with_name(f"{path.name}{BACKUP_INFIX}{suffix}")
            if create_with_mode(backup, text, mode):
                return backup
        raise DeployError(f"{path}: could not find a free backup name")

    def backups(self, target: Target) -> list[Path]:
        """The target's backups, oldest first (their names sort by time)."""
        prefix = target.path.name + BACKUP_INFIX
        return sorted(p for p in target.path.parent.glob(prefix + "*") if p.is_file())

    def rollback(self, targets: Sequence[Target]) -> list[Outcome]:
        """Restore each target from its newest backup (the state before the last apply)."""
        out: list[Outcome] = []
        for target in targets:
            self._check_file(target)
            path = target.path
            with folder_lock(path.parent, timeout=self._lock_timeout):
                _drop_legacy_lock(path)
                found = self.backups(target)
                if not found:
                    out.append(
                        Outcome(
                            target.agent, str(path), False, False, problem="no backup to restore"
                        )
                    )
                    continue
                text = found[-1].read_text(encoding="utf-8")
                changed = path.read_text(encoding="utf-8") != text
                if changed:
                    atomic_write(path, text)
                out.append(
                    Outcome(target.agent, str(path), changed, changed, backup=str(found[-1]))
                )
        return out

    def selfcheck(self, targets: Sequence[Target]) -> list[Outcome]:
        out: list[Outcome] = []
        for target in targets:
            self._check_file(target)
            problem = verify(target.path.read_text(encoding="utf-8"), self._block(target))
            out.append(Outcome(target.agent, str(target.path), False, False, problem=problem))
        return out


def _drop_legacy_lock(path: Path) -> None:
    """Remove the lock file an earlier version left beside ``path`` (a regular file only)."""
    legacy = path.with_name(path.name + LEGACY_LOCK_SUFFIX)
    if legacy.is_file() and not legacy.is_symlink():
        legacy.unlink()
