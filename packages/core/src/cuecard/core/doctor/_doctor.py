"""``diagnose(start)``: whether cuecard is working in a project, as problems and notes.

Read-only: it never creates a file, not even in a project that opted in (it does not roll an
interrupted transaction forward, it only says one is pending). Harness hooks are found by reading
the files the installers write (``cuecard install``), without importing the hooks package.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cuecard.core.doctor._installed_hooks import HOOK_FILES, installed_hooks
from cuecard.core.lifecycle._findings import Findings, iso
from cuecard.core.lifecycle._store_findings import store_checks

__all__ = ["HOOK_FILES", "KEYS", "diagnose", "installed_hooks"]

MIN_PYTHON = (3, 11)

KEYS: dict[str, str] = {
    "ok": "true when there is no problem",
    "opted_in": "whether the project opted in (.cuecard/config.json, or a first memory file)",
    "root": "the project root, or null",
    "python": "the Python version running cuecard",
    "hooks": (
        "[{harness, scope, file}] harness configurations that run cuecard's hooks (dsh: the "
        "DSH hook bridge's dsh-hooks.json, mounted in a DSH profile)"
    ),
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
    "mcp": (
        "where cuecard's MCP server is registered, else null: {registrations: [{harness, scope, "
        "file, command, answers, tools}]}; answers: it started and listed the four memory tools"
    ),
}


def diagnose(
    start: Path | None = None,
    *,
    home: Path | None = None,
    clock: Callable[[], float] = time.time,
    python: tuple[int, int, int] | None = None,
) -> dict[str, Any]:
    """The doctor's report (see ``KEYS``) for the project containing ``start``."""
    from cuecard.core.engine._paths import find_root

    out = Findings([], [])
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
        ran = store_checks(root, out, counts, clock)
        _nested_findings(root, out)
    hooks, broken = installed_hooks(root, home)
    for file, reason in broken:
        out.problem("hooks", f"{file} {reason}", "fix the file; the harness may ignore it")
    _hook_findings(hooks, root, home, out)
    hooks += _dsh_hooks(home)
    if root is not None and any(h["harness"] == "dsh" for h in hooks):
        _dsh_edit_checks(root, out)
    if root is not None and not hooks:
        out.problem(
            "hooks",
            "no harness runs cuecard's hooks for this project",
            "`cuecard install claude` (or codex, opencode, grok, dsh; the command comes with the "
            "cuecard-hooks distribution: pip install cuecard-hooks); a Claude Code plugin "
            "install is not visible here",
        )
    elif hooks and root is not None and not counts.get("sessions"):
        names = ", ".join(sorted({h["harness"] for h in hooks}))
        out.note(
            "hooks",
            f"hooks are installed for {names} but no session was recorded",
            "restart the harness; Codex and Grok need their hooks trusted",
        )
    limits = _limits(root, hooks, out) if root is not None else None
    from cuecard.core.doctor._doctor_caches import cache_findings

    cache_findings(root, home or Path.home(), out.problem)
    dsh = _dsh(home, out)
    from cuecard.core.doctor._doctor_mcp import mcp_setup

    mcp = mcp_setup(root, home or Path.home(), out)
    return {
        "ok": not out.problems,
        "opted_in": root is not None,
        "root": str(root) if root is not None else None,
        "python": text,
        "hooks": hooks,
        "counts": counts,
        "last_maintenance": iso(ran),
        "limits": limits,
        "problems": out.problems,
        "notes": out.notes,
        "dsh": dsh,
        "mcp": mcp,
    }


def _opt_in_problem(where: Path, out: Findings) -> None:
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


def _dsh_hooks(home: Path | None) -> list[dict[str, str]]:
    """DSH's hook bridge when it runs cuecard's hooks (``_doctor_dsh``): DSH is a harness too."""
    from cuecard.core.doctor._doctor_dsh import dsh_hooks

    return dsh_hooks(home or Path.home())


def _dsh_edit_checks(root: Path, out: Findings) -> None:
    """DSH runs cuecard only after a tool call, when the file already holds the change: an edit
    check (``when: edit``) has no "before" to compare with there and never reports."""
    from cuecard.core.base._errors import CuecardError
    from cuecard.core.store._store import Store

    try:
        memories, _ = Store(root).load()
    except CuecardError:
        return  # reported by the store checks
    edit = sorted(m.id[:8] for m in memories if m.live and m.check and m.check.when == "edit")
    if edit:
        out.note(
            "dsh",
            f"{len(edit)} live {'memory has' if len(edit) == 1 else 'memories have'} edit "
            f"checks (`when: edit`: {', '.join(edit[:5])}), "
            "which never report in DSH: cuecard sees a DSH tool call only after it ran, when the "
            "file already holds the change",
            "make them `when: turn` checks (judged at Stop, in every harness) if DSH users need "
            "them",
        )


def _dsh(home: Path | None, out: Findings) -> dict[str, Any] | None:
    """The DSH set-up (``_doctor_dsh``), its findings added to ``out``."""
    from cuecard.core.doctor._doctor_dsh import dsh_setup

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


def _nested_findings(root: Path, out: Findings) -> None:
    for rel in nested_stores(root):
        out.note(
            "nested",
            f"{rel}/ holds a cuecard project of its own: commands run there use its memories, "
            "not this project's",
            f"remove {rel}/.cuecard if it was created by mistake (`cuecard init` there needs "
            "--force for this reason)",
        )


def _limits(root: Path, hooks: list[dict[str, str]], out: Findings) -> dict[str, Any] | None:
    """The effective delivery limit of each installed harness's hook, noted when the harness
    keeps less inline than ``delivery_limit`` asks for."""
    from cuecard.core.base._errors import ConfigError
    from cuecard.core.engine._limits import limit_report
    from cuecard.core.store._store import Store

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
    hooks: list[dict[str, str]], root: Path | None, home: Path | None, out: Findings
) -> None:
    """Whether the installed hooks run on this machine (see ``_hookcheck``), and why the last
    hook call could not read the project (see ``_hookfail``)."""
    from cuecard.core.doctor._hookcheck import check_hooks

    for found in check_hooks(hooks, root, home or Path.home()):
        (out.problem if found.problem else out.note)("hooks", found.message, found.hint)
    if root is None:
        return
    from cuecard.core.engine._hookfail import read_failures

    for key, failure in sorted(read_failures(str(root)).items()):
        out.problem(
            "hooks",
            f"`cuecard-hook {key}` failed at {iso(float(failure.get('at', 0)))}: "
            f"{failure.get('reason', '')}",
            "fix what it names; the entry goes once that hook works again (or at "
            "`cuecard install`)",
        )
