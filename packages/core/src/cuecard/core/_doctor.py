"""``diagnose(start)``: whether cuecard is working in a project, as problems and notes.

Read-only: it never creates a file, not even in a project that opted in (it does not roll an
interrupted transaction forward, it only says one is pending). Harness hooks are found by reading
the files the installers write (``cuecard install``), without importing the hooks package.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HOOK_FILES", "KEYS", "diagnose", "installed_hooks"]

STALE_MAINTENANCE = 7 * 24 * 3600
MIN_PYTHON = (3, 11)
HOOK_MARK = "cuecard-hook"

# harness -> (project files, files under the home folder) the installers write.
HOOK_FILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "claude": (
        (".claude/settings.json", ".claude/settings.local.json"),
        (".claude/settings.json",),
    ),
    "codex": ((".codex/hooks.json",), (".codex/hooks.json",)),
    "opencode": ((".opencode/plugins/cuecard.js",), (".config/opencode/plugins/cuecard.js",)),
    "grok": ((".grok/hooks/cuecard.json",), (".grok/hooks/cuecard.json",)),
}

KEYS: dict[str, str] = {
    "ok": "true when there is no problem",
    "opted_in": "whether the project opted in (.cuecard/config.json, or a first memory file)",
    "root": "the project root, or null",
    "python": "the Python version running cuecard",
    "hooks": "[{harness, scope, file}] harness configurations that run cuecard-hook",
    "counts": (
        "what needs a person: candidates, conflicts (contested), dead_triggers, dead_commands, "
        "stale_evidence, "
        "migrated (waiting for not_derivable), requests, inbox; and sessions recorded"
    ),
    "last_maintenance": "when maintenance last ran (ISO 8601, UTC), or null",
    "limits": (
        "{delivery_limit, harnesses: [{harness, inline_limit, effective, capped}]}: the most "
        "characters of knowledge each installed harness's hook delivers at one event (capped: "
        "the harness keeps less inline than delivery_limit); null when not opted in"
    ),
    "problems": "[{check, message, hint}] what stops cuecard from working (exit 1)",
    "notes": "[{check, message, hint}] what is worth knowing or needs a person",
    "dsh": (
        "the DeepSeek Harness set-up once `cuecard dsh install` ran, else null: interpreter, "
        "runs_cuecard, profiles, hooks, vault, last_failure"
    ),
}


def _dead_command_count(live: list[Any]) -> int:
    """Command patterns of live memories that can never fire (see ``_health.dead_commands``)."""
    from cuecard.core._health import dead_commands

    return sum(len(dead_commands(m)) for m in live)


@dataclass
class _Findings:
    problems: list[dict[str, str]]
    notes: list[dict[str, str]]

    def problem(self, check: str, message: str, hint: str) -> None:
        self.problems.append({"check": check, "message": message, "hint": hint})

    def note(self, check: str, message: str, hint: str = "") -> None:
        self.notes.append({"check": check, "message": message, "hint": hint})


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def installed_hooks(
    root: Path | None, home: Path | None
) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    """Harness files that run ``cuecard-hook``, and ``(file, reason)`` for unreadable ones."""
    found: list[dict[str, str]] = []
    broken: list[tuple[str, str]] = []
    for harness, (project_files, home_files) in HOOK_FILES.items():
        places = [("project", root, f) for f in project_files] if root else []
        places += [("user", home, f) for f in home_files] if home else []
        for scope, base, rel in places:
            assert base is not None
            path = base / rel
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                broken.append((str(path), f"cannot be read ({exc.strerror})"))
                continue
            if path.suffix == ".json":
                try:
                    data = json.loads(text)
                except ValueError as exc:
                    broken.append((str(path), f"is not valid JSON ({exc})"))
                    continue
                hooks = data.get("hooks", data) if isinstance(data, dict) else data
                hit = any(HOOK_MARK in s for s in _strings(hooks))
            else:
                hit = HOOK_MARK in text or "__CUECARD_HOOK__" in text
            if hit:
                found.append({"harness": harness, "scope": scope, "file": str(path)})
    return found, broken


def _iso(t: float | None) -> str | None:
    from datetime import UTC, datetime

    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat()


def _store_checks(
    root: Path, out: _Findings, counts: dict[str, int], clock: Callable[[], float]
) -> float | None:
    from cuecard.core._errors import ConfigError
    from cuecard.core._health import stale_refs
    from cuecard.core._memory import LIVE, Status
    from cuecard.core._repofiles import GlobSet, repository_files
    from cuecard.core._store import Store
    from cuecard.core._telemetry import read_history
    from cuecard.core.engine._index import Index
    from cuecard.core.engine._schedule import last_run

    store = Store(root)
    try:
        store.config()
    except ConfigError as exc:
        out.problem("config", str(exc), "fix .cuecard/config.json: the message names the key")
    if store.journal.exists():
        out.note(
            "store",
            "an interrupted transaction is pending",
            "the next cuecard command rolls it forward",
        )
    memories, unreadable = store.load()
    for line in unreadable:
        out.problem("memories", line, "fix the file by hand, or archive it in the review UI")
    live = [m for m in memories if m.live]
    index = Index.read(str(root))
    if index is None and live:
        out.problem(
            "index",
            f"no compiled index for {len(live)} live memories",
            "run `cuecard compile` and read what it reports",
        )
    elif index is not None and not index.fresh(str(root)):
        out.note(
            "index",
            "the compiled index is older than the memories or the config",
            "hooks rebuild it at the next event; `cuecard compile` does it now",
        )
    elif index is not None:
        compiled = index.meta.get("compiled_at")
        out.note("index", f"compiled index is fresh (compiled {_iso(compiled)})")
        for item in index.meta.get("left_out") or []:
            out.note(
                "index",
                f"check of memory {str(item.get('id', ''))[:8]} left out: {item.get('reason')}",
                "fix the check's pattern or its examples",
            )
    history = read_history(store.local_dir)
    counts["sessions"] = len(history.sessions)
    files = repository_files(root) if live else []
    by_status = Counter(m.status for m in memories)
    counts["candidates"] = by_status[Status.CANDIDATE]
    counts["conflicts"] = by_status[Status.CONTESTED]
    counts["dead_triggers"] = sum(
        1 for m in live for c in m.triggers if c.paths and not GlobSet(c.paths).any_in(files)
    )
    counts["dead_commands"] = _dead_command_count(live)
    counts["stale_evidence"] = sum(len(stale_refs(root, m)) for m in live)
    waiting = {*LIVE, Status.CANDIDATE}
    counts["migrated"] = sum(
        1 for m in memories if m.review.migrated and not m.not_derivable and m.status in waiting
    )
    counts["requests"] = (
        sum(1 for path in store.requests_dir.glob("*.json") if not _resolved(path))
        if store.requests_dir.is_dir()
        else 0
    )
    counts["inbox"] = len(list(store.inbox_dir.glob("*.json"))) if store.inbox_dir.is_dir() else 0
    hints = {
        "candidates": ("candidates wait for review", "`cuecard ui` (review queue)"),
        "conflicts": ("memories are contested", "`cuecard ui` (settle each one)"),
        "dead_triggers": ("trigger clauses match no file", "`cuecard health` names them"),
        "dead_commands": (
            "command triggers can never fire",
            "`cuecard health` names them and says why; `cuecard add --help` has the syntax",
        ),
        "stale_evidence": ("evidence files changed", "`cuecard health` names them"),
        "migrated": ("migrated memories wait for not_derivable", "`cuecard ui`"),
        "requests": ("agent requests wait for a person", "`cuecard ui`"),
        "inbox": ("proposals wait in .cuecard/inbox/", "`cuecard ingest` or a hook ingests them"),
    }
    for key, (what, hint) in hints.items():
        if counts[key]:
            out.note(key, f"{counts[key]} {what}", hint)
    if not counts["sessions"]:
        out.note("sessions", "no session recorded yet", "start a session in a harness with hooks")
    ran = last_run(str(root))
    if ran is None:
        out.note(
            "maintenance",
            "maintenance never ran",
            "it runs at session start once a day; `cuecard maintain` runs it now",
        )
    elif clock() - ran > STALE_MAINTENANCE and counts["sessions"]:
        out.note(
            "maintenance",
            f"maintenance last ran {_iso(ran)}, more than a week ago",
            "`cuecard maintain`",
        )
    return ran


def diagnose(
    start: Path | None = None,
    *,
    home: Path | None = None,
    clock: Callable[[], float] = time.time,
    python: tuple[int, int, int] | None = None,
) -> dict[str, Any]:
    """The doctor's report (see ``KEYS``) for the project containing ``start``."""
    from cuecard.core.engine._paths import find_root

    out = _Findings([], [])
    version = python or (sys.version_info[0], sys.version_info[1], sys.version_info[2])
    text = ".".join(str(v) for v in version)
    if version[:2] < MIN_PYTHON:
        out.problem(
            "python",
            f"Python {text} is older than {MIN_PYTHON[0]}.{MIN_PYTHON[1]}",
            "install cuecard under Python 3.11 or newer",
        )
    root = find_root(start)
    counts: dict[str, int] = {}
    ran: float | None = None
    if root is None:
        where = (start or Path.cwd()).resolve()
        _opt_in_problem(where, out)
    else:
        ran = _store_checks(root, out, counts, clock)
        _nested_findings(root, out)
    hooks, broken = installed_hooks(root, home)
    for file, reason in broken:
        out.problem("hooks", f"{file} {reason}", "fix the file; the harness may ignore it")
    _hook_findings(hooks, root, home, out)
    if root is not None and not hooks:
        out.problem(
            "hooks",
            "no harness runs cuecard's hooks for this project",
            "`cuecard install claude` (or codex, opencode, grok); a Claude Code plugin install "
            "is not visible here",
        )
    elif hooks and root is not None and not counts.get("sessions"):
        names = ", ".join(sorted({h["harness"] for h in hooks}))
        out.note(
            "hooks",
            f"hooks are installed for {names} but no session was recorded",
            "restart the harness; Codex and Grok need their hooks trusted",
        )
    limits = _limits(root, hooks, out) if root is not None else None
    dsh = _dsh(home, out)
    return {
        "ok": not out.problems,
        "opted_in": root is not None,
        "root": str(root) if root is not None else None,
        "python": text,
        "hooks": hooks,
        "counts": counts,
        "last_maintenance": _iso(ran),
        "limits": limits,
        "problems": out.problems,
        "notes": out.notes,
        "dsh": dsh,
    }


