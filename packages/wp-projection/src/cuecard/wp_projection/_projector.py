"""Applies changes to the managed folder, as the manifest allows.

Per record: sequence ordering, idempotence (same hash: no write, no mtime change), tombstones,
local edits preserved (the incoming version goes beside as ``<name>.incoming``), files the
manifest does not own never replaced. One writer per root holds the lock for a batch.
"""

from __future__ import annotations

import errno
import hashlib
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from cuecard.core import find_secret
from cuecard.wp_projection._change import ApplyResult, Change, Outcome
from cuecard.wp_projection._errors import PathRefused
from cuecard.wp_projection._manifest import MANIFEST_NAME, Manifest, Preserved, Record, SiteState
from cuecard.wp_projection._paths import INCOMING_SUFFIX, PRIVATE_LAYERS, collision_key
from cuecard.wp_projection._safefs import SafeRoot

__all__ = ["Projector"]


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()  # noqa: S324 - Data Machine's own content hash


def _now() -> datetime:
    return datetime.now(UTC)


class _Plan:
    """A batch's file operations, decided in order, executed together.

    Reads see the batch's own pending writes; ``execute`` runs the final operation of each path
    in a thread pool (every file fsync'd), then fsyncs each touched directory once.
    """

    def __init__(self, root: SafeRoot) -> None:
        self.root = root
        self.ops: dict[str, tuple[bytes | None, bool]] = {}

    def read(self, path: str) -> bytes | None:
        if path in self.ops:
            return self.ops[path][0]
        return self.root.read(path)

    def write(self, path: str, data: bytes, *, private: bool) -> None:
        self.ops[path] = (data, private)

    def unlink(self, path: str) -> None:
        self.ops[path] = (None, False)

    def _run(self, path: str) -> str:
        data, private = self.ops[path]
        if data is None:
            self.root.unlink(path, sync_dir=False)
        else:
            self.root.write(path, data, private=private, sync_dir=False)
        return path.rsplit("/", 1)[0] if "/" in path else ""

    def execute(self, pool: ThreadPoolExecutor) -> dict[str, Exception]:
        """Run the batch's operations; what failed, by path (a ``PathRefused`` is final, any
        other error is worth another attempt). One path's failure never stops another's."""
        failures: dict[str, Exception] = {}
        dirs: set[str] = set()
        paths = list(self.ops)
        futures = {path: pool.submit(self._run, path) for path in paths}
        for path, future in futures.items():
            try:
                dirs.add(future.result())
            except Exception as exc:
                failures[path] = exc
        for rel_dir in sorted(dirs):
            try:
                self.root.sync_dir(rel_dir)
            except Exception as exc:  # the files in it are not known durable: try them again
                for path in paths:
                    if path.rsplit("/", 1)[0] == rel_dir and path not in failures:
                        failures[path] = exc
        return failures


