"""The install record, ``dsh-install.json`` in the cuecard config folder: what ``cuecard dsh
install`` wrote and registered, so that ``cuecard dsh uninstall`` removes exactly that.

It names the files written in the config folder (and the plugin tarballs, which ``--out`` may put
elsewhere), the folders the install made, and per DSH profile: the packages ``dsh plugin add``
added that were not there before, whether the profile's ``pnpm-lock.yaml`` and ``node_modules``
existed before, and copies of its ``package.json`` and ``cordis.patch.yml`` as they were (kept
in ``dsh-backups/`` of the config folder, outside any work tree). A second install keeps the
first one's copies: the state to go back to is the one before cuecard came.

The record is read as hostile input: a path it names is used only where cuecard writes (the
config folder, a ``cuecard-dsh-*.tgz`` tarball, a profile folder's known files).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cuecard.dsh_adapter._errors import DshAdapterError
from cuecard.dsh_adapter._journal import Journal
from cuecard.dsh_adapter._paths import config_dir

__all__ = [
    "NAME",
    "backup_dir",
    "dependencies",
    "entry",
    "folder",
    "load",
    "owned_file",
    "profile_dir",
    "profile_key",
    "record_file",
    "save",
    "snapshot_patch",
    "snapshot_profile",
]

NAME = "dsh-install.json"


def record_file(env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / NAME


def profile_key(dsh_home: Path, profile: str) -> str:
    """A short stable name for a (DSH home, profile) pair: its backups' folder."""
    return hashlib.sha256(f"{dsh_home}\0{profile}".encode()).hexdigest()[:16]


def backup_dir(dsh_home: Path, profile: str, env: Mapping[str, str] | None = None) -> Path:
    return config_dir(env) / "dsh-backups" / profile_key(dsh_home, profile)


def profile_dir(dsh_home: str, profile: str) -> Path:
    """The profile's folder; a profile name is one plain path component."""
    if not profile or profile in {".", ".."} or "/" in profile or "\\" in profile:
        raise DshAdapterError(f"{NAME}: profile {profile!r} is not a profile name")
    home = Path(dsh_home)
    if not home.is_absolute():
        raise DshAdapterError(f"{NAME}: DSH home {dsh_home!r} is not an absolute path")
    return home / "profiles" / profile


def owned_file(path: str, env: Mapping[str, str] | None = None) -> Path:
    """``path`` from the record when cuecard may remove it: inside the config folder, or a
    plugin tarball (``cuecard-dsh-*.tgz``) elsewhere."""
    candidate = Path(path)
    if not candidate.is_absolute() or ".." in candidate.parts:
        raise DshAdapterError(f"{NAME}: {path!r} is not an absolute path")
    inside = candidate.is_relative_to(config_dir(env))
    tarball = candidate.name.startswith("cuecard-dsh-") and candidate.name.endswith(".tgz")
    if not (inside or tarball):
        raise DshAdapterError(f"{NAME}: {path!r} is not a file cuecard wrote")
    return candidate


def folder(path: str) -> Path:
    """A folder the record says the install made (only ever removed when empty)."""
    candidate = Path(path)
    if not candidate.is_absolute() or ".." in candidate.parts:
        raise DshAdapterError(f"{NAME}: {path!r} is not an absolute path")
    return candidate


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DshAdapterError(f"{NAME}: a list of strings was expected")
    return list(value)


