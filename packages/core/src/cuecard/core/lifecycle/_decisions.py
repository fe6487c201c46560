"""A person's decisions on what waits: the one place their rules live.

The review UI, ``cuecard review`` with ``cuecard accept|reject|archive|revise``, and anything
else that lets a person decide, call these methods: a candidate is accepted under its own rules
(a revision supersedes what it revises, in the same transaction), a batch is decided whole
(each member under its own rules, a revision in it left to the person), an archive request is
carried out or dismissed, a vault conflict is adjudicated. Every change is journaled (who,
when, what; never the text) and recompiles the trigger index.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from cuecard.core.base._errors import CuecardError, NotFound, UsageError, ValidationError
from cuecard.core.store._memory import Memory, Status
from cuecard.core.store._store import Store
from cuecard.core.store._validate import validate_memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._backend import Backend

__all__ = ["JOURNAL_FILE", "TRANSITIONS", "Decision", "Decisions", "with_status"]

JOURNAL_FILE = "ui-history.jsonl"
"""The journal of a person's changes, under ``.cuecard/local/`` (the name the UI gave it)."""

TRANSITIONS: dict[str, tuple[str, ...]] = {
    "candidate": ("active", "archived"),
    "active": ("contested", "archived"),
    "contested": ("active", "archived"),
    "superseded": ("archived",),
    "archived": ("candidate",),
}
"""Status changes a person may make: accept or reject a candidate, dispute or settle, archive,
restore."""

BATCH_DECISIONS = ("accept", "reject")
REQUEST_DECISIONS = ("archive", "dismiss")


@dataclass
class Decision:
    """What a decision did: one line for a person, the details for a script, and the lines the
    vault had to say while it ran (waiting for its lock, a mirror not updated)."""

    message: str
    details: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": True, "message": self.message, **self.details}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def with_status(memory: Memory, status: str, *, reviewer: str, now: Any, note: str = "") -> Memory:
    """``memory`` moved to ``status`` by a person; ``ValidationError`` (naming the field
    ``status``) for a move the lifecycle does not offer."""
    allowed = TRANSITIONS.get(memory.status.value, ())
    if status not in allowed:
        offered = ", ".join(allowed) or "none"
        raise ValidationError(
            [f"status: {memory.status.value} cannot become {status} (offered: {offered})"]
        )
    update: dict[str, Any] = {
        "status": Status(status),
        "review": memory.review.model_copy(
            update={"reviewed_by": reviewer, "reviewed_at": now, "note": note[:1000]}
            if note
            else {"reviewed_by": reviewer, "reviewed_at": now}
        ),
    }
    if status == "archived":
        update["archived_reason"] = (note or f"archived in review by {reviewer}")[:500]
    if status == "candidate":
        update["archived_reason"] = None
    return validate_memory(memory.model_copy(update=update).model_dump(mode="json"))


