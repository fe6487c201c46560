"""Ingestion: turn an inbox proposal into a candidate (or an active memory), or refuse it.

``ingest_file`` validates the proposal as the store validates, verifies the evidence it can (it
hashes repository files), suggests triggers from the session when none are given, refuses generic
advice and duplicates of a live memory, replaces a pending candidate on the same topic (archiving
it), applies auto-accept, and answers with a message for the agent. The inbox file is moved out of
the inbox afterwards (to ``.cuecard/local/inbox-done/`` or ``inbox-refused/``); nothing is deleted.
Each ingestion appends one telemetry line (outcome and reason codes, never content). Reading a
proposal is ``_proposal_reader``'s, checking its evidence ``_proposal_evidence``'s, telling
generic advice ``_advice``'s.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._errors import CuecardError, NotFound, ValidationError
from cuecard.core.engine._text import redact
from cuecard.core.lifecycle._advice import generic_reason
from cuecard.core.lifecycle._grounds import suggest_triggers
from cuecard.core.lifecycle._proposal_evidence import checked_evidence, dead_clauses
from cuecard.core.lifecycle._similarity import DUPLICATE_AT, SimilarityIndex
from cuecard.core.store._memory import Memory, Status
from cuecard.core.store._proposal import MemoryProposal, RequestProposal
from cuecard.core.store._proposal_reader import Refused, parse_proposal
from cuecard.core.store._store import Store
from cuecard.core.store._validate import validate_memory

__all__ = ["MAX_PROPOSAL_BYTES", "IngestResult", "generic_reason", "ingest_file"]

MAX_PROPOSAL_BYTES = 64 * 1024


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


def _telemetry(store: Store, result: IngestResult, session: str, source: str) -> None:
    line = {
        "t": round(time.time(), 3),
        "outcome": result.outcome,
        "reasons": result.codes,
        "session": session,
        "source": source,
        "memory": result.memory_id,
    }
    try:  # through the layer: a link, FIFO or file planted on the way loses the line only
        store.tree.append(
            ".cuecard/local/telemetry/inbox.jsonl", (json.dumps(line) + "\n").encode()
        )
    except OSError:
        return


def _request(store: Store, proposal: RequestProposal, source: str) -> IngestResult:
    try:
        target = store.get(proposal.target)
    except NotFound as exc:
        raise Refused("unknown_target", [str(exc)]) from None
    if not target.live:
        raise Refused("target_not_live", [f"memory {target.id[:8]} is {target.status}, not live"])
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
    evidence, verified_file, unnamed_correction = checked_evidence(root, proposal, session, notes)
    corrected = any(e.get("kind") == "correction" and e.get("verified") for e in evidence)
    triggers, suggested = _proposed_triggers(root, proposal, session)
    narrow = any(t.get("paths") or t.get("commands") or t.get("symbols") for t in triggers)
    generic = generic_reason(proposal.title, proposal.body, narrow and not suggested)
    if generic is not None:
        raise Refused("generic", [f"the memory {generic}"])
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
    dead = dead_clauses(root, memory)
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
        raise Refused(
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
            raise Refused(
                "inbox_link",
                [".cuecard/inbox is a link: proposals are taken from the project's own inbox only"],
            )
        proposal = parse_proposal(_proposal_bytes(store, file))
        if isinstance(proposal, RequestProposal):
            result = _request(store, proposal, source)
        else:
            result = _memory(store, proposal, session, source)
        done = "inbox-done"
    except Refused as refusal:
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
        _move_out(store, file, done, redacted=result.outcome == "refused")
    _telemetry(store, result, session, source)
    return result


def _proposal_bytes(store: Store, file: Path) -> bytes:
    """The bytes of the proposal ``file``: through the project's tree when it lies in the
    project (no link followed at any depth), else as the person named it (never a link, FIFO,
    socket or device). ``Refused`` when it is not a regular file or is too large."""
    from cuecard.core.base._confined import UnsafePath
    from cuecard.core.engine._evidence import read_regular

    name = file.name
    too_large = Refused("too_large", [f"{name} is larger than {MAX_PROPOSAL_BYTES} bytes"])
    not_a_file = Refused("not_a_file", [f"{name} is not a regular file"])
    try:
        rel = file.relative_to(store.root).as_posix()
    except ValueError:
        data = read_regular(str(file), MAX_PROPOSAL_BYTES)
        if data is not None:
            return data
        try:
            large = os.stat(file, follow_symlinks=False).st_size > MAX_PROPOSAL_BYTES
        except OSError:
            large = False
        raise too_large if large else not_a_file from None
    try:
        return store.tree.read_bytes(rel, MAX_PROPOSAL_BYTES)
    except UnsafePath as exc:
        raise too_large if exc.reason.startswith("holds more than") else not_a_file from None
    except OSError:
        raise not_a_file from None


def _move_out(store: Store, file: Path, done: str, *, redacted: bool) -> None:
    """Move a proposal out of the inbox into ``.cuecard/local/<done>/``; a refused one is kept
    only as a redacted copy. Both ends go through the confined layer (no link followed); a file
    outside the project is left where it is."""
    from cuecard.core.engine._secrets import redact_text_copy

    try:
        rel = file.relative_to(store.root).as_posix()
    except ValueError:
        return
    tree = store.tree
    target = f".cuecard/local/{done}/{int(time.time() * 1000)}-{redact(file.name)}"
    try:
        data = tree.read_bytes(rel, MAX_PROPOSAL_BYTES + 1, whole=False)
        if redacted:
            try:
                data = redact_text_copy(data.decode("utf-8", "replace")).encode("utf-8")
            except UnicodeError:  # escapes of lone surrogates: what cannot be checked is not kept
                data = b"the proposal held a lone surrogate; its text is not kept\n"
        tree.write(target, data)
        tree.remove(rel)
    except (OSError, ValueError):
        return  # a link, FIFO or odd name on the way: the proposal stays where it is
