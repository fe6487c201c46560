"""The harness-neutral engine: ``handle(root, event) -> Delivery``. Standard library only.

It reads the compiled index (rebuilding a stale one), matches the event, runs the checks that
apply, claims each memory in the ledger so that it arrives once per epoch and agent, and composes
the delivery within the limit. ``re2`` is imported only when a check must run.
"""

from __future__ import annotations

import os
import time

from cuecard.core.engine._delivery import Block, Delivery, compose, one_line, render_memory
from cuecard.core.engine._event import Event
from cuecard.core.engine._index import Index, source_changed
from cuecard.core.engine._ledger import HELD_DIR, Ledger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from cuecard.core.engine._budget import Budget

__all__ = ["REPORTS_PER_FILE", "deliver_held", "handle", "load_index", "matches", "stop"]

REPORTS_PER_FILE = 2


def load_index(root: str, *, rebuild: bool = False) -> Index | None:
    """The current index of the project at ``root``, rebuilt first when it is stale or missing
    (or when ``rebuild`` says a memory file changed in place)."""
    index = None if rebuild else Index.read(root)
    if index is not None and index.fresh(root):
        return index
    from cuecard.core.store._compiler import compile_project  # the engine's one way out (pyproject)

    compile_project(root)
    return Index.read(root)


def _marks(root: str, record: dict[str, Any]) -> list[str]:
    marks = []
    if record.get("status") == "contested":
        marks.append("contested: a person has not settled this memory; weigh it accordingly")
    evidence = record.get("evidence") or []
    if evidence:
        from cuecard.core.engine._evidence import file_digest
    for ref, digest in evidence:
        if file_digest(root, str(ref)) != digest:  # never a device, FIFO or link out
            marks.append(f"stale evidence: {ref} changed since this memory was recorded")
    return marks


def _memory_blocks(
    root: str,
    index: Index,
    event: Event,
    ledger: Ledger | None,
    budget: Budget,
    *,
    sources: bool = True,
) -> list[Block] | None:
    """The matched memories' blocks, by rank; ``None`` when ``sources`` and a matched memory's
    file changed since the index was compiled (no exception class: a class costs the hook
    process more to create than this check)."""
    ranked: list[tuple[int, Block]] = []
    epoch: int | None = None  # read once, at the first match (``_deliver`` reads it again)
    for match in index.match(event, budget):
        if ledger is not None:
            epoch = ledger.epoch() if epoch is None else epoch
            if ledger.claimed(match.memory, epoch):
                continue
        record = index.memory(match.memory)
        if record is None:
            continue
        if sources and source_changed(root, record):
            return None
        text = render_memory(match.memory, record, match.dimension, _marks(root, record))
        block = Block(match.memory, str(record.get("title", "")), text, match.dimension)
        ranked.append((int(record.get("rank", 9)), block))
    ranked.sort(key=lambda item: item[0])
    return [block for _, block in ranked]


def _check_block(memory_id: str, check: dict[str, Any], where: str, lines: list[str]) -> Block:
    from cuecard.core.engine._text import neutralise, redact

    shown = "\n".join(f"  {redact(neutralise(line))[:200]}" for line in lines[:3])
    more = f"\n  … and {len(lines) - 3} more" if len(lines) > 3 else ""
    text = (
        f"## check: {one_line(check.get('message', ''))}\n"
        f"(memory {one_line(memory_id[:8])}, check on {one_line(where)})\n{shown}{more}"
    )
    return Block(f"check:{memory_id}:{where}", str(check.get("title", "")), text, "check")


def _path_applies(check: dict[str, Any], path: str, budget: Budget | None = None) -> bool:
    if not check["paths"]:
        return True
    if budget is None:
        from cuecard.core.engine._wildmatch import glob_matches

        return any(glob_matches(str(g), path) for g in check["paths"])
    return any(budget.match(str(g), path) for g in check["paths"])