def _opt_in_problem(where: Path, out: _Findings) -> None:
    """Why no project was found at ``where``: a linked ``.cuecard/local``, or no opt-in."""
    from cuecard.core.engine._paths import linked_local_problem

    linked = linked_local_problem(str(where))
    if linked is not None:
        out.problem("opt_in", linked, "doctor created nothing and wrote nothing through the link")
        return
    out.problem(
        "opt_in",
        f"{where}: this project has not opted in to cuecard (no .cuecard/config.json and no "
        "memory in .cuecard/memories/)",
        "run `cuecard init` at the project root; doctor created nothing",
    )


def _dsh(home: Path | None, out: _Findings) -> dict[str, Any] | None:
    """The DSH set-up (``_doctor_dsh``), its findings added to ``out``."""
    from cuecard.core._doctor_dsh import dsh_setup

    return dsh_setup(home or Path.home(), out.problem, out.note)


MAX_WALKED = 20_000
"""Most folders the search for nested projects visits."""
_NOT_WALKED = frozenset({"node_modules", "__pycache__", "vendor", "target", "dist", "build"})


def nested_stores(root: Path) -> list[str]:
    """Folders under ``root`` that opted in on their own (repository-relative): commands run in
    them use their store, not the project's. Hidden folders and dependency folders are skipped."""
    import os

    from cuecard.core.engine._paths import opted_in

    found: list[str] = []
    for walked, (folder, dirs, _files) in enumerate(os.walk(root), 1):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_WALKED)
        if folder != str(root) and opted_in(folder):
            found.append(os.path.relpath(folder, root).replace(os.sep, "/"))
            dirs[:] = []
        if walked >= MAX_WALKED:
            break
    return found


