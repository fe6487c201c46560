"""Ingestion: turn an inbox proposal into a candidate (or an active memory), or refuse it.

``ingest_file`` validates the proposal as the store validates, verifies the evidence it can (it
hashes repository files), suggests triggers from the session when none are given, refuses generic
advice and duplicates of a live memory, replaces a pending candidate on the same topic (archiving
it), applies auto-accept, and answers with a message for the agent. The inbox file is moved out of
the inbox afterwards (to ``.cuecard/local/inbox-done/`` or ``inbox-refused/``); nothing is deleted.
Each ingestion appends one telemetry line (outcome and reason codes, never content).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic

from cuecard.core._errors import CuecardError, NotFound, ValidationError
from cuecard.core._grounds import naming_correction, suggest_triggers
from cuecard.core._memory import Memory, Status
from cuecard.core._proposal import MemoryProposal, Proposal, RequestProposal
from cuecard.core._similarity import DUPLICATE_AT, SimilarityIndex
from cuecard.core._store import Store
from cuecard.core._validate import schema_messages, validate_memory
from cuecard.core.engine._append import append_record
from cuecard.core.engine._evidence import file_digest, ref_problem
from cuecard.core.engine._paths import repo_relative
from cuecard.core.engine._text import find_secret, redact

__all__ = ["MAX_PROPOSAL_BYTES", "IngestResult", "generic_reason", "ingest_file"]

MAX_PROPOSAL_BYTES = 64 * 1024
MAX_EVIDENCE_BYTES = 4 * 1024 * 1024

_ANCHOR = re.compile(
    r"`[^`]+`"  # code span
    r"|\b[\w.-]+/[\w./-]+"  # a path
    r"|\b\w+\.(?:py|js|ts|tsx|go|rs|rb|java|php|sql|json|ya?ml|toml|md|sh|cfg|ini|lock)\b"
    r"|\b[a-z]+_[a-z0-9_]+\b"  # snake_case
    r"|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b"  # camelCase, CamelCase
    r"|\w+\(\)"  # call
    r"|\b\d+(?:\.\d+)+\b"  # a version
    r"|--[a-z][\w-]+"  # a flag
)
_GENERIC = re.compile(
    r"\b(best practices?|clean code|write (?:unit )?tests|add (?:more )?tests|meaningful names|"
    r"descriptive names|handle errors|error handling|keep functions small|follow (?:the )?"
    r"(?:style guide|conventions)|document your code|add comments|code review|be careful|"
    r"double[- ]check|readable code|DRY|SOLID)\b",
    re.IGNORECASE,
)


@dataclass
class IngestResult:
    """The outcome of one proposal, and what the agent is told."""

    outcome: str
    """``candidate``, ``active``, ``replaced``, ``request`` or ``refused``."""
    memory_id: str | None = None
    file: str | None = None
    """The memory's repository-relative path."""
    reasons: list[str] = field(default_factory=list)
    message: str = ""
    codes: list[str] = field(default_factory=list)
    """Short reason codes for telemetry."""

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "memory_id": self.memory_id,
            "file": self.file,
            "reasons": self.reasons,
            "message": self.message,
        }


class _Refused(CuecardError):
    def __init__(self, code: str, reasons: list[str]) -> None:
        self.code = code
        self.reasons = reasons
        super().__init__("; ".join(reasons))


def generic_reason(title: str, body: str, has_narrow_trigger: bool) -> str | None:
    """Why a proposal reads as advice any capable agent already knows, or ``None``."""
    text = f"{title}\n{body}"
    if _ANCHOR.search(text) or has_narrow_trigger:
        return None
    if _GENERIC.search(text):
        return (
            "reads as generic advice any capable agent already follows; name the file, command "
            "or identifier of this project it applies to"
        )
    if len(text.split()) < 6:
        return "is too short to say anything specific to this project"
    return None


def _verify_file(root: Path, ref: str) -> tuple[str | None, str]:
    """The sha256 of a repository file named by evidence, or why it cannot be verified."""
    ref = re.sub(r"#L\d+(?:-L?\d+)?$", "", ref)
    rel = repo_relative(ref, str(root))
    if rel is None or not rel:
        return None, f"evidence file {ref!r} lies outside the repository"
    if not os.path.lexists(root / rel):
        return None, f"evidence file {rel!r} does not exist in the repository"
    digest = file_digest(str(root), rel, MAX_EVIDENCE_BYTES)  # no link, FIFO or device
    if digest is None:
        return None, f"evidence file {rel!r} is not a regular file under 4 MiB (links not followed)"
    return digest, rel


