"""The project store ``.cuecard/``: one JSON file per memory, written through one journaled,
locked transaction that the next command rolls forward after an interruption.

Layout::

    .cuecard/config.json          the opt-in and the project settings (committed)
    .cuecard/memories/<id>.json   one memory per file (committed)
    .cuecard/inbox/               proposals written by agents
    .cuecard/local/               derived and git-ignored: index, sessions, ledger, telemetry
    .cuecard/.lock .journal.json  the writer lock and the pending transaction (ignored)
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pydantic

from cuecard.core.base._confined import Tree
from cuecard.core.base._errors import (
    ConfigError,
    NotFound,
    NotOptedIn,
    StoreError,
    TopicConflict,
    ValidationError,
)
from cuecard.core.base._fsio import crash_point
from cuecard.core.engine._paths import STORE_DIR, find_root, linked_local, linked_local_problem
from cuecard.core.store._config import ProjectConfig
from cuecard.core.store._memory import LIVE, Memory, Status
from cuecard.core.store._validate import schema_messages, validate_memory, validate_memory_text

__all__ = ["STORE_DIR", "Store", "Transaction", "find_root", "memory_json"]

_GITIGNORE = (
    "# Derived and per-machine files; the rest of .cuecard/ is committed.\n"
    "local/\n.lock\n.journal.json\n.*.tmp\n"
)
_JOURNAL_PATH = re.compile(r"^(?:(?:memories|requests)/[0-9a-f-]{36}\.json|config\.json)$")
_ID = re.compile(r"^[0-9a-f-]{4,36}$")
_JOURNAL = f"{STORE_DIR}/.journal.json"

Clock = Callable[[], datetime]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _slug(root: Path) -> str:
    name = re.sub(r"[^a-z0-9_-]+", "-", root.resolve().name.lower()).strip("-")
    return name[:60] or "project"


def memory_json(memory: Memory) -> str:
    """The canonical file text of a memory."""
    return json.dumps(memory.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def _file_text(tree: Tree, rel: str) -> str:
    """The text of a memory or config file, reached through plain folders; ``OSError`` when it
    is not a regular file of at most 1 MiB (a FIFO, a device, or a link a teammate committed
    is never read)."""
    try:
        data = tree.read_bytes(rel, 1024 * 1024)
    except FileNotFoundError:
        raise
    except OSError:
        raise OSError(f"{rel.rsplit('/', 1)[-1]} is not a regular file of at most 1 MiB") from None
    return data.decode("utf-8")


_MEMORIES = f"{STORE_DIR}/memories"


class Transaction:
    """Writes collected under the store lock and committed together, or not at all."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._writes: dict[str, str | None] = {}
        self._memories: dict[str, Memory] = {}

    def put(self, memory: Memory) -> Memory:
        """Validate ``memory`` again as a whole and stage it; returns it with ``updated_at`` set."""
        raw = memory.model_dump(mode="json")
        raw["updated_at"] = self._store.now().isoformat()
        checked = validate_memory(raw)
        self._memories[checked.id] = checked
        self._writes[f"memories/{checked.id}.json"] = memory_json(checked)
        return checked

    def put_request(self, request: dict[str, Any]) -> None:
        """Stage a person-facing request (archive or revise) under ``requests/<id>.json``."""
        ident = str(uuid.UUID(str(request["id"])))
        self._writes[f"requests/{ident}.json"] = json.dumps(request, indent=2) + "\n"

    def put_config(self, config: ProjectConfig) -> None:
        """Stage a new ``config.json`` (already validated by its model)."""
        self._writes["config.json"] = json.dumps(config.model_dump(mode="json"), indent=2) + "\n"

    def get(self, memory_id: str) -> Memory:
        """A memory as this transaction will leave it."""
        return self._memories.get(memory_id) or self._store.get(memory_id)

    def _check_topics(self) -> None:
        live: dict[str, set[str]] = {}
        for raw in self._store.raw_records():
            if raw.get("status") in LIVE and raw.get("id") not in self._memories:
                live.setdefault(str(raw.get("topic")), set()).add(str(raw.get("id")))
        for memory in self._memories.values():
            if memory.live:
                live.setdefault(memory.topic, set()).add(memory.id)
        for memory in self._memories.values():
            holders = live.get(memory.topic, set()) - {memory.id}
            if memory.live and holders:
                other = sorted(holders)[0]
                raise TopicConflict(
                    f'memory {memory.id[:4]}…: topic "{memory.topic}" already has a live memory '
                    f"{other[:8]}; propose a revision of it instead: `cuecard revise "
                    f'{other[:8]} --body "…"`'
                )

    def commit(self) -> None:
        if not self._writes:
            return
        self._check_topics()
        self._store._commit(self._writes)