class Decisions:
    """A person deciding on one project (and its vault, when one is configured)."""

    def __init__(
        self,
        store: Store,
        *,
        reviewer: str = "person",
        vault_location: str | None = None,
        notify: Callable[[str], None] | None = None,
        today: Callable[[], date] = date.today,
        forget_days: int = 90,
    ) -> None:
        self.store = store
        self.reviewer = reviewer
        self.vault_location = vault_location
        """A vault folder or a ``postgresql://`` URL; ``None`` when no vault is configured."""
        self.notify = notify
        self.today = today
        self.forget_days = forget_days

    # -- what waits -------------------------------------------------------------------------------

    def requests(self, *, resolved: bool = False) -> list[dict[str, Any]]:
        """The person-facing requests (``.cuecard/requests/*.json``), open ones unless
        ``resolved``, oldest first."""
        out: list[dict[str, Any]] = []
        tree, folder = self.store.tree, ".cuecard/requests"
        try:  # through the confined layer: a link or FIFO planted there is never read
            names = [n for n, kind in tree.entries(folder) if kind == "file"]
        except OSError:
            return out
        for name in names:
            if not name.endswith(".json"):
                continue
            with contextlib.suppress(OSError, ValueError):
                raw = json.loads(tree.read_text(f"{folder}/{name}", 1024 * 1024))
                if isinstance(raw, dict) and (resolved or not raw.get("resolved")):
                    out.append(raw)
        out.sort(key=lambda r: str(r.get("created_at", "")))
        return out

    def request(self, ident: str) -> dict[str, Any]:
        """One open request by id or unique prefix; ``NotFound`` else."""
        ident = ident.strip().lower()
        found = (
            [r for r in self.requests() if str(r.get("id", "")).startswith(ident)] if ident else []
        )
        if len(found) != 1:
            more = " (the prefix is not unique)" if len(found) > 1 else ""
            raise NotFound(f"no open request {ident[:40]}{more}")
        return found[0]

    def waiting(self, *, with_vault: bool = True) -> dict[str, Any]:
        """Everything that waits for a person, as plain data.

        Keys: ``candidates`` and ``revisions`` (candidate memories, a revision naming what it
        revises), ``contested``, ``requests`` (open archive requests), ``batches`` (each name
        with its waiting candidates and requests), ``problems`` (files that are not valid
        memories), and ``vault``: ``None`` without one, else its ``location``, ``inbox``
        (submissions not yet reviewed), ``pending`` (reviewed, waiting for promotion),
        ``conflicts`` and ``error`` (a vault that could not be read).
        """
        memories, problems = self.store.load()
        by_id = {m.id: m for m in memories}
        ordered = sorted(memories, key=lambda m: (m.created_at, m.id))
        candidates = [m for m in ordered if m.status == Status.CANDIDATE]
        requests = self.requests()
        batches: dict[str, dict[str, Any]] = {}
        for m in candidates:
            if m.batch:
                batches.setdefault(m.batch, {"name": m.batch, "candidates": [], "requests": []})
                batches[m.batch]["candidates"].append(m.id)
        for r in requests:
            name = r.get("batch")
            if isinstance(name, str) and name:
                batches.setdefault(name, {"name": name, "candidates": [], "requests": []})
                batches[name]["requests"].append(str(r.get("id")))

        def row(m: Memory) -> dict[str, Any]:
            out = {
                "id": m.id,
                "topic": m.topic,
                "kind": m.kind.value,
                "status": m.status.value,
                "title": m.title,
                "source": m.source,
                "batch": m.batch,
            }
            if m.revises:
                old = by_id.get(m.revises)
                out["revises"] = m.revises
                out["revises_title"] = old.title if old is not None else None
            return out

        def request_row(r: dict[str, Any]) -> dict[str, Any]:
            target = by_id.get(str(r.get("target", "")))
            return {
                "id": str(r.get("id", "")),
                "request": str(r.get("request", "")),
                "target": str(r.get("target", "")),
                "target_title": target.title if target is not None else None,
                "target_live": bool(target is not None and target.live),
                "reason": str(r.get("reason") or ""),
                "batch": r.get("batch"),
                "source": str(r.get("source") or ""),
            }

        return {
            "candidates": [row(m) for m in candidates if not m.revises],
            "revisions": [row(m) for m in candidates if m.revises],
            "contested": [row(m) for m in ordered if m.status == Status.CONTESTED],
            "requests": [request_row(r) for r in requests],
            "batches": sorted(batches.values(), key=lambda b: str(b["name"])),
            "problems": problems,
            "vault": self._vault_waiting() if with_vault else None,
        }

    def _vault_waiting(self) -> dict[str, Any] | None:
        if self.vault_location is None:
            return None
        try:
            with self.open_vault() as vault:
                return {
                    "location": vault.location,
                    "inbox": vault.inbox(),
                    "pending": [
                        {
                            "id": ident,
                            "fact": p.fact,
                            "note": p.note,
                            "source": p.source,
                            "replaces": p.replaces,
                        }
                        for ident, p in vault.pending()
                    ],
                    "conflicts": [c.as_json() for c in vault.conflicts()],
                    "error": "",
                }
        except Exception as exc:  # a broken vault must not hide what waits in the project
            return {
                "location": self.vault_location,
                "inbox": [],
                "pending": [],
                "conflicts": [],
                "error": str(exc),
            }

    # -- one memory -------------------------------------------------------------------------------

    def set_status(self, ident: str, status: str, *, note: str = "") -> Decision:
        """Move one memory to ``status``; accepting a candidate goes through the store's own
        acceptance (a revision supersedes what it revises in the same transaction)."""
        store = self.store
        memory = store.get(ident)
        before = memory.status.value
        if memory.status == Status.CANDIDATE and status == "active":
            saved = store.accept(memory.id, reviewer=self.reviewer)
        else:
            with store.transaction() as tx:
                current = tx.get(memory.id)
                saved = tx.put(
                    with_status(current, status, reviewer=self.reviewer, now=store.now(), note=note)
                )
        self.record(saved.id, "status", before=before, after=saved.status.value)
        said = f"memory {saved.id[:8]} is now {saved.status.value}"
        if memory.revises and saved.status == Status.ACTIVE:
            said += f"; memory {memory.revises[:8]} it revises is superseded"
        return self._done(said, id=saved.id, before=before, after=saved.status.value)

    def accept(self, ident: str) -> Decision:
        """Accept a candidate (or settle a contested memory): it goes live."""
        return self.set_status(ident, "active")

    def reject(self, ident: str, *, note: str = "") -> Decision:
        """Reject a candidate: it is archived, with the reason."""
        memory = self.store.get(ident)
        if memory.status != Status.CANDIDATE:
            raise CuecardError(
                f"memory {memory.id[:8]} is {memory.status.value}, not a candidate; "
                f"archive it with `cuecard archive {memory.id[:8]}`"
            )
        return self.set_status(memory.id, "archived", note=note or f"rejected by {self.reviewer}")

    def mark_reviewed(self, ident: str, *, note: str = "") -> Decision:
        """Record that a person reviewed a memory (one cuecard accepted on its own)."""
        store = self.store
        with store.transaction() as tx:
            memory = tx.get(store.resolve_id(ident))
            update: dict[str, Any] = {"reviewed_by": self.reviewer, "reviewed_at": store.now()}
            if note:
                update["note"] = note
            saved = tx.put(
                memory.model_copy(update={"review": memory.review.model_copy(update=update)})
            )
        self.record(saved.id, "reviewed")
        return self._done(f"memory {saved.id[:8]} marked reviewed", id=saved.id)

    def revise(self, ident: str, changes: dict[str, Any], *, reason: str = "") -> Decision:
        """Propose a revision of a live memory: a candidate with ``changes`` applied that
        replaces it once accepted."""
        store = self.store
        target = store.get(ident)
        if not target.live:
            raise CuecardError(f"memory {target.id[:8]} is {target.status.value}, not live")
        now = store.now().isoformat()
        raw = {
            **target.model_dump(mode="json"),
            **changes,
            "id": str(uuid.uuid4()),
            "status": "candidate",
            "origin": "user_explicit",
            "source": "cli",
            "revises": target.id,
            "superseded_by": None,
            "batch": None,
            "created_at": now,
            "updated_at": now,
            "review": {"note": reason[:1000]} if reason else {},
        }
        with store.transaction() as tx:
            saved = tx.put(validate_memory(raw))
        self.record(saved.id, "revise", revises=target.id, fields=sorted(changes))
        return self._done(
            f"candidate {saved.id[:8]} revises memory {target.id[:8]}",
            id=saved.id,
            revises=target.id,
        )

    # -- batches and requests ---------------------------------------------------------------------

    def decide_batch(self, name: str, decision: str) -> Decision:
        """Accept or reject a batch whole: each candidate under its own rules (a refused one is
        reported, the others go on), its archive requests carried out or dismissed; a revision
        in the batch is left to the person."""
        if not name or decision not in BATCH_DECISIONS:
            raise UsageError("give a batch name and a decision (accept or reject)")
        members = [
            m for m in self.store.memories() if m.batch == name and m.status == Status.CANDIDATE
        ]
        requests = [r for r in self.requests() if r.get("batch") == name]
        if not members and not requests:
            raise NotFound(f"batch {name!r} has nothing waiting")
        done: list[str] = []
        refused: list[dict[str, Any]] = []
        left: list[dict[str, Any]] = []
        for memory in sorted(members, key=lambda m: (m.created_at, m.id)):
            if memory.revises:
                left.append({"id": memory.id, "reason": "a revision: decide it on its own"})
                continue
            try:
                self._decide_member(memory, name, decision)
            except CuecardError as exc:
                reasons = exc.refusals if isinstance(exc, ValidationError) else [str(exc)]
                refused.append({"id": memory.id, "title": memory.title, "reasons": reasons})
                continue
            self.record(memory.id, "batch-" + decision, batch=name)
            done.append(memory.id)
        for item in requests:
            try:
                if decision == "accept":
                    self._carry_out(item)
                else:
                    self._resolve(item, "dismissed")
                done.append(str(item.get("id")))
            except CuecardError as exc:
                refused.append(
                    {"id": item.get("id"), "title": "archive request", "reasons": [str(exc)]}
                )
        verb = "accepted" if decision == "accept" else "rejected"
        said = f"batch {name}: {len(done)} {verb}, {len(refused)} refused, {len(left)} left to you"
        return self._done(said, done=done, refused=refused, left=left)

    def _decide_member(self, memory: Memory, name: str, decision: str) -> None:
        store = self.store
        if decision == "accept":
            store.accept(memory.id, reviewer=self.reviewer)
            return
        with store.transaction() as tx:
            tx.put(
                with_status(
                    tx.get(memory.id),
                    "archived",
                    reviewer=self.reviewer,
                    now=store.now(),
                    note=f"rejected with batch {name}",
                )
            )

    def decide_request(self, ident: str, decision: str) -> Decision:
        """Carry out an open archive request (``archive``) or ``dismiss`` it."""
        if decision not in REQUEST_DECISIONS:
            raise UsageError("decision must be archive or dismiss")
        item = self.request(ident)
        if decision == "archive":
            said = self._carry_out(item)
        else:
            self._resolve(item, "dismissed")
            said = "request dismissed; the memory stays as it is"
        return self._done(said, id=str(item.get("id")), decision=decision)

    def _resolve(self, item: dict[str, Any], decision: str) -> None:
        store = self.store
        with store.transaction() as tx:
            tx.put_request(
                {
                    **item,
                    "resolved": decision,
                    "resolved_by": self.reviewer,
                    "resolved_at": store.now().isoformat(),
                }
            )

    def _carry_out(self, item: dict[str, Any]) -> str:
        """Archive the request's target if it is still live, and close the request."""
        store = self.store
        target_id = str(item.get("target", ""))
        with store.transaction() as tx:
            try:
                target: Memory | None = tx.get(target_id)
            except NotFound:
                target = None
            if target is not None and target.live:
                reason = str(item.get("reason") or "archived on request")
                tx.put(
                    with_status(
                        target, "archived", reviewer=self.reviewer, now=store.now(), note=reason
                    )
                )
                said = f"memory {target.id[:8]} archived"
            else:
                said = "the target is no longer live; request closed"
            tx.put_request(
                {
                    **item,
                    "resolved": "archived",
                    "resolved_by": self.reviewer,
                    "resolved_at": store.now().isoformat(),
                }
            )
        if target is not None:
            self.record(target.id, "status", before=target.status.value, after="archived")
        return said

    # -- the vault --------------------------------------------------------------------------------

    def open_vault(self, *, heard: list[str] | None = None) -> Backend:
        """The configured vault (folder or PostgreSQL); ``NotFound`` when there is none. The
        lines it has for the user go to ``notify`` and, when given, onto ``heard``."""
        from cuecard.core.vault._factory import open_backend

        if self.vault_location is None:
            raise NotFound(
                "no vault is configured (pass --vault, set CUECARD_VAULT or config `vault`)"
            )
        outer = self.notify

        def notice(line: str) -> None:
            if heard is not None:
                heard.append(line)
            if outer is not None:
                outer(line)

        return open_backend(self.vault_location, notify=notice)

    def adjudicate(self, ident: str, decision: str) -> Decision:
        """Decide a vault conflict: use-new, keep-old, keep-both or defer."""
        heard: list[str] = []
        with self.open_vault(heard=heard) as vault:
            conflict = vault.adjudicate(ident, decision)
        return Decision(f"conflict {conflict.id}: {decision}", {"id": conflict.id}, heard)

    def review_inbox(self) -> Decision:
        """Classify the vault inbox's submissions into the pending list; queue conflicts."""
        heard: list[str] = []
        with self.open_vault(heard=heard) as vault:
            found = vault.review()
        said = (
            f"reviewed the inbox: {len(found.items)} pending, {found.queued} new conflict(s), "
            f"{found.review.duplicates} duplicate(s)"
        )
        return Decision(said, {"pending": len(found.items), "conflicts": found.queued}, heard)

    def drop_pending(self, ident: int) -> Decision:
        """Leave one pending item out of the next promotion."""
        heard: list[str] = []
        with self.open_vault(heard=heard) as vault:
            item = vault.drop_pending(ident)
        if item is None:
            raise NotFound(f"pending item {ident}: no such item (review the inbox again)")
        return Decision(f"left out of the next promotion: {item.fact[:80]}", {"id": ident}, heard)

    def apply_pending(self, *, auto: bool = False) -> Decision:
        """Promote the pending list into the canonical notes (``auto``: review the inbox
        first, in the same step)."""
        heard: list[str] = []
        with self.open_vault(heard=heard) as vault:
            done, conflicts = vault.apply(auto=auto)
        said = f"promoted {len(done.promoted)} fact(s); {len(done.archived)} inbox file(s) archived"
        if conflicts:
            said += f"; {conflicts} conflict(s) wait"
        details = {
            "promoted": len(done.promoted),
            "archived": len(done.archived),
            "conflicts": conflicts,
        }
        return Decision(said, details, heard)

    def forget(self) -> Decision:
        """Move the vault's stale, unprotected, unused facts to its forgotten folder."""
        heard: list[str] = []
        with self.open_vault(heard=heard) as vault:
            moved = vault.forget(today=self.today(), days=self.forget_days, apply=True)
            where = vault.places.forgotten
        return Decision(f"moved {len(moved)} fact(s) to {where}", {"moved": len(moved)}, heard)

    # -- the journal and the index ----------------------------------------------------------------

    def record(self, memory_id: str, action: str, **details: Any) -> None:
        """Append one line to the journal of a person's changes (who, when, what; never the
        text)."""
        line = {
            "t": round(time.time(), 3),
            "id": memory_id,
            "action": action,
            "by": self.reviewer,
            **details,
        }
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
        self.store.tree.append(f".cuecard/local/{JOURNAL_FILE}", data)

    def recompile(self) -> dict[str, Any]:
        """Rebuild the trigger index after a change; what the compile reported."""
        from cuecard.core.store._compiler import compile_index

        report = compile_index(self.store)
        return {
            "memories": report.memories,
            "clauses": report.clauses,
            "left_out": report.left_out,
            "problems": report.problems,
        }

    def _done(self, message: str, **details: Any) -> Decision:
        return Decision(message, {**details, "compile": self.recompile()})