def _tracked_files(root: Path) -> list[str]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, timeout=20, check=True
        ).stdout.decode("utf-8", "replace")
        return [p for p in out.split("\0") if p]
    except (OSError, subprocess.SubprocessError):
        found = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            found += [os.path.relpath(os.path.join(folder, f), root) for f in files]
            if len(found) > 50_000:
                break
        return [p.replace(os.sep, "/") for p in found]


def _dead_clauses(root: Path, memory: Memory) -> list[int]:
    """Clauses whose paths match no file of the repository."""
    from cuecard.core._repofiles import GlobSet

    files: list[str] | None = None
    dead = []
    for i, clause in enumerate(memory.triggers):
        if not clause.paths:
            continue
        files = _tracked_files(root) if files is None else files
        if not GlobSet(clause.paths).matching(files):  # linear in each path, never backtracks
            dead.append(i)
    return dead


def _telemetry(store: Store, result: IngestResult, session: str, source: str) -> None:
    line = {
        "t": round(time.time(), 3),
        "outcome": result.outcome,
        "reasons": result.codes,
        "session": session,
        "source": source,
        "memory": result.memory_id,
    }
    folder = store.local_dir / "telemetry"
    folder.mkdir(parents=True, exist_ok=True)
    append_record(folder / "inbox.jsonl", (json.dumps(line) + "\n").encode("utf-8"))


