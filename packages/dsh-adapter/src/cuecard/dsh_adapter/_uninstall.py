"""Undoing ``cuecard dsh install`` as its record (``_record``) tells: first the packages it added
to DSH profiles (``dsh plugin --profile P remove``, the host's own way; a failure there stops the
uninstall before any file is touched), then each profile's files put back as they were when they
are otherwise unchanged, then cuecard's own files, backups, record and the folders it made."""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.fs import atomic_write
from cuecard.dsh_adapter import _record
from cuecard.dsh_adapter._errors import DshAdapterError
from cuecard.dsh_adapter._hookbridge import drop_patch_rows
from cuecard.dsh_adapter._paths import config_dir, interpreter_record
from cuecard.dsh_adapter._plugins import PLUGINS

__all__ = ["Undone", "uninstall"]

Host = Callable[[list[str], str], None]  # (command, DSH_HOME) -> None, raising on failure


@dataclass
class Undone:
    """What an uninstall did: files put back, entries removed, things a person should know."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _remove_file(path: Path, done: Undone) -> None:
    if path.is_dir() and not path.is_symlink():
        return
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        done.removed.append(str(path))


def _comparable(data: Any) -> Any:
    """A profile's package.json as compared: an empty ``dependencies`` is the same as none (the
    host leaves ``{}`` behind when the last package goes)."""
    if isinstance(data, dict) and data.get("dependencies") == {}:
        return {k: v for k, v in data.items() if k != "dependencies"}
    return data


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def _host_step(entry: dict[str, Any], dsh: str | None, host: Host, done: Undone) -> None:
    pdir = _record.profile_dir(entry["dsh_home"], entry["profile"])
    deps = _record.dependencies(pdir / "package.json") or {}
    still = [name for name in entry["added"] if name in deps]
    if not still:
        return
    recorded = entry.get("dsh")
    command = dsh or (recorded if recorded and Path(recorded).is_file() else shutil.which("dsh"))
    remove = ["plugin", "--profile", entry["profile"], "remove", *still]
    if command is None:
        raise DshAdapterError(
            "dsh is not on PATH (needed to remove "
            + ", ".join(still)
            + f" from DSH profile {entry['profile']}): pass --dsh PATH; nothing was removed"
        )
    host([command, *remove], entry["dsh_home"])
    done.removed += [f"{name} (DSH profile {entry['profile']})" for name in still]


def _profile_files(entry: dict[str, Any], done: Undone) -> None:
    pdir = _record.profile_dir(entry["dsh_home"], entry["profile"])
    backups = _record.backup_dir(Path(entry["dsh_home"]), entry["profile"])
    package = pdir / "package.json"
    saved = backups / "package.json"
    if entry["package_json"] and saved.is_file() and package.is_file():
        before = saved.read_bytes()
        with contextlib.suppress(ValueError):
            if _comparable(_read_json(package)) == _comparable(json.loads(before)):
                if package.read_bytes() != before:
                    atomic_write(package, before)
                    done.written.append(str(package))
            else:
                done.notes.append(f"{package} changed since the install; left as it is")
    if pdir.is_dir() and (_record.dependencies(package) or {}) == {}:
        # nothing left in the profile: the lock and node_modules the install made go too
        if not entry["lock"]:
            _remove_file(pdir / "pnpm-lock.yaml", done)
        modules = pdir / "node_modules"
        if not entry["modules"] and modules.is_dir() and not modules.is_symlink():
            shutil.rmtree(modules)
            done.removed.append(str(modules))
    patch = entry.get("patch")
    target = pdir / "cordis.patch.yml"
    if patch is None or not target.is_file():
        return
    text = target.read_bytes()
    if hashlib.sha256(text).hexdigest() == patch["sha256"]:
        if patch["existed"] and (backups / "cordis.patch.yml").is_file():
            atomic_write(target, (backups / "cordis.patch.yml").read_bytes())
            done.written.append(str(target))
        elif not patch["existed"]:
            _remove_file(target, done)
        return
    dropped = drop_patch_rows(text.decode("utf-8", "replace"))
    if dropped != text.decode("utf-8", "replace"):
        atomic_write(target, dropped)
        done.written.append(str(target))
        done.notes.append(f"{target} changed since the install: removed cuecard's rows only")


def uninstall(host: Host, dsh: str | None = None) -> Undone:
    """Remove what ``cuecard dsh install`` did; ``host`` runs a ``dsh`` command."""
    done = Undone()
    record = _record.load()
    config = config_dir()
    if record is None:
        files = [interpreter_record(), config / "dsh-hooks.json"]
        files += sorted((config / "dsh-plugins").glob("cuecard-dsh-*.tgz"))
        made = [config / "dsh-plugins"]
        if any(f.is_file() for f in files):
            done.notes.append(
                "no install record (dsh-install.json): removed cuecard's own files; in a DSH "
                "profile that has the plugins, run `dsh plugin --profile PROFILE remove "
                + " ".join(PLUGINS.values())
                + "` and remove cuecard's rows from its cordis.patch.yml"
            )
    else:
        for entry in record["profiles"]:  # the host first: its failure leaves everything as is
            _host_step(entry, dsh, host, done)
        for entry in record["profiles"]:
            _profile_files(entry, done)
        files = [_record.owned_file(f) for f in record["files"]]
        for entry in record["profiles"]:
            backups = _record.backup_dir(Path(entry["dsh_home"]), entry["profile"])
            files += [backups / "package.json", backups / "cordis.patch.yml"]
        files.append(_record.record_file())
        made = [_record.folder(m) for m in record["made"]]
        made += [_record.backup_dir(Path(e["dsh_home"]), e["profile"]) for e in record["profiles"]]
        made.append(config / "dsh-backups")
    for path in files:
        _remove_file(path, done)
    for folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty: something else lives there
            folder.rmdir()
            done.removed.append(str(folder))
    if not done.removed and not done.written:
        done.notes.append("nothing to remove: cuecard's DSH set-up is not installed")
    return done
