"""Migrate a DeltaDictum 0.8.x store (schema 7 "atoms" in ``.dd/``) into cuecard memories.

"v1" for cuecard is that store: ``.dd/atoms/<topic_key>.json`` (active, contested),
``.dd/candidates/``, ``.dd/archive/`` (superseded, archived, rejected) and ``.dd/legacy/``
(abandoned practices), schema 7 (schema 6 files are read too, as DeltaDictum reads them). Every
converted memory keeps its id, is marked ``review.migrated`` and waits in the review queue for a
person to supply ``not_derivable``. ``FIELDS`` says where each schema-7 field goes; one atom's
conversion is ``_atom``'s, reading the store and writing the memories is this module's.

The ``.dd`` folder is read through the confined layer (``Tree``, based at the folder holding
it): it is usually the repository's own, which a teammate's commit can fill, so a link, FIFO or
device in it (at any depth) is skipped with its reason, never followed or opened.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import Tree, UnsafePath
from cuecard.core.base._errors import ValidationError
from cuecard.core.lifecycle._atom import FIELDS, UUID4, convert_atom, new_id
from cuecard.core.store._memory import LIVE, Memory
from cuecard.core.store._validate import validate_memory

__all__ = ["FIELDS", "MigrateReport", "convert_atom", "migrate", "new_id", "read_atoms"]

MAX_ATOM_BYTES = 1024 * 1024
_MAX_DEPTH = 32


@dataclass
class MigrateReport:
    """What a migration did (or, in a dry run, would do)."""

    source: str
    dry_run: bool = False
    opted_in: bool = False
    """Whether the migration opted the project in (created ``.cuecard/``)."""
    converted: list[dict[str, Any]] = field(default_factory=list)
    """``id``, ``topic``, ``status``, ``file`` (the atom file), ``dropped`` (fields)."""
    renamed: list[dict[str, str]] = field(default_factory=list)
    """``from`` and ``to`` for ids that were not UUID4."""
    already: list[str] = field(default_factory=list)
    """Ids the store already holds (a migration run again)."""
    skipped: list[dict[str, str]] = field(default_factory=list)
    """``file`` and ``reason``."""
    not_converted: dict[str, int] = field(default_factory=dict)
    """Counts of store parts cuecard has no place for (actions, relations, registry)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "opted_in": self.opted_in,
            "converted": self.converted,
            "renamed": self.renamed,
            "already": self.already,
            "skipped": self.skipped,
            "not_converted": self.not_converted,
        }


def read_atoms(dd: Path) -> tuple[list[tuple[str, dict[str, Any]]], list[dict[str, str]]]:
    """Every atom file of the store at ``dd`` (the ``.dd`` folder), and the unreadable ones."""
    atoms: list[tuple[str, dict[str, Any]]] = []
    skipped: list[dict[str, str]] = []
    tree = Tree(dd.parent)
    for part in ("atoms", "candidates", "archive", "legacy"):
        folder = f"{dd.name}/{part}"
        if not tree.is_dir(folder):
            continue
        for shown, kind in sorted(_json_entries(tree, folder), key=lambda e: e[0].split("/")):
            if kind != "file":
                skipped.append({"file": shown, "reason": "not a regular file"})
                continue
            try:
                data = tree.read_bytes(shown, MAX_ATOM_BYTES)
            except UnsafePath as exc:
                reason = "not a regular file"
                if exc.reason.startswith("holds more than"):
                    reason = f"larger than {MAX_ATOM_BYTES} bytes"
                skipped.append({"file": shown, "reason": reason})
                continue
            try:
                raw = json.loads(data.decode("utf-8-sig"))
            except (OSError, ValueError) as exc:
                skipped.append({"file": shown, "reason": f"not valid JSON ({exc})"})
                continue
            if not isinstance(raw, dict):
                skipped.append({"file": shown, "reason": "not a JSON object"})
            elif raw.get("schema_version") not in (6, 7):
                version = raw.get("schema_version")
                skipped.append(
                    {"file": shown, "reason": f"schema_version {version!r} is not 6 or 7"}
                )
            elif not isinstance(raw.get("id"), str) or not re.match(r"^[\w-]{1,100}$", raw["id"]):
                skipped.append({"file": shown, "reason": "it has no usable id"})
            else:
                atoms.append((shown, raw))
    return atoms, skipped