class Store:
    """One project's ``.cuecard/`` folder."""

    def __init__(self, root: Path, *, clock: Clock | None = None) -> None:
        self.root = root
        self.dir = root / STORE_DIR
        self.memories_dir = self.dir / "memories"
        self.inbox_dir = self.dir / "inbox"
        self.requests_dir = self.dir / "requests"
        self.local_dir = self.dir / "local"
        self.now: Clock = clock or _utcnow
        self.tree = Tree(root)
        """Every file of the store is reached through it: by descriptor, no link followed."""

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, start: Path | None = None, *, clock: Clock | None = None) -> Store:
        """Open the project that contains ``start``; raise ``NotOptedIn`` when there is none."""
        root = find_root(start)
        if root is None:
            where = (start or Path.cwd()).resolve()
            problem = linked_local_problem(str(where))
            if problem is not None:
                raise StoreError(problem)
            raise NotOptedIn(
                f"{where}: this project has not opted in to cuecard (no .cuecard/config.json "
                "and no memory in .cuecard/memories/); run `cuecard init` at its root"
            )
        store = cls(root, clock=clock)
        if store.tree.lstat(f"{STORE_DIR}/.journal.json") is not None:
            store.recover()
        return store

    @classmethod
    def init(cls, root: Path, *, clock: Clock | None = None) -> tuple[Store, bool]:
        """Opt ``root`` in; returns the store and whether anything was created."""
        store = cls(root.resolve(), clock=clock)
        if linked_local(str(store.root)):
            raise StoreError(
                f"{store.local_dir} is a symbolic link: cuecard never writes this machine's state "
                f"through a link a commit could hold; remove it (`rm {store.local_dir}`) first"
            )
        created = False
        tree = store.tree
        for folder in (_MEMORIES, f"{STORE_DIR}/inbox"):
            if not tree.is_dir(folder):
                tree.mkdirs(folder)
                created = True
        created |= tree.create(f"{STORE_DIR}/.gitignore", _GITIGNORE, atomic=True)
        config = ProjectConfig(project_id=f"{_slug(root)}-{uuid.uuid4().hex[:8]}")
        text = json.dumps(config.model_dump(mode="json"), indent=2) + "\n"
        created |= tree.create(f"{STORE_DIR}/config.json", text, atomic=True)
        store.config()
        return store, created

    # -- reading ------------------------------------------------------------------------------

    @property
    def journal(self) -> Path:
        return self.dir / ".journal.json"

    def config(self) -> ProjectConfig:
        """The validated project settings; ``ConfigError`` names the key and the rule.

        A project that opted in with its first memory file and has no ``config.json`` yet has
        the default settings, with the project folder's name as its id.
        """
        path = self.dir / "config.json"
        if self.tree.lstat(f"{STORE_DIR}/config.json") is None and self.tree.is_dir(_MEMORIES):
            return ProjectConfig(project_id=_slug(self.root))
        try:
            raw = json.loads(_file_text(self.tree, f"{STORE_DIR}/config.json"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: not readable JSON ({exc})") from None
        try:
            return ProjectConfig.model_validate(raw)
        except pydantic.ValidationError as error:
            problems = [f"{path}: {message}" for message in schema_messages(error)]
            raise ConfigError("\n".join(problems)) from None

    def _memory_names(self) -> list[str]:
        """The names of the entries of ``memories/`` ending in ``.json``, sorted (whatever their
        kind: one that is not a regular file is reported where it is read)."""
        return [n for n, _ in self.tree.entries(_MEMORIES) if n.endswith(".json")]

    def raw_records(self) -> Iterator[dict[str, Any]]:
        """Every memory file as plain JSON, skipping the unreadable (see ``problems``)."""
        for name in self._memory_names():
            with contextlib.suppress(OSError, ValueError):
                raw = json.loads(_file_text(self.tree, f"{_MEMORIES}/{name}"))
                if isinstance(raw, dict):
                    yield raw

    def load(self) -> tuple[list[Memory], list[str]]:
        """All valid memories, and one problem line per file that is not a valid memory."""
        memories: list[Memory] = []
        problems: list[str] = []
        for name in self._memory_names():
            path = self.memories_dir / name
            try:
                memory = validate_memory_text(_file_text(self.tree, f"{_MEMORIES}/{name}"))
            except (OSError, ValueError) as exc:
                reason = "; ".join(exc.refusals) if isinstance(exc, ValidationError) else str(exc)
                problems.append(f"{path.relative_to(self.root)}: {reason}")
                continue
            if path.stem != memory.id:
                problems.append(f"{path.relative_to(self.root)}: holds memory {memory.id}")
                continue
            memories.append(memory)
        return memories, problems

    def memories(self) -> list[Memory]:
        return self.load()[0]

    def resolve_id(self, ident: str) -> str:
        """The full id for ``ident`` (a whole id or a unique prefix of at least 4 characters)."""
        ident = ident.strip().lower()
        if not _ID.match(ident):
            raise NotFound(f'"{ident}" is not a memory id')
        if self.tree.is_file(f"{_MEMORIES}/{ident}.json"):
            return ident
        found = [n[: -len(".json")] for n in self._memory_names() if n.startswith(ident)]
        if len(found) == 1:
            return found[0]
        if not found:
            raise NotFound(f"no memory {ident}")
        raise NotFound(f"{ident} names {len(found)} memories; give more of the id")

    def get(self, ident: str) -> Memory:
        memory_id = self.resolve_id(ident)
        path = self.memories_dir / f"{memory_id}.json"
        try:
            return validate_memory_text(_file_text(self.tree, f"{_MEMORIES}/{memory_id}.json"))
        except OSError:
            raise NotFound(f"no memory {memory_id}") from None
        except ValueError as exc:
            raise StoreError(
                f"{path.relative_to(self.root)} is not a valid memory: {exc}"
            ) from None

    # -- writing ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Hold the store lock, roll any interrupted transaction forward, then commit on exit."""
        with self.tree.locked(f"{STORE_DIR}/.lock"):
            self._recover_locked()
            tx = Transaction(self)
            yield tx
            tx.commit()

    def add(self, memory: Memory) -> Memory:
        with self.transaction() as tx:
            return tx.put(memory)

    def accept(self, ident: str, *, reviewer: str | None = None) -> Memory:
        """Make a candidate active; a revision supersedes the memory it revises, atomically."""
        with self.transaction() as tx:
            candidate = tx.get(self.resolve_id(ident))
            if candidate.status != Status.CANDIDATE:
                raise StoreError(
                    f"memory {candidate.id[:8]} is {candidate.status}, not a candidate"
                )
            now = self.now()
            if candidate.revises:
                old = tx.get(candidate.revises)
                if old.live:
                    tx.put(
                        old.model_copy(
                            update={"status": Status.SUPERSEDED, "superseded_by": candidate.id}
                        )
                    )
            review = candidate.review.model_copy(
                update={"reviewed_by": reviewer, "reviewed_at": now}
            )
            update: dict[str, Any] = {"status": Status.ACTIVE}
            if reviewer:
                update["review"] = review
            return tx.put(candidate.model_copy(update=update))

    def _commit(self, writes: dict[str, str | None]) -> None:
        for path in writes:
            if not _JOURNAL_PATH.match(path):
                raise StoreError(f"refusing to write {path!r} outside the store's own files")
        operations = [{"path": path, "content": content} for path, content in writes.items()]
        crash_point("before-journal")
        self.tree.write(_JOURNAL, json.dumps({"version": 1, "operations": operations}))
        crash_point("after-journal")
        self._apply(operations)

    def _apply(self, operations: list[dict[str, Any]]) -> None:
        for index, op in enumerate(operations):
            rel = f"{STORE_DIR}/{op['path']}"
            if op["content"] is None:
                self.tree.remove(rel)
            else:
                self.tree.write(rel, op["content"])
            if index == 0:
                crash_point("mid-apply")
        self.tree.remove(_JOURNAL)

    def recover(self) -> bool:
        """Finish an interrupted transaction; ``True`` when there was one."""
        with self.tree.locked(f"{STORE_DIR}/.lock"):
            return self._recover_locked()

    def _recover_locked(self) -> bool:
        try:
            journal = json.loads(self.tree.read_bytes(_JOURNAL))
        except FileNotFoundError:
            return False
        except ValueError:
            # The journal is written by atomic replace, so a torn one cannot be the commit point.
            self.tree.remove(_JOURNAL)
            return False
        operations = [
            op
            for op in journal.get("operations", [])
            if isinstance(op, dict) and _JOURNAL_PATH.match(str(op.get("path", "")))
        ]
        self._apply(operations)
        return True