def load(env: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The record (checked), or ``None`` when there is none."""
    path = record_file(env)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DshAdapterError(f"{path}: {exc}") from exc
    if len(raw) > 1_000_000:
        raise DshAdapterError(f"{path}: too large to be cuecard's install record")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else f"not JSON ({exc})"
        raise DshAdapterError(f"{path}: {why}; remove it by hand") from exc
    if not isinstance(data, dict) or not isinstance(data.get("profiles"), list):
        raise DshAdapterError(f"{path}: not cuecard's install record; remove it by hand")
    record: dict[str, Any] = {
        "files": _strings(data.get("files", [])),
        "made": _strings(data.get("made", [])),
    }
    profiles = []
    for entry in data["profiles"]:
        if not isinstance(entry, dict):
            raise DshAdapterError(f"{path}: a profile entry is not an object")
        dsh = entry.get("dsh")
        flags = [entry.get(k) for k in ("package_json", "lock", "modules")]
        patch = entry.get("patch")
        if (
            not isinstance(entry.get("dsh_home"), str)
            or not isinstance(entry.get("profile"), str)
            or not (dsh is None or isinstance(dsh, str))
            or not all(isinstance(f, bool) for f in flags)
            or not (patch is None or isinstance(patch, dict))
        ):
            raise DshAdapterError(f"{path}: a profile entry is malformed; remove it by hand")
        profile_dir(entry["dsh_home"], entry["profile"])  # refuses a hostile name
        if patch is not None and not (
            isinstance(patch.get("sha256"), str) and isinstance(patch.get("existed"), bool)
        ):
            raise DshAdapterError(f"{path}: a patch entry is malformed; remove it by hand")
        profiles.append({**entry, "added": _strings(entry.get("added", []))})
    record["profiles"] = profiles
    return record


def dependencies(package_json: Path) -> dict[str, Any] | None:
    """A profile's ``dependencies`` (``{}`` when it has none), ``None`` when unreadable."""
    try:
        data = json.loads(package_json.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    deps = data.get("dependencies", {})
    return deps if isinstance(deps, dict) else None


def _union(old: list[str], new: list[str]) -> list[str]:
    return [*old, *(n for n in new if n not in old)]


def entry(record: dict[str, Any], dsh_home: Path, profile: str, dsh: str | None) -> dict[str, Any]:
    """The record's entry for this profile (a first install's state is kept), or a new one."""
    for each in record["profiles"]:
        if each["dsh_home"] == str(dsh_home) and each["profile"] == profile:
            each["dsh"] = dsh or each.get("dsh")
            return dict(each)
    return {"dsh_home": str(dsh_home), "profile": profile, "dsh": dsh, "added": [], "new": True}


def snapshot_profile(
    entry: dict[str, Any], pdir: Path, wanted: list[str], journal: Journal
) -> list[str]:
    """Before ``dsh plugin add``: keep the profile's state (once), note which of ``wanted`` it
    lacks, and return those."""
    package = pdir / "package.json"
    if "package_json" not in entry:
        entry["package_json"] = package.is_file()
        entry["lock"] = (pdir / "pnpm-lock.yaml").exists()
        entry["modules"] = (pdir / "node_modules").exists()
        if entry["package_json"]:
            home = Path(entry["dsh_home"])
            journal.write(backup_dir(home, entry["profile"]) / "package.json", package.read_bytes())
    have = dependencies(package) or {}
    new = [n for n in wanted if n not in have]
    entry["added"] = _union(entry["added"], new)
    return new


def snapshot_patch(entry: dict[str, Any], patch: Path, text: str, journal: Journal) -> None:
    """Before writing the profile's ``cordis.patch.yml``: keep it as it was (once) and the hash
    of ``text``, what cuecard writes, by which uninstall knows it is unchanged since."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if entry.get("patch") is None:
        existed = patch.is_file()
        if existed:
            home = Path(entry["dsh_home"])
            journal.write(
                backup_dir(home, entry["profile"]) / "cordis.patch.yml", patch.read_bytes()
            )
        entry["patch"] = {"existed": existed}
    entry["patch"] = {**entry["patch"], "sha256": digest}


def save(
    record: dict[str, Any],
    entry: dict[str, Any],
    files: list[str],
    made: list[str],
    journal: Journal,
) -> None:
    """Write the record with this install's entry and files folded in."""
    entry.pop("new", None)
    profiles = [
        e
        for e in record["profiles"]
        if (e["dsh_home"], e["profile"]) != (entry["dsh_home"], entry["profile"])
    ]
    if "package_json" in entry or entry.get("patch") is not None:
        entry.setdefault("package_json", False)
        entry.setdefault("lock", True)  # nothing added: these are not cuecard's to remove
        entry.setdefault("modules", True)
        entry.setdefault("patch", None)
        profiles.append(entry)
    body = {
        "recorded_by": "cuecard dsh install",
        "files": _union(record["files"], files),
        "made": _union(record["made"], made),
        "profiles": profiles,
    }
    journal.write(record_file(), json.dumps(body, indent=2) + "\n")