def _check_blocks(index: Index, event: Event, budget: Budget) -> list[Block]:
    kinds = index.meta.get("checks") or {}
    blocks: list[Block] = []
    if event.command and kinds.get("command"):
        from cuecard.core.engine._checks import violates

        checks = index.checks()
        for memory_id in kinds["command"]:
            check = checks.get(memory_id)
            if check and violates(check["if"], check["unless"], event.command):
                blocks.append(_check_block(memory_id, check, "the command", [event.command]))
    if event.after and kinds.get("edit") and event.kind in ("edit", "write"):
        from cuecard.core.engine._checks import introduced

        checks = index.checks()
        for memory_id in kinds["edit"]:
            check = checks.get(memory_id)
            if not check or event.kind not in check["on"]:
                continue
            for path, after in event.after.items():
                if _path_applies(check, path, budget):
                    lines = introduced(check["if"], check["unless"], event.before.get(path), after)
                    if lines:
                        blocks.append(_check_block(memory_id, check, path, lines))
    return blocks


def _claim(ledger: Ledger, block: Block, event: Event, epoch: int) -> bool:
    details = {"dimension": block.dimension, "kind": event.kind}
    if block.key.startswith("check:"):
        return ledger.claim_nth(_check_key(block.key), REPORTS_PER_FILE, details)
    return ledger.claim(block.key, details, epoch)


def _check_key(key: str) -> str:
    import zlib

    return f"check-{zlib.crc32(key.encode('utf-8')):08x}"


def _with_held(ledger: Ledger, blocks: list[Block]) -> tuple[list[Block], list[Block]]:
    """The held check reports still to deliver, first, then ``blocks``; and the held ones.

    A held report is dropped when ``blocks`` holds a newer report on the same check and file.
    """
    if not ledger.tree.is_dir(f"{ledger.rel}/{HELD_DIR}"):  # none held: no import
        return blocks, []
    from cuecard.core.engine._held import HeldReports

    held = HeldReports(ledger)
    pending = held.pending()
    if not pending:
        return blocks, []
    fresh = {b.key for b in blocks if b.key.startswith("check:")}
    kept = []
    for block in pending:
        if block.key in fresh:
            held.release(block)  # superseded by the newer report
        else:
            kept.append(block)
    return kept + blocks, kept


def _deliver(
    blocks: list[Block],
    limit: int,
    ledger: Ledger | None,
    event: Event,
    kind_line: str,
    held: list[Block] | None = None,
) -> Delivery:
    if ledger is None:
        return compose(blocks, limit)
    reports = None  # held check reports to release or to hold: imported only then
    if held or any(b.key.startswith("check:") for b in blocks):
        from cuecard.core.engine._held import HeldReports

        reports = HeldReports(ledger)
    epoch = ledger.epoch()
    won: list[Block] = []  # claimed by this call: kept when the delivery is composed again
    while True:
        delivery = compose(blocks, limit)
        lost = []
        for block in delivery.delivered:
            if block in won:
                continue
            if held and reports and block in held and not reports.release(block):
                lost.append(block)  # another process delivered this held report
            elif _claim(ledger, block, event, epoch):
                won.append(block)
            else:
                lost.append(block)
        if not lost:
            break
        blocks = [b for b in blocks if b not in lost]  # another process delivered these
    if reports is not None:
        reports.hold([b for b in delivery.deferred if b.key.startswith("check:")])
    if delivery.delivered or delivery.deferred:
        ledger.append(
            {
                "event": kind_line,
                "epoch": epoch,
                "delivered": len(delivery.delivered),
                "deferred": len(delivery.deferred),
                "size": delivery.size,
                "ids": [[b.key, b.dimension] for b in delivery.delivered],
            }
        )
    return delivery


