"""Migrate a DeltaDictum 0.8.x store (schema 7 "atoms" in ``.dd/``) into cuecard memories.

"v1" for cuecard is that store: ``.dd/atoms/<topic_key>.json`` (active, contested),
``.dd/candidates/``, ``.dd/archive/`` (superseded, archived, rejected) and ``.dd/legacy/``
(abandoned practices), schema 7 (schema 6 files are read too, as DeltaDictum reads them). Every
converted memory keeps its id, is marked ``review.migrated`` and waits in the review queue for a
person to supply ``not_derivable``. ``FIELDS`` says where each schema-7 field goes.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cuecard.core._errors import ValidationError
from cuecard.core._globs import glob_problem
from cuecard.core._memory import LIVE, TOPIC_PATTERN, Memory
from cuecard.core._validate import validate_memory

__all__ = ["FIELDS", "MigrateReport", "convert_atom", "migrate", "new_id", "read_atoms"]

MAX_ATOM_BYTES = 1024 * 1024
BODY_LIMIT = 4_000
_UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_TOPIC = re.compile(TOPIC_PATTERN)
_KINDS = {
    "claim": "fact",
    "decision": "decision",
    "lesson": "trap",
    "anti_memory": "failed_approach",
    "procedure": "procedure",
}
_STATES = {
    "candidate": "candidate",
    "active": "active",
    "contested": "contested",
    "superseded": "superseded",
    "archived": "archived",
    "rejected": "archived",
    "legacy": "active",
}

FIELDS: dict[str, str] = {
    "id": "id (kept; a non-UUID4 id gets a derived UUID4, reported in renamed)",
    "project_id": "dropped (the cuecard project has its own id)",
    "schema_version": "checked (6 or 7), then replaced by cuecard's",
    "capture_origin": "origin",
    "capture_source": "source (deltadictum:<capture_source>)",
    "memory_type": "kind (claim→fact, lesson→trap, anti_memory→failed_approach)",
    "scope": "body (Scope line, when not project)",
    "title": "title (else the first 100 characters of behavior_delta)",
    "topic_key": "topic (legacy atoms get /legacy-<id>)",
    "trigger": "body (When line)",
    "trigger_variants": "body (Also when line)",
    "behavior_delta": "body (first paragraph)",
    "what": "dropped (a copy of behavior_delta)",
    "why": "body (Why line)",
    "tags": "body (Tags line)",
    "applies_to": "files → a read/edit/write trigger clause; components, operations → prompt "
    "keywords",
    "assumptions": "body (Assumes lines)",
    "revisit_when": "body (Reconsider when lines)",
    "alternatives": "body (Alternatives lines)",
    "evidence_refs": "evidence (file/diff → file, test_log/tool_output → command, else note)",
    "evidence_state": "evidence sha256 (artifact hashes) and verified",
    "anchors": "keywords → prompt trigger clause; files → the path clause; not_when → "
    "review.issues (cuecard has no blocking phrases)",
    "authority": "review.note",
    "lifecycle_state": "status (rejected → archived; legacy → active failed_approach)",
    "valid_from": "created_at when created_at is missing",
    "valid_until": "body (Valid until line)",
    "retrieval_forms": "dropped (derived in DeltaDictum)",
    "confidence": "review.note",
    "registry_key_id": "dropped",
    "replaces": "revises (for a candidate)",
    "suspected_pair": "review.issues",
    "requested_authority": "dropped",
    "revision_requested": "review.note",
    "revised_by": "dropped (the reviser is its own memory)",
    "review": "review.reviewed_at and review.note (rationale)",
    "superseded_by": "superseded_by",
    "contested_at": "dropped (status says contested)",
    "archived_at": "dropped (updated_at)",
    "archived_reason": "archived_reason",
    "legacy_reason": "archived_reason is not set; body (Abandoned because line)",
    "legacy_at": "dropped",
    "replaced_by": "dropped",
    "predominance": "dropped (a derived score)",
    "activation_count": "dropped (a derived count)",
    "created_at": "created_at",
    "updated_at": "dropped (the store stamps the migration time on every write)",
}


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


def _text(value: Any, limit: int = 2000) -> str:
    return " ".join(str(value).split())[:limit] if isinstance(value, str | int | float) else ""


def _dict(atom: dict[str, Any], key: str) -> dict[str, Any]:
    value = atom.get(key)
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _date(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).isoformat()


def new_id(old: str) -> str:
    """A stable UUID4-shaped id for a DeltaDictum id that is not one."""
    return str(uuid.UUID(bytes=hashlib.sha256(old.encode()).digest()[:16], version=4))


def _topic(raw: Any, fallback: str) -> str:
    topic = str(raw or "").strip().lower()
    if _TOPIC.match(topic):
        return topic
    parts = [re.sub(r"[^a-z0-9._-]+", "-", p).strip("-.")[:64] for p in topic.split("/")]
    parts = [re.sub(r"^[^a-z0-9]+", "", p) for p in parts]
    parts = [p for p in parts if p][:6]
    return "/".join(parts) if parts else fallback


def _body(atom: dict[str, Any]) -> str:
    lines = [_text(atom.get("behavior_delta") or atom.get("what"), 2000)]
    scope = _text(atom.get("scope"))
    for label, key in (("Why", "why"), ("When", "trigger")):
        if _text(atom.get(key)):
            lines.append(f"{label}: {_text(atom.get(key))}")
    variants = [_text(v, 250) for v in _list(atom.get("trigger_variants")) if _text(v)]
    if variants:
        lines.append("Also when: " + "; ".join(variants))
    lines.extend(_alternatives(atom))
    lines.extend(_assumptions(atom))
    lines.extend(_revisit(atom))
    applies = _dict(atom, "applies_to")
    for key in ("components", "operations"):
        values = [_text(v, 100) for v in _list(applies.get(key)) if _text(v)]
        if values:
            lines.append(f"Only within {key}: " + ", ".join(values))
    if scope and scope != "project":
        lines.append(f"Scope: {scope}")
    if _text(atom.get("valid_until")):
        lines.append(f"Valid until: {_text(atom.get('valid_until'))}")
    if _text(atom.get("legacy_reason")):
        lines.append(f"Abandoned because: {_text(atom.get('legacy_reason'))}")
    tags = [_text(t, 50) for t in _list(atom.get("tags")) if _text(t)]
    if tags:
        lines.append("Tags: " + ", ".join(tags))
    body = "\n\n".join(line for line in lines if line).strip()
    return body[:BODY_LIMIT] if body else ""


def _alternatives(atom: dict[str, Any]) -> list[str]:
    """The body lines of the alternatives a decision weighed."""
    return [
        f"Alternative: {_text(alt['option'])}: {_text(alt.get('reason'))}"
        for alt in _list(atom.get("alternatives"))
        if isinstance(alt, dict) and _text(alt.get("option"))
    ]


def _assumptions(atom: dict[str, Any]) -> list[str]:
    """The body lines of what a decision assumes (text, or a described key that equals a value)."""
    lines: list[str] = []
    for item in _list(atom.get("assumptions")):
        if isinstance(item, str):
            lines.append(f"Assumes: {_text(item)}")
        elif isinstance(item, dict):
            key = f" ({_text(item.get('key'))} = {item.get('equals')})" if item.get("key") else ""
            lines.append(f"Assumes: {_text(item.get('description'))}{key}")
    return lines


def _revisit(atom: dict[str, Any]) -> list[str]:
    """The body lines of when to reconsider a decision (text, or a described path, date or key)."""
    lines: list[str] = []
    for item in _list(atom.get("revisit_when")):
        if isinstance(item, str):
            lines.append(f"Reconsider when: {_text(item)}")
        elif isinstance(item, dict):
            extra = _text(item.get("path") or item.get("date") or item.get("key"))
            lines.append(
                f"Reconsider when: {_text(item.get('description'))}"
                + (f" ({_text(item.get('kind'))}: {extra})" if extra else "")
            )
    return lines


def _paths(atom: dict[str, Any], issues: list[str]) -> list[str]:
    anchors = _dict(atom, "anchors")
    applies = _dict(atom, "applies_to")
    out: list[str] = []
    for value in [*_list(anchors.get("files")), *_list(applies.get("files"))]:
        if not isinstance(value, str):
            continue
        glob = value.replace("\\", "/").strip()
        while glob.startswith("./"):
            glob = glob[2:]
        if glob_problem(glob) is not None:
            issues.append(f"dd_path_dropped:{glob[:60]}")
        elif glob not in out:
            out.append(glob)
    return out[:32]


def _keywords(atom: dict[str, Any]) -> list[str]:
    anchors = _dict(atom, "anchors")
    applies = _dict(atom, "applies_to")
    out: list[str] = []
    for value in [
        *_list(anchors.get("keywords")),
        *_list(applies.get("components")),
        *_list(applies.get("operations")),
    ]:
        word = _text(value, 100)
        if word and word.lower() not in (w.lower() for w in out):
            out.append(word)
    return out[:32]


def _evidence(atom: dict[str, Any]) -> list[dict[str, Any]]:
    state = _dict(atom, "evidence_state")
    hashes: dict[str, str] = {}
    for artifact in _list(state.get("artifacts")):
        if isinstance(artifact, dict) and isinstance(artifact.get("hash"), str):
            digest = artifact["hash"].lower().removeprefix("sha256:")
            if _SHA256.match(digest):
                hashes[str(artifact.get("source_ref"))] = digest
    out: list[dict[str, Any]] = []
    for ref in _list(atom.get("evidence_refs"))[:16]:
        if not isinstance(ref, dict) or not _text(ref.get("source_ref")):
            continue
        source_type = _text(ref.get("source_type"))
        kind = {"file": "file", "diff": "file", "test_log": "command", "tool_output": "command"}
        entry: dict[str, Any] = {
            "kind": kind.get(source_type, "note"),
            "ref": _text(ref.get("source_ref"), 300),
            "summary": _text(f"{source_type}: {_text(ref.get('summary'))}", 500),
        }
        digest = hashes.get(str(ref.get("source_ref")))
        if digest and entry["kind"] == "file":
            entry["sha256"] = digest
        out.append(entry)
    return out


def convert_atom(atom: dict[str, Any], now: str, ids: dict[str, str]) -> dict[str, Any]:
    """The cuecard memory record for one schema-7 atom (``ids`` maps renamed ids)."""
    old = str(atom.get("id"))
    ident = ids.get(old, old)
    state = str(atom.get("lifecycle_state") or "candidate")
    issues = ["migrated_needs_not_derivable"]
    triggers: list[dict[str, Any]] = []
    paths = _paths(atom, issues)
    if paths:
        triggers.append({"on": ["read", "edit", "write"], "paths": paths})
    keywords = _keywords(atom)
    if keywords:
        triggers.append({"on": ["prompt"], "keywords": keywords})
    anchors = _dict(atom, "anchors")
    if _list(anchors.get("not_when")):
        issues.append("dd_not_when_dropped")
    if _list(atom.get("suspected_pair")):
        issues.append("dd_suspected_pair:" + ",".join(str(p)[:8] for p in atom["suspected_pair"]))
    topic = _topic(atom.get("topic_key"), f"deltadictum/{ident[:8]}")
    if state == "legacy":
        topic = f"{topic}/legacy-{ident[:8]}" if topic.count("/") < 5 else f"legacy/{ident[:8]}"
    review = _dict(atom, "review")
    notes = [f"migrated from DeltaDictum (authority {_text(atom.get('authority')) or 'unknown'}"]
    if isinstance(atom.get("confidence"), int | float):
        notes.append(f"confidence {atom['confidence']}")
    revision = atom.get("revision_requested")
    if isinstance(revision, dict) and _text(revision.get("reason")):
        notes.append(f"revision requested: {_text(revision['reason'], 300)}")
    note = ", ".join(notes) + ")"
    if _text(review.get("rationale")):
        note += f". Review rationale: {_text(review['rationale'], 600)}"
    reviewed_at = _date(review.get("reviewed_at"))
    origin = atom.get("capture_origin")
    created = _date(atom.get("created_at")) or _date(atom.get("valid_from")) or now
    archived_reason = _text(atom.get("archived_reason"), 500) or None
    if state == "rejected":
        archived_reason = archived_reason or "rejected in DeltaDictum"
    replaces = atom.get("replaces") if state == "candidate" else None
    superseded_by = atom.get("superseded_by") if state == "superseded" else None
    title = _text(atom.get("title"), 150) or _text(atom.get("behavior_delta"), 100) or topic
    return {
        "id": ident,
        "topic": topic,
        "kind": "failed_approach"
        if state == "legacy"
        else _KINDS.get(str(atom.get("memory_type") or "lesson"), "trap"),
        "status": _STATES.get(state, "candidate"),
        "title": title[:150],
        "body": _body(atom) or title,
        "triggers": triggers,
        "evidence": _evidence(atom),
        "origin": origin if origin in ("model_initiated", "user_explicit") else "user_explicit",
        "source": f"deltadictum:{_text(atom.get('capture_source'), 60) or 'agent'}",
        "created_at": created,
        "updated_at": _date(atom.get("updated_at")) or created,
        "revises": ids.get(str(replaces), replaces) if isinstance(replaces, str) else None,
        "superseded_by": ids.get(str(superseded_by), superseded_by)
        if isinstance(superseded_by, str)
        else None,
        "archived_reason": archived_reason if _STATES.get(state) == "archived" else None,
        "review": {
            "reviewed_by": "deltadictum review" if reviewed_at else None,
            "reviewed_at": reviewed_at,
            "note": note[:1000],
            "migrated": True,
            "issues": [i[:100] for i in issues][:16],
        },
    }


def read_atoms(dd: Path) -> tuple[list[tuple[str, dict[str, Any]]], list[dict[str, str]]]:
    """Every atom file of the store at ``dd`` (the ``.dd`` folder), and the unreadable ones."""
    atoms: list[tuple[str, dict[str, Any]]] = []
    skipped: list[dict[str, str]] = []
    for part in ("atoms", "candidates", "archive", "legacy"):
        folder = dd / part
        if not folder.is_dir() or folder.is_symlink():
            continue
        for path in sorted(folder.rglob("*.json")):
            shown = path.relative_to(dd.parent).as_posix()
            if path.is_symlink() or not path.is_file():
                skipped.append({"file": shown, "reason": "not a regular file"})
                continue
            if path.stat().st_size > MAX_ATOM_BYTES:
                skipped.append({"file": shown, "reason": f"larger than {MAX_ATOM_BYTES} bytes"})
                continue
            try:
                raw = json.loads(path.read_text(encoding="utf-8-sig"))
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


def _dropped(atom: dict[str, Any]) -> list[str]:
    return sorted(
        k for k, v in atom.items() if FIELDS.get(k, "dropped").startswith("dropped") and v
    )


def migrate(source: Path, root: Path, *, dry_run: bool = False) -> MigrateReport:
    """Convert the DeltaDictum store in ``source`` (a project or its ``.dd``) into ``root``'s."""
    from cuecard.core._store import Store

    dd = source if source.name == ".dd" else source / ".dd"
    report = MigrateReport(source=str(dd), dry_run=dry_run)
    if not (dd / "atoms").is_dir() and not (dd / "candidates").is_dir():
        from cuecard.core._errors import UsageError

        raise UsageError(f"{dd}: no DeltaDictum store here (no atoms/ or candidates/ folder)")
    atoms, report.skipped = read_atoms(dd)
    for part, pattern in (("actions", "*.json"), ("registry", "*.json")):
        count = len(list((dd / part).glob(pattern))) if (dd / part).is_dir() else 0
        if count:
            report.not_converted[part] = count
    try:
        relations = json.loads((dd / "relations.json").read_text(encoding="utf-8"))
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
    ids = {a["id"]: new_id(a["id"]) for _, a in atoms if not _UUID4.match(a["id"])}
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
        from cuecard.core._compiler import compile_index

        with store.transaction() as tx:
            for memory in staged:
                tx.put(memory)
        compile_index(store)
    return report