class Projector:
    """The single writer of one runtime root's managed folder."""

    def __init__(
        self,
        root: SafeRoot,
        *,
        clock: Callable[[], datetime] = _now,
        on_change: Callable[[SafeRoot, Manifest], None] | None = None,
        io_threads: int = 8,
    ) -> None:
        self.root = root
        self.clock = clock
        self.on_change = on_change
        self._io_threads = io_threads
        self._pool: ThreadPoolExecutor | None = None
        self._cached: tuple[bytes, Manifest] | None = None
        self._texts: dict[str, tuple[Record, str]] = {}

    # -- manifest ------------------------------------------------------------------------------

    def load(self) -> Manifest:
        """The manifest on disk (parsed again only when it changed). Do not mutate it."""
        raw = self.root.read(MANIFEST_NAME)
        if raw is None:
            return Manifest()
        cached = self._cached
        if cached is not None and cached[0] == raw:
            return cached[1]
        manifest = Manifest.loads(raw, where=str(self.root.managed_path / MANIFEST_NAME))
        self._cached = (raw, manifest)
        self._texts = {}
        return manifest

    @property
    def snapshot(self) -> Manifest | None:
        """The manifest this process last loaded or saved (never mutated afterwards)."""
        return None if self._cached is None else self._cached[1]

    def save(self, manifest: Manifest) -> None:
        raw = manifest.dumps(self._texts)
        self.root.write(MANIFEST_NAME, raw)
        self._cached = (raw, manifest)

    # -- applying ------------------------------------------------------------------------------

    def apply(self, changes: Iterable[Change]) -> ApplyResult:
        """Apply a batch in order under the root lock.

        Files are durable (fsync'd, directories too) before the manifest is saved, and the
        manifest is saved once, at the end of the batch.
        """
        with self.root.lock():
            manifest = self.load().copy()
            before = manifest.live_paths()
            plan = _Plan(self.root)
            index = {collision_key(p): p for p, r in manifest.records.items() if not r.deleted}
            prior: dict[str, tuple[Record | None, Preserved | None]] = {}
            folders: dict[tuple[str, int], set[str]] | None = None
            result = ApplyResult()
            for change in changes:
                self._note_site(manifest, change, result)
                folders = self._note_moved_agent(manifest, change, result, folders)
                if change.path is not None and change.path not in prior:
                    prior[change.path] = (
                        manifest.records.get(change.path),
                        manifest.preserved.get(change.path),
                    )
                undo = _Undo(manifest, plan, change.path)
                try:
                    outcome = self._apply_one(manifest, plan, index, change)
                except PathRefused as exc:
                    undo.restore()
                    outcome = Outcome(change.path, "refused", str(exc))
                except Exception as exc:  # one event's failure is its own: the batch goes on
                    undo.restore()
                    outcome = Outcome(change.path, "failed", _reason(exc))
                result.outcomes.append(outcome)
            failures = plan.execute(self._executor()) if plan.ops else {}
            for i, outcome in enumerate(result.outcomes):
                failed = outcome.path is not None and (
                    failures.get(outcome.path) or failures.get(outcome.path + INCOMING_SUFFIX)
                )
                if failed and outcome.path is not None:
                    record, kept = prior[outcome.path]
                    _restore(manifest.records, outcome.path, record)
                    _restore(manifest.preserved, outcome.path, kept)
                    final = isinstance(failed, PathRefused)
                    action = "refused" if final else "failed"
                    result.outcomes[i] = Outcome(outcome.path, action, _reason(failed))
                if result.outcomes[i].action == "refused":
                    manifest.note_refused(
                        {
                            "path": outcome.path,
                            "reason": result.outcomes[i].detail,
                            "at": self._stamp(),
                        }
                    )
            if self.on_change is not None and manifest.live_paths() != before:
                try:
                    self.on_change(self.root, manifest)
                except Exception as exc:  # the files stand; the wiring is retried next change
                    manifest.note_refused(
                        {"path": None, "reason": f"wiring: {_reason(exc)}", "at": self._stamp()}
                    )
            self.save(manifest)
            return result

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._io_threads, thread_name_prefix="cuecard-wp-io")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def mark_synced(
        self,
        site: str,
        home_url: str,
        *,
        bridge: dict[str, Any] | None = None,
        stale_agents: list[dict[str, Any]] | None = None,
        prune: Iterable[str] = (),
    ) -> None:
        """Note a finished pull (with what it learnt of the WordPress side), and remove the
        folders ``prune`` names under the site's folder where they are left empty."""
        with self.root.lock():
            manifest = self.load().copy()
            state = manifest.sites.setdefault(site, SiteState(home_url=home_url))
            state.last_sync_at = self._stamp()
            state.reconcile_needed = False
            state.reconcile_reason = None
            if bridge is not None:
                state.bridge = bridge
            if stale_agents is not None:
                state.stale_agents = stale_agents
            self.save(manifest)
            for folder in prune:
                self.root.prune(f"{site}/{folder}")

    def request_reconcile(self, site: str, home_url: str, reason: str) -> None:
        with self.root.lock():
            manifest = self.load().copy()
            state = manifest.sites.setdefault(site, SiteState(home_url=home_url))
            state.reconcile_needed = True
            state.reconcile_reason = reason
            self.save(manifest)

    def _stamp(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    def _note_site(self, manifest: Manifest, change: Change, result: ApplyResult) -> None:
        if change.source != "push" or change.seq is None:
            return
        state = manifest.sites.setdefault(change.site, SiteState(home_url=change.home_url))
        state.last_event_at = self._stamp()
        reason = None
        if state.last_seq is None:
            reason = "first event from this site"
        elif change.seq > state.last_seq + 1:
            reason = f"sequence gap: {state.last_seq} then {change.seq}"
        elif change.reason:
            reason = change.reason
        if reason is not None:
            state.reconcile_needed = True
            state.reconcile_reason = reason
            result.reconcile[change.site] = reason
        state.last_seq = max(state.last_seq or 0, change.seq)

    def _note_moved_agent(
        self,
        manifest: Manifest,
        change: Change,
        result: ApplyResult,
        folders: dict[tuple[str, int], set[str]] | None,
    ) -> dict[tuple[str, int], set[str]] | None:
        """An event that files agent N under another folder than the projection holds for N:
        Data Machine renamed it (no event says so). The site is marked for reconcile, which
        removes the old folder; ``folders`` is the batch's map (site, agent id) -> folders."""
        if change.source != "push" or change.agent_dir is None or change.agent_id <= 0:
            return folders
        if folders is None:
            folders = {}
            for path, rec in manifest.records.items():
                parts = path.split("/")
                if not rec.deleted and rec.agent_id > 0 and len(parts) > 3 and parts[1] == "agents":
                    folders.setdefault((rec.site, rec.agent_id), set()).add(parts[2])
        held = folders.setdefault((change.site, change.agent_id), set())
        moved = sorted(held - {change.agent_dir})
        held.add(change.agent_dir)
        if moved:
            reason = (
                f"agent {change.agent_id} is now in agents/{change.agent_dir}, the projection "
                f"also holds agents/{', agents/'.join(moved)} (renamed in Data Machine?)"
            )
            state = manifest.sites.setdefault(change.site, SiteState(home_url=change.home_url))
            state.reconcile_needed = True
            state.reconcile_reason = reason
            result.reconcile[change.site] = reason
            held.difference_update(moved)
        return folders

    def _apply_one(
        self, manifest: Manifest, plan: _Plan, index: dict[str, str], change: Change
    ) -> Outcome:
        if change.kind == "hint" or change.path is None:
            return Outcome(change.path, "hint", change.reason or "")
        record = manifest.records.get(change.path)
        if (
            change.seq is not None
            and record is not None
            and record.seq is not None
            and change.seq <= record.seq
        ):
            return Outcome(change.path, "stale", f"seq {change.seq} <= {record.seq}")
        if change.kind == "delete":
            return self._delete(manifest, plan, change, record)
        key = collision_key(change.path)
        other = index.get(key)
        if other is not None and other != change.path:
            return Outcome(
                change.path,
                "refused",
                f"{change.path}: collides with {other} ignoring case (rule 11)",
            )
        outcome = self._update(manifest, plan, change, record)
        index[key] = change.path
        return outcome

    def _record(self, change: Change, digest: str | None, size: int, deleted: bool) -> Record:
        return Record(
            site=change.site,
            layer=change.layer,
            user_id=change.user_id,
            agent_id=change.agent_id,
            agent_slug=change.agent_slug,
            agent_dir=change.agent_dir,
            filename=change.filename,
            hash=digest,
            bytes=size,
            seq=change.seq,
            projected_at=self._stamp(),
            source=change.source,
            deleted=deleted,
        )

    def _keep_seq(self, change: Change, record: Record | None) -> Change:
        """A pull carries no sequence: keep the record's last one."""
        if change.seq is None and record is not None and record.seq is not None:
            return replace(change, seq=record.seq)
        return change

    def _update(
        self, manifest: Manifest, plan: _Plan, change: Change, record: Record | None
    ) -> Outcome:
        assert change.path is not None and change.content is not None
        path, content = change.path, change.content
        digest = _sha1(content)
        secret = find_secret(content.decode("utf-8", errors="replace"))
        if secret is not None:
            return Outcome(path, "refused", f"{path}: content holds a credential ({secret})")
        change = self._keep_seq(change, record)
        private = change.layer in PRIVATE_LAYERS
        current = plan.read(path)
        owned = record is not None and not record.deleted and record.hash is not None
        if current is None:
            plan.write(path, content, private=private)
            manifest.preserved.pop(path, None)
            manifest.records[path] = self._record(change, digest, len(content), False)
            return Outcome(path, "written")
        local = _sha1(current)
        if local == digest:
            adopted = not owned or (record is not None and record.hash != digest)
            manifest.preserved.pop(path, None)
            manifest.records[path] = self._record(change, digest, len(content), False)
            return Outcome(path, "adopted" if adopted else "unchanged")
        if owned and record is not None and local == record.hash:
            plan.write(path, content, private=private)
            manifest.records[path] = self._record(change, digest, len(content), False)
            return Outcome(path, "written")
        # A local edit of an owned file, or a file the projection never owned: keep it.
        incoming = path + INCOMING_SUFFIX
        plan.write(incoming, content, private=private)
        reason = "local edit" if owned else "file not owned by the projection"
        manifest.preserved[path] = Preserved(
            incoming=incoming, reason=reason, hash=digest, seq=change.seq, at=self._stamp()
        )
        if record is not None:
            manifest.records[path] = replace(record, seq=change.seq)
        else:
            manifest.records[path] = self._record(change, None, 0, True)
        return Outcome(path, "preserved", f"{reason}; incoming version in {incoming}")

    def _delete(
        self, manifest: Manifest, plan: _Plan, change: Change, record: Record | None
    ) -> Outcome:
        assert change.path is not None
        path = change.path
        change = self._keep_seq(change, record)
        current = plan.read(path)
        owned = record is not None and not record.deleted and record.hash is not None
        tombstone = self._record(change, None, 0, True)
        if current is None or not owned:
            manifest.records[path] = tombstone
            return Outcome(path, "tombstone", "" if current is None else "file not owned; kept")
        assert record is not None
        if _sha1(current) != record.hash:
            manifest.preserved[path] = Preserved(
                incoming=None,
                reason="deleted upstream after a local edit",
                hash=None,
                seq=change.seq,
                at=self._stamp(),
            )
            manifest.records[path] = tombstone
            return Outcome(path, "preserved", "deleted upstream; the local edit is kept")
        plan.unlink(path)
        manifest.records[path] = tombstone
        return Outcome(path, "deleted")


class _Undo:
    """What one change may touch (its record, its preserved entry, its planned operations), kept
    so that a change that fails half-way leaves the batch as it found it."""

    def __init__(self, manifest: Manifest, plan: _Plan, path: str | None) -> None:
        self.manifest, self.plan, self.path = manifest, plan, path
        self.keys = [] if path is None else [path, path + INCOMING_SUFFIX]
        self.record = None if path is None else manifest.records.get(path)
        self.kept = None if path is None else manifest.preserved.get(path)
        self.ops = {k: plan.ops.get(k) for k in self.keys}

    def restore(self) -> None:
        if self.path is None:
            return
        _restore(self.manifest.records, self.path, self.record)
        _restore(self.manifest.preserved, self.path, self.kept)
        for key, op in self.ops.items():
            _restore(self.plan.ops, key, op)


def _reason(exc: Exception) -> str:
    """An error as one line for status: the message, and for an OS error its name."""
    if isinstance(exc, OSError) and not isinstance(exc, PathRefused) and exc.errno is not None:
        name = errno.errorcode.get(exc.errno, str(exc.errno))
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{name}: {exc.strerror or exc}{where}"
    return str(exc) or type(exc).__name__


def _restore(mapping: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        mapping.pop(key, None)
    else:
        mapping[key] = value