def handle(
    root: str,
    event: Event,
    *,
    limit: int | None = None,
    clock: Callable[[], float] = time.time,
) -> Delivery:
    """Everything the agent should receive for ``event`` in the project at ``root``."""
    index = load_index(root)
    if index is None:
        return Delivery()
    cap = index.delivery_limit if limit is None else min(limit, index.delivery_limit)
    local = os.path.join(root, ".cuecard", "local")
    ledger = Ledger(local, event.session, event.agent, clock=clock) if event.session else None
    from cuecard.core.engine._budget import Budget

    budget = Budget()  # what matching this event may cost, whatever the memories and paths
    found = _memory_blocks(root, index, event, ledger, budget)
    if found is None:  # never deliver what a person has since rewritten: rebuild, match again
        index = load_index(root, rebuild=True)
        if index is None:
            return Delivery()
        cap = index.delivery_limit if limit is None else min(limit, index.delivery_limit)
        found = _memory_blocks(root, index, event, ledger, Budget(), sources=False) or []
    blocks = _check_blocks(index, event, budget) + found
    _note_unmatched(ledger, event, budget)
    held: list[Block] = []
    if ledger is not None:
        blocks = [b for b in blocks if not b.key.startswith("check:") or _check_open(ledger, b)]
        blocks, held = _with_held(ledger, blocks)
    return _deliver(blocks, cap, ledger, event, event.kind, held)


def _note_unmatched(ledger: Ledger | None, event: Event, budget: Budget) -> None:
    """A ledger line when matching left something out: a path longer than ``PATH_MAX``, or
    glob tests past what one event may spend (``_budget.Budget``)."""
    reason = budget.reason()
    if reason is not None and ledger is not None:
        ledger.append({"event": "unmatched", "kind": event.kind, "reason": reason})


def _check_open(ledger: Ledger, block: Block) -> bool:
    key = _check_key(block.key)
    return not all(ledger.claimed(f"{key}.{n}") for n in range(1, REPORTS_PER_FILE + 1))


