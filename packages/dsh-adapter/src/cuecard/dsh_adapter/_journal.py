"""What an install has done so far, so that a failure undoes it: each file put back as it was
(removed if it was new), each folder it made removed again (when empty), and any other step
(such as the host's ``dsh plugin add``) undone by the action registered for it, newest first."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from cuecard.core.fs import atomic_write
from cuecard.dsh_adapter._errors import DshAdapterError

__all__ = ["Journal", "missing_folders", "undone_on_failure"]


def missing_folders(folder: Path) -> list[Path]:
    """``folder`` and those of its parents that do not exist, outermost first."""
    missing = []
    for each in (folder, *folder.parents):
        if each.exists() or each.is_symlink():
            break
        missing.append(each)
    return missing[::-1]


def _made_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those it created, outermost first."""
    missing = missing_folders(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _put_back(path: Path, old: bytes | None, folders: list[Path]) -> None:
    if old is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    else:
        atomic_write(path, old)
    for folder in reversed(folders):
        with contextlib.suppress(OSError):  # not empty: something else lives there now
            folder.rmdir()


class Journal:
    """The steps of one install, each with the action that undoes it."""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def before_write(self, path: Path) -> None:
        """Remember ``path`` as it is (its bytes, or that it is absent) and make its folder;
        the caller then writes it."""
        old = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        if old is None and (path.is_symlink() or path.exists()):
            raise OSError(f"{path}: not a regular file; move it away and try again")
        folders = _made_folders(path.parent)
        self._undo.append(lambda: _put_back(path, old, folders))

    def write(self, path: Path, data: str | bytes) -> None:
        """Write ``path`` (atomically), remembering what it held."""
        self.before_write(path)
        atomic_write(path, data)

    def on_undo(self, action: Callable[[], None]) -> None:
        """Register how to undo a step that is not a file write."""
        self._undo.append(action)

    def undo(self) -> list[str]:
        """Undo every step, newest first; return why any step could not be undone."""
        failures = []
        for action in reversed(self._undo):
            try:
                action()
            except Exception as exc:  # keep undoing the others
                failures.append(str(exc) or type(exc).__name__)
        self._undo.clear()
        return failures


@contextlib.contextmanager
def undone_on_failure() -> Iterator[Journal]:
    """A journal whose steps are undone if the block raises (the error then goes on)."""
    journal = Journal()
    try:
        yield journal
    except BaseException as exc:
        failures = journal.undo()
        if failures and isinstance(exc, Exception):
            raise DshAdapterError(f"{exc} (and could not undo: {'; '.join(failures)})") from exc
        raise