def _json_entries(tree: Tree, rel: str, depth: int = 0) -> list[tuple[str, str]]:
    """``(path, kind)`` of each ``*.json`` entry under folder ``rel``, by descriptor (a link or a
    folder another user owns is listed or left out, never followed)."""
    out: list[tuple[str, str]] = []
    if depth > _MAX_DEPTH:
        return out
    try:
        entries = tree.entries(rel)
    except OSError:
        return out
    for name, kind in entries:
        here = f"{rel}/{name}"
        if name.endswith(".json"):
            out.append((here, kind))
        if kind == "dir":
            out += _json_entries(tree, here, depth + 1)
    return out


def _dropped(atom: dict[str, Any]) -> list[str]:
    return sorted(
        k for k, v in atom.items() if FIELDS.get(k, "dropped").startswith("dropped") and v
    )


def migrate(source: Path, root: Path, *, dry_run: bool = False) -> MigrateReport:
    """Convert the DeltaDictum store in ``source`` (a project or its ``.dd``) into ``root``'s."""
    from cuecard.core.store._store import Store

    dd = source if source.name == ".dd" else source / ".dd"
    report = MigrateReport(source=str(dd), dry_run=dry_run)
    tree = Tree(dd.parent)
    if not tree.is_dir(f"{dd.name}/atoms") and not tree.is_dir(f"{dd.name}/candidates"):
        from cuecard.core.base._errors import UsageError

        raise UsageError(f"{dd}: no DeltaDictum store here (no atoms/ or candidates/ folder)")
    atoms, report.skipped = read_atoms(dd)
    for part in ("actions", "registry"):
        try:
            count = sum(name.endswith(".json") for name, _ in tree.entries(f"{dd.name}/{part}"))
        except OSError:
            count = 0
        if count:
            report.not_converted[part] = count
    try:
        relations = json.loads(tree.read_bytes(f"{dd.name}/relations.json", 16 << 20).decode())
        if isinstance(relations, list) and relations:
            report.not_converted["relations"] = len(relations)
    except (OSError, ValueError):
        pass
    opted = (root / ".cuecard" / "config.json").is_file()
    if not opted and not dry_run:
        Store.init(root)
        report.opted_in = True
    store = Store.open(root) if opted or not dry_run else Store(root)
    now = store.now().isoformat()
    ids = {a["id"]: new_id(a["id"]) for _, a in atoms if not UUID4.match(a["id"])}
    report.renamed = [{"from": old, "to": new} for old, new in ids.items()]
    existing = {m.id: m for m in store.memories()} if opted else {}
    live_topics = {m.topic: m.id for m in existing.values() if m.status in LIVE}
    staged: list[Memory] = []
    for shown, atom in atoms:
        raw = convert_atom(atom, now, ids)
        if raw["id"] in existing:
            report.already.append(raw["id"])
            continue
        holder = live_topics.get(raw["topic"])
        if raw["status"] in LIVE and holder is not None:
            raw["status"] = "candidate"
            raw["revises"] = holder
            raw["review"]["issues"].append("dd_topic_taken")
        try:
            memory = validate_memory(raw)
        except ValidationError as exc:
            reasons = "; ".join(r.split(": ", 1)[-1] for r in exc.refusals)
            report.skipped.append({"file": shown, "reason": f"refused: {reasons}"})
            continue
        if memory.status in LIVE:
            live_topics[memory.topic] = memory.id
        existing[memory.id] = memory
        staged.append(memory)
        report.converted.append(
            {
                "id": memory.id,
                "topic": memory.topic,
                "status": memory.status.value,
                "file": shown,
                "dropped": _dropped(atom),
            }
        )
    if staged and not dry_run:
        from cuecard.core.store._compiler import compile_index

        with store.transaction() as tx:
            for memory in staged:
                tx.put(memory)
        compile_index(store)
    return report