def _nested_findings(root: Path, out: _Findings) -> None:
    for rel in nested_stores(root):
        out.note(
            "nested",
            f"{rel}/ holds a cuecard project of its own: commands run there use its memories, "
            "not this project's",
            f"remove {rel}/.cuecard if it was created by mistake (`cuecard init` there needs "
            "--force for this reason)",
        )


def _limits(root: Path, hooks: list[dict[str, str]], out: _Findings) -> dict[str, Any] | None:
    """The effective delivery limit of each installed harness's hook, noted when the harness
    keeps less inline than ``delivery_limit`` asks for."""
    from cuecard.core._errors import ConfigError
    from cuecard.core._store import Store
    from cuecard.core.engine._limits import limit_report

    try:
        configured = Store(root).config().delivery_limit
    except ConfigError:
        return None  # reported as a problem already
    report = limit_report(configured, (h["harness"] for h in hooks))
    for row in report:
        if configured > row["inline_limit"]:
            out.note(
                "limits",
                f"delivery_limit is {configured:,} but {row['harness']} keeps "
                f"{row['inline_limit']:,} characters of hook output inline: its hook delivers "
                f"at most {row['effective']:,} characters of knowledge at one event",
                f"`cuecard match --harness {row['harness']}` shows what its hook delivers; "
                "what does not fit arrives at later events",
            )
    return {"delivery_limit": configured, "harnesses": report}


def _hook_findings(
    hooks: list[dict[str, str]], root: Path | None, home: Path | None, out: _Findings
) -> None:
    """Whether the installed hooks run on this machine (see ``_hookcheck``), and why the last
    hook call could not read the project (see ``_hookfail``)."""
    from cuecard.core._hookcheck import check_hooks

    for found in check_hooks(hooks, root, home or Path.home()):
        (out.problem if found.problem else out.note)("hooks", found.message, found.hint)
    if root is None:
        return
    from cuecard.core.engine._hookfail import read_failures

    for key, failure in sorted(read_failures(str(root)).items()):
        out.problem(
            "hooks",
            f"`cuecard-hook {key}` failed at {_iso(float(failure.get('at', 0)))}: "
            f"{failure.get('reason', '')}",
            "fix what it names; the entry goes once that hook works again (or at "
            "`cuecard install`)",
        )


def _resolved(path: Path) -> bool:
    """Whether a request file records a person's decision (the review UI keeps those)."""
    try:
        request = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(request, dict) and bool(request.get("resolved"))
