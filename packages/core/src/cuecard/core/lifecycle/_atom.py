"""One DeltaDictum schema-7 atom (schema 6 read too) converted into a cuecard memory record:
``FIELDS`` says where each field goes, ``convert_atom`` does it. Pure: no file is read here.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from cuecard.core.store._globs import glob_problem
from cuecard.core.store._memory import TOPIC_PATTERN

__all__ = ["BODY_LIMIT", "FIELDS", "UUID4", "convert_atom", "new_id"]

BODY_LIMIT = 4_000
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
"""An id cuecard keeps as it is; any other id gets a UUID4 derived from it (``new_id``)."""
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