def _git_head(root: str, path: str) -> str | None:
    import subprocess

    try:
        result = subprocess.run(
            ["git", "show", f"HEAD:{path}"],
            cwd=root,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None


def stop(
    root: str,
    session: str,
    changed: Iterable[tuple[str, str]],
    *,
    agent: str = "",
    limit: int | None = None,
    clock: Callable[[], float] = time.time,
    since: float | None = None,
) -> Delivery:
    """Turn checks at Stop over the final state of the files the turn changed.

    ``changed`` holds ``(path, event kind)`` pairs (a path may come with several kinds); a check
    judges only files touched by the kinds its memory's triggers name, and reports only
    violations absent from the last commit. A file changed through the shell (kind ``run``) is
    judged by the checks on ``run``: a check whose triggers name only ``edit`` or ``write``
    judges what the agent's edit and write tools changed. Given ``since`` (when the turn began,
    a Unix time), the files git shows changed and modified since then count as changed through
    the shell too, whichever program changed them (``_worktree``). Check reports held back at an
    earlier event come first.
    """
    index = load_index(root)
    if index is None:
        return Delivery()
    local = os.path.join(root, ".cuecard", "local")
    turn = (index.meta.get("checks") or {}).get("turn")
    if since is not None and turn:
        from cuecard.core.engine._worktree import changed_since, folders_of

        checks = index.checks()
        shell = [checks.get(memory_id) for memory_id in turn]
        globs = [g for c in shell if c and "run" in c["on"] for g in (c["paths"] or ["**"])]
        changed = list(changed)
        named = {path for path, _kind in changed}
        for path in changed_since(root, since, folders_of(globs)) if globs else ():
            if path not in named:  # a call named it: judged by that call's kind
                changed.append((path, "run"))
    ledger = Ledger(local, session, agent, clock=clock)
    blocks = _turn_blocks(root, index, ledger, changed)
    blocks, held = _with_held(ledger, blocks)
    if not blocks:
        return Delivery()
    cap = index.delivery_limit if limit is None else min(limit, index.delivery_limit)
    event = Event("stop", session=session, agent=agent)
    return _deliver(blocks, cap, ledger, event, "stop", held)


def _judged_text(root: str, path: str, size: int) -> str | None:
    """The first ``size`` characters of a regular file inside ``root`` (no FIFO, device or
    symbolic link out of the project), or ``None``."""
    full = os.path.join(root, path)
    try:
        real = os.path.realpath(full)
        if not os.path.isfile(real) or os.path.commonpath([os.path.realpath(root), real]) != (
            os.path.realpath(root)
        ):
            return None
        with open(real, encoding="utf-8", errors="replace") as handle:
            return handle.read(size)
    except (OSError, ValueError):
        return None


def _turn_blocks(
    root: str, index: Index, ledger: Ledger, changed: Iterable[tuple[str, str]]
) -> list[Block]:
    turn = (index.meta.get("checks") or {}).get("turn")
    if not turn:
        return []
    from cuecard.core.engine._checks import JUDGED_BYTES, introduced

    kinds: dict[str, set[str]] = {}
    for path, kind in changed:
        kinds.setdefault(path, set()).add(kind)
    checks = index.checks()
    blocks = []
    for path, touched in kinds.items():
        after = _judged_text(root, path, JUDGED_BYTES)
        if after is None:
            continue
        for memory_id in turn:
            check = checks.get(memory_id)
            if not check or not touched & set(check["on"]) or not _path_applies(check, path):
                continue
            lines = introduced(check["if"], check["unless"], _git_head(root, path), after)
            if lines:
                block = _check_block(memory_id, check, path, lines)
                if _check_open(ledger, block):
                    blocks.append(block)
    return blocks


# -- harnesses that pass hook output on only at Stop (Grok Build) ----------------------------------


def matches(root: str, event: Event) -> list[tuple[str, str]]:
    """``(memory id, dimension)`` of each memory ``event`` matches that its session and agent
    have not been given in this epoch, by rank. Nothing is claimed: for a harness that drops
    what a hook prints at this event, so that the memory can be delivered later, at Stop."""
    index = load_index(root)
    if index is None:
        return []
    local = os.path.join(root, ".cuecard", "local")
    ledger = Ledger(local, event.session, event.agent) if event.session else None
    ranked: list[tuple[int, str, str]] = []
    from cuecard.core.engine._budget import Budget

    budget = Budget()
    found = index.match(event, budget)
    _note_unmatched(ledger, event, budget)
    for match in found:
        if ledger is not None and ledger.claimed(match.memory):
            continue
        record = index.memory(match.memory)
        if record is not None:
            ranked.append((int(record.get("rank", 9)), match.memory, match.dimension))
    ranked.sort(key=lambda item: item[0])
    return [(memory, dimension) for _, memory, dimension in ranked]


def deliver_held(
    root: str,
    session: str,
    held: Iterable[tuple[str, str]],
    *,
    agent: str = "",
    limit: int | None = None,
    clock: Callable[[], float] = time.time,
) -> Delivery:
    """Deliver, in one block, memories :func:`matches` found at earlier events of this session:
    each one not claimed since, rendered from the current index (a memory no longer live is left
    out), claimed now. What does not fit stays unclaimed for the next call."""
    index = load_index(root)
    if index is None or not session:
        return Delivery()
    ledger = Ledger(os.path.join(root, ".cuecard", "local"), session, agent, clock=clock)
    blocks: list[Block] = []
    seen: set[str] = set()
    for memory, dimension in held:
        if memory in seen or ledger.claimed(memory):
            continue
        seen.add(memory)
        record = index.memory(memory)
        if record is None:
            continue
        text = render_memory(memory, record, dimension, _marks(root, record))
        blocks.append(Block(memory, str(record.get("title", "")), text, dimension))
    if not blocks:
        return Delivery()
    cap = index.delivery_limit if limit is None else min(limit, index.delivery_limit)
    event = Event("stop", session=session, agent=agent)
    return _deliver(blocks, cap, ledger, event, "held")
