"""The evidence of a memory proposal, checked: repository files hashed (links, FIFOs and
devices never read), a user's correction checked against the session, and the trigger clauses
whose paths match no file of the repository."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from cuecard.core.engine._evidence import file_digest, ref_problem
from cuecard.core.engine._paths import repo_relative
from cuecard.core.lifecycle._grounds import naming_correction
from cuecard.core.store._memory import Memory
from cuecard.core.store._proposal import MemoryProposal

__all__ = ["MAX_EVIDENCE_BYTES", "checked_evidence", "dead_clauses"]

MAX_EVIDENCE_BYTES = 4 * 1024 * 1024


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


def dead_clauses(root: Path, memory: Memory) -> list[int]:
    """Clauses whose paths match no file of the repository."""
    from cuecard.core.lifecycle._repofiles import GlobSet

    files: list[str] | None = None
    dead = []
    for i, clause in enumerate(memory.triggers):
        if not clause.paths:
            continue
        files = _tracked_files(root) if files is None else files
        if not GlobSet(clause.paths).matching(files):  # linear in each path, never backtracks
            dead.append(i)
    return dead


def checked_evidence(
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