def _decoded_strings(value: Any) -> str:
    """Every key and string of parsed JSON, one per line: what escapes could hide from a scan."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return "\n".join(out)


def _parse(raw_text: str) -> Proposal:
    secret = find_secret(raw_text)
    if secret is not None:
        raise _Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    try:
        raw = json.loads(raw_text)
    except ValueError as exc:
        raise _Refused("invalid_json", [f"the proposal is not valid JSON ({exc})"]) from None
    except RecursionError:
        raise _Refused("invalid_json", ["the proposal is nested too deeply"]) from None
    if not isinstance(raw, dict):
        raise _Refused("not_object", ["the proposal is not one JSON object"])
    secret = find_secret(_decoded_strings(raw))
    if secret is not None:
        raise _Refused("secret", [f"the proposal holds a credential-shaped value ({secret})"])
    model: type[MemoryProposal] | type[RequestProposal]
    model = RequestProposal if "request" in raw else MemoryProposal
    try:
        return model.model_validate(raw)
    except pydantic.ValidationError as error:
        raise _Refused("schema", schema_messages(error)) from None


def _request(store: Store, proposal: RequestProposal, source: str) -> IngestResult:
    try:
        target = store.get(proposal.target)
    except NotFound as exc:
        raise _Refused("unknown_target", [str(exc)]) from None
    if not target.live:
        raise _Refused("target_not_live", [f"memory {target.id[:8]} is {target.status}, not live"])
    now = store.now().isoformat()
    if proposal.request == "archive":
        request = {
            "id": str(uuid.uuid4()),
            "request": "archive",
            "target": target.id,
            "reason": proposal.reason,
            "batch": proposal.batch,
            "source": source,
            "created_at": now,
        }
        with store.transaction() as tx:
            tx.put_request(request)
        return IngestResult(
            "request",
            target.id,
            reasons=[],
            message=(
                f"cuecard recorded your request to archive memory {target.id[:8]} "
                f'("{target.title}"); a person decides in the review UI.'
            ),
            codes=["archive_request"],
        )
    update = {
        k: v
        for k, v in proposal.model_dump(
            mode="json", exclude={"request", "target", "reason"}, exclude_none=True
        ).items()
    }
    raw = {
        **target.model_dump(mode="json"),
        **update,
        "id": str(uuid.uuid4()),
        "status": "candidate",
        "origin": "model_initiated",
        "source": source,
        "revises": target.id,
        "superseded_by": None,
        "created_at": now,
        "updated_at": now,
        "review": {"note": proposal.reason},
    }
    memory = validate_memory(raw)
    with store.transaction() as tx:
        saved = tx.put(memory)
    return IngestResult(
        "request",
        saved.id,
        f".cuecard/memories/{saved.id}.json",
        message=(
            f"cuecard stored your revision of memory {target.id[:8]} as candidate "
            f"{saved.id[:8]} (.cuecard/memories/{saved.id}.json); a person accepts or rejects it."
        ),
        codes=["revise_request"],
    )


def _memory(store: Store, proposal: MemoryProposal, session: str, source: str) -> IngestResult:
    root = store.root
    notes: list[str] = []
    evidence, verified_file, unnamed_correction = _checked_evidence(root, proposal, session, notes)
    corrected = any(e.get("kind") == "correction" and e.get("verified") for e in evidence)
    triggers, suggested = _proposed_triggers(root, proposal, session)
    narrow = any(t.get("paths") or t.get("commands") or t.get("symbols") for t in triggers)
    generic = generic_reason(proposal.title, proposal.body, narrow and not suggested)
    if generic is not None:
        raise _Refused("generic", [f"the memory {generic}"])
    now = store.now().isoformat()
    raw = {
        **proposal.model_dump(mode="json", exclude={"evidence", "triggers"}, exclude_none=True),
        "id": str(uuid.uuid4()),
        "topic": proposal.topic.strip().lower(),
        "status": "candidate",
        "origin": "model_initiated",
        "source": source,
        "triggers": triggers,
        "evidence": evidence,
        "created_at": now,
        "updated_at": now,
    }
    memory = validate_memory(raw)
    memories = store.memories()
    live = [m for m in memories if m.live]
    _refuse_duplicate(store, memory, live)
    holder = next((m for m in live if m.topic == memory.topic), None)
    if holder is not None:
        memory = memory.model_copy(update={"revises": holder.id})
        notes.append(f"topic {memory.topic} has live memory {holder.id[:8]}: this is its revision")
    pending = [m for m in memories if m.status == Status.CANDIDATE and m.topic == memory.topic]
    grounds = verified_file or corrected
    dead = _dead_clauses(root, memory)
    why_not = _why_not(
        store.config().auto_accept, grounds, unnamed_correction, dead, memory, holder, notes
    )
    accept = not why_not
    if accept:
        memory = memory.model_copy(
            update={
                "status": Status.ACTIVE,
                "review": memory.review.model_copy(update={"auto_accepted": True}),
            }
        )
    saved = _save(store, memory, pending)
    path = f".cuecard/memories/{saved.id}.json"
    outcome = "active" if accept else ("replaced" if pending else "candidate")
    if accept:
        why = "its evidence file was verified" if verified_file else "a recorded correction"
        said = f"cuecard activated memory {saved.id[:8]} ({path}): auto-accepted because {why}."
    else:
        said = f"cuecard stored candidate {saved.id[:8]} ({path}); a person will review it."
    if pending:
        said += f" It replaces pending candidate(s) {', '.join(m.id[:8] for m in pending)}."
    if suggested:
        said += f" Triggers were suggested from this session: {json.dumps(triggers)}."
    if notes:
        said += " Notes: " + "; ".join(notes) + "."
    return IngestResult(outcome, saved.id, path, notes, said, codes=[outcome, *why_not])


def _checked_evidence(
    root: Path, proposal: MemoryProposal, session: str, notes: list[str]
) -> tuple[list[dict[str, Any]], bool, bool]:
    """The proposal's evidence as stored (files hashed, a correction checked against the
    session), whether a file was verified and whether the session's correction names something
    else; what cannot be verified goes to ``notes``."""
    evidence = []
    verified_file = unnamed_correction = False
    for item in proposal.evidence:
        entry: dict[str, Any] = item.model_dump(mode="json")
        if item.kind == "file":
            digest, rel = _verify_file(root, item.ref)
            if digest is None:
                notes.append(rel)
                if ref_problem(item.ref) is not None:
                    continue  # a ref out of the repository is not kept as evidence
            else:
                entry.update(ref=rel, sha256=digest, verified=True)
                verified_file = True
        elif item.kind == "correction" and session:
            named = naming_correction(root, session, proposal.topic, proposal.title)
            if named:
                entry.update(verified=True)
            elif named is False:
                unnamed_correction = True
        evidence.append(entry)
    return evidence, verified_file, unnamed_correction


def _proposed_triggers(
    root: Path, proposal: MemoryProposal, session: str
) -> tuple[list[dict[str, Any]], bool]:
    """The proposal's triggers, else (with a session) ones suggested from it, and whether the
    triggers were suggested."""
    triggers = [t.model_dump(mode="json") for t in proposal.triggers]
    if triggers or not session:
        return triggers, False
    triggers = suggest_triggers(root, session)
    return triggers, bool(triggers)


def _refuse_duplicate(store: Store, memory: Memory, live: list[Memory]) -> None:
    """Refuse ``memory`` when it is as similar as a duplicate to a live memory."""
    similar = SimilarityIndex(store.local_dir / "similarity.json").refresh(live)
    twin = next(iter(similar.similar(f"{memory.title} {memory.body}", at_least=DUPLICATE_AT)), None)
    if twin is not None:
        ident, score = twin
        raise _Refused(
            "duplicate",
            [
                f"it duplicates live memory {ident[:8]} (similarity {score:.2f}); send a revise "
                "request for that memory instead"
            ],
        )


def _why_not(
    auto_accept: bool,
    grounds: bool,
    unnamed_correction: bool,
    dead: list[int],
    memory: Memory,
    holder: Memory | None,
    notes: list[str],
) -> list[str]:
    """Why a candidate is not auto-accepted, as reason codes (none: it is), with the notes for
    the agent appended to ``notes``."""
    why_not: list[str] = []
    if not auto_accept:
        why_not.append("auto_accept_off")
        notes.append("auto-accept is off in this project")
    elif not grounds:
        why_not.append("unnamed_correction" if unnamed_correction else "no_verified_evidence")
        if unnamed_correction:
            notes.append(
                "the user's correction in this session does not name this memory (no word "
                "of its topic or title), so it does not ground auto-accept"
            )
        notes.append("no evidence cuecard could verify (name a repository file as evidence)")
    if dead:
        why_not.append("dead_triggers")
        notes.append(f"triggers {dead} match no file of the repository")
    if memory.check is not None:
        why_not.append("has_check")
        notes.append("memories with a check always wait for a person")
    if holder is not None:
        why_not.append("revises_live_memory")
    if not memory.not_derivable:
        why_not.append("no_not_derivable")
        notes.append("not_derivable is missing: say why the code does not tell this")
    return why_not


def _save(store: Store, memory: Memory, pending: list[Memory]) -> Memory:
    """Store ``memory``, archiving the pending candidates it replaces, in one transaction."""
    with store.transaction() as tx:
        saved = tx.put(memory)
        for old in pending:
            tx.put(
                old.model_copy(
                    update={
                        "status": Status.ARCHIVED,
                        "archived_reason": f"replaced by candidate {saved.id}",
                    }
                )
            )
    return saved


def ingest_file(root: str, path: str, *, session: str = "", agent: str = "") -> IngestResult:
    """Ingest one proposal file; never raises for a bad proposal (the result says why)."""
    store = Store.open(Path(root))
    source = agent or "agent"
    file = Path(path)
    if not file.is_absolute():
        file = store.root / file
    name = file.name
    result: IngestResult
    linked = store.dir.is_symlink() or store.inbox_dir.is_symlink()
    try:
        if linked:
            raise _Refused(
                "inbox_link",
                [".cuecard/inbox is a link: proposals are taken from the project's own inbox only"],
            )
        if file.is_symlink() or not file.is_file():
            raise _Refused("not_a_file", [f"{name} is not a regular file"])
        if file.stat().st_size > MAX_PROPOSAL_BYTES:
            raise _Refused("too_large", [f"{name} is larger than {MAX_PROPOSAL_BYTES} bytes"])
        proposal = _parse(file.read_text(encoding="utf-8", errors="replace"))
        if isinstance(proposal, RequestProposal):
            result = _request(store, proposal, source)
        else:
            result = _memory(store, proposal, session, source)
        done = "inbox-done"
    except _Refused as refusal:
        result = IngestResult("refused", reasons=refusal.reasons, codes=[refusal.code])
        done = "inbox-refused"
    except ValidationError as exc:
        reasons = [r.split(": ", 1)[-1] for r in exc.refusals]
        result = IngestResult("refused", reasons=reasons, codes=["validation"])
        done = "inbox-refused"
    except CuecardError as exc:
        result = IngestResult("refused", reasons=[str(exc)], codes=[type(exc).__name__])
        done = "inbox-refused"
    if result.outcome == "refused":
        result.reasons = [redact(reason) for reason in result.reasons]
        result.message = (
            f"cuecard refused {redact(name)}: "
            + "; ".join(result.reasons)
            + ". Fix it and write it again."
        )
    result.message = redact(result.message)
    if not linked:
        _move_out(file, store.local_dir / done, redacted=result.outcome == "refused")
    _telemetry(store, result, session, source)
    return result


def _move_out(file: Path, folder: Path, *, redacted: bool) -> None:
    """Move a proposal out of the inbox; a refused one is kept only as a redacted copy."""
    if not file.is_file() or file.is_symlink():
        return
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{int(time.time() * 1000)}-{redact(file.name)}"
    if not redacted:
        file.replace(target)
        return
    from cuecard.core._fsio import atomic_write
    from cuecard.core.engine._secrets import redact_text_copy

    text = file.read_bytes()[: MAX_PROPOSAL_BYTES + 1].decode("utf-8", "replace")
    atomic_write(target, redact_text_copy(text))
    file.unlink()
