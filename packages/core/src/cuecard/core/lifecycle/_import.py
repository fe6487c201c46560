"""Import other agents' path-scoped rules as active memories (``cuecard import``).

Each rule file becomes one procedure under the topic ``rules/<tool>/<file>``, firing on reads,
edits and writes of the repository files its paths match, with the file itself as hashed evidence
(so a changed file marks the memory stale and the next import updates it), accepted by the person
who ran the import. Skipped and reported: a rule with no paths or always on, one whose paths match
no repository file, one whose topic a memory from elsewhere holds, one the store's validation
refuses (a secret, an invisible control character...). A second import updates the memories whose
file changed and leaves the rest alone. ``dry_run`` computes the same report and writes nothing.
"""

from __future__ import annotations

import hashlib
import os
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import describe
from cuecard.core.base._errors import ValidationError
from cuecard.core.lifecycle._repofiles import GlobSet, repository_files
from cuecard.core.lifecycle._rules import FORMATS, NESTED, RuleFormat, parse_rule, rule_topic
from cuecard.core.store._memory import Memory
from cuecard.core.store._store import Store
from cuecard.core.store._validate import validate_memory

__all__ = ["MAX_RULE_BYTES", "ImportReport", "discover_rules", "import_rules"]

MAX_RULE_BYTES = 1024 * 1024
MAX_PATHS = 32
_NOT_DERIVABLE = (
    "A rule the project's people wrote for {tool} in {file}; it states their conventions for "
    "these files, which the code itself does not say."
)


@dataclass
class ImportReport:
    """What an import did (or, in a dry run, would do)."""

    dry_run: bool = False
    imported: list[dict[str, Any]] = field(default_factory=list)
    """New memories: ``id``, ``topic``, ``file``, ``paths``, ``truncated``."""
    updated: list[dict[str, Any]] = field(default_factory=list)
    """Memories whose rule file changed: ``id``, ``topic``, ``file``."""
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    """Memories whose rule file is as imported: ``id``, ``topic``, ``file``."""
    skipped: list[dict[str, Any]] = field(default_factory=list)
    """Rule files not imported: ``file`` and ``reason``."""

    def as_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "imported": self.imported,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
        }


_SKIP_DIRS = frozenset({"node_modules", "vendor", "dist", "build", "target", "__pycache__"})
MAX_FOLDERS = 50_000


def _nested(base: Path) -> list[tuple[RuleFormat, str]]:
    names = {fmt.suffix: fmt for fmt in NESTED}
    found: list[tuple[RuleFormat, str]] = []
    for walked, (folder, dirs, files) in enumerate(os.walk(base)):
        if walked > MAX_FOLDERS:
            break
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        rel = Path(folder).relative_to(base).as_posix()
        if rel != ".":
            found += [(names[f], f"{rel}/{f}") for f in sorted(files) if f in names]
    return found


def discover_rules(base: Path) -> list[tuple[RuleFormat, str]]:
    """Rule files under ``base``: ``(format, path relative to the format's folder)``. No link
    is followed: a rule folder reached through one is listed as ``(format, "")``, and a link or
    a FIFO among the rules is listed as it is (the import names it as skipped, unread)."""
    found: list[tuple[RuleFormat, str]] = _nested(base)
    real_base = base.resolve()
    for fmt in FORMATS:
        folder = base / fmt.folder
        if not folder.is_dir():
            continue
        if not folder.resolve().is_relative_to(real_base / fmt.folder):
            found.append((fmt, ""))  # a rules folder reached through a symbolic link: not read
            continue
        listed: list[str] = []
        for walked, (here, dirs, files) in enumerate(os.walk(folder)):  # follows no link
            if walked > MAX_FOLDERS:
                break
            rel = Path(here).relative_to(folder).as_posix()
            at = "" if rel == "." else f"{rel}/"
            dirs.sort()
            listed += [f"{at}{d}" for d in dirs if os.path.islink(os.path.join(here, d))]
            listed += [f"{at}{f}" for f in files if f.endswith(fmt.suffix)]
        found += [(fmt, rel) for rel in sorted(listed) if rel.rpartition("/")[2][:1] != "."]
    return found


def _read_rule(path: Path) -> bytes | str:
    """The bytes of the rule file ``path`` (through ``read_regular``, the reader of every file a
    person's folder holds), or why it is skipped unread: a link (never followed), a FIFO, device
    or socket (never waited on), a file over ``MAX_RULE_BYTES``."""
    from cuecard.core.engine._evidence import read_regular

    data = read_regular(str(path), MAX_RULE_BYTES)
    if data is not None:
        return data
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return f"it is {describe(st.st_mode)}, not a regular file"
    if st.st_size > MAX_RULE_BYTES:
        return f"larger than {MAX_RULE_BYTES} bytes"
    return "cannot be read"


def _person(root: Path) -> str:
    import getpass
    import subprocess

    try:
        name = subprocess.run(
            ["git", "config", "user.name"], cwd=root, capture_output=True, timeout=10, check=False
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        name = ""
    if not name.strip():
        try:
            name = getpass.getuser()
        except (OSError, KeyError):
            name = "person"
    return name.strip()[:100] or "person"


def _ours(memory: Memory, ref: str) -> bool:
    return memory.source.startswith("import:") and any(e.ref == ref for e in memory.evidence)


def import_rules(
    store: Store,
    *,
    source: Path | None = None,
    dry_run: bool = False,
    reviewer: str | None = None,
    files: list[str] | None = None,
) -> ImportReport:
    """Import the rule files under ``source`` (default: the project root) into ``store``."""
    root = store.root.resolve()
    base = (source or root).resolve()
    inside = base == root or root in base.parents
    report = ImportReport(dry_run=dry_run)
    files = sorted(repository_files(root) if files is None else files)
    memories = store.memories()
    person = reviewer or _person(root)
    now = store.now()
    staged: list[Memory] = []
    taken: dict[str, str] = {}
    for fmt, rel in discover_rules(base):
        within = f"{fmt.folder}/{rel}" if fmt.folder else rel
        path = base / within
        shown = path.relative_to(root).as_posix() if inside else str(path)
        ref = shown if inside else within
        entry: dict[str, Any] = {"file": shown}
        if not rel:
            reason = "the folder is reached through a symbolic link: not followed"
            report.skipped.append({**entry, "reason": reason})
            continue
        data = _read_rule(path)
        if isinstance(data, str):
            report.skipped.append({**entry, "reason": data})
            continue
        rule = parse_rule(fmt, within, data, shown)
        if rule.skip:
            report.skipped.append({**entry, "reason": rule.skip, "notes": rule.notes})
            continue
        globs = [g for g in rule.globs if GlobSet([g]).any_in(files)]
        if not globs:
            report.skipped.append(
                {**entry, "reason": "its paths match no repository file", "paths": rule.globs}
            )
            continue
        topic = rule_topic(fmt, rel)
        digest = hashlib.sha256(data).hexdigest()
        if topic in taken:
            report.skipped.append(
                {
                    **entry,
                    "topic": topic,
                    "reason": f"topic {topic} is taken by {taken[topic]} in this import",
                }
            )
            continue
        holders = [m for m in memories if m.topic == topic and m.live]
        mine = [m for m in memories if m.topic == topic and _ours(m, ref)]
        entry["topic"] = topic
        if holders and not _ours(holders[0], ref):
            report.skipped.append(
                {
                    **entry,
                    "reason": f"topic {topic} is held by memory {holders[0].id[:8]} from elsewhere",
                }
            )
            continue
        previous = holders[0] if holders else (mine[-1] if mine else None)
        if previous is not None and any(e.sha256 == digest for e in previous.evidence):
            report.unchanged.append({**entry, "id": previous.id})
            continue
        if previous is not None and not previous.live:
            report.skipped.append(
                {
                    **entry,
                    "reason": f"its memory {previous.id[:8]} is {previous.status}; restore it "
                    "in the review UI to import the changed file",
                }
            )
            continue
        raw: dict[str, Any] = {
            "id": previous.id if previous else str(uuid.uuid4()),
            "topic": topic,
            "kind": "procedure",
            "status": previous.status.value if previous else "active",
            "title": rule.title,
            "body": rule.body,
            "not_derivable": _NOT_DERIVABLE.format(tool=fmt.tool, file=ref)[:1000],
            "triggers": [{"on": ["read", "edit", "write"], "paths": globs[:MAX_PATHS]}],
            "evidence": [
                {
                    "kind": "file" if inside else "note",
                    "ref": ref,
                    "sha256": digest,
                    "summary": f"{fmt.tool} rule file, imported",
                    "recorded_at": now.isoformat(),
                    "verified": True,
                }
            ],
            "origin": "user_explicit",
            "source": f"import:{fmt.tool}",
            "created_at": (previous.created_at if previous else now).isoformat(),
            "updated_at": now.isoformat(),
            "review": {
                "reviewed_by": person,
                "reviewed_at": now.isoformat(),
                "note": "accepted by the person who ran cuecard import",
                "issues": ["imported_truncated"] if rule.truncated else [],
            },
        }
        try:
            memory = validate_memory(raw)
        except ValidationError as exc:
            reasons = "; ".join(r.split(": ", 1)[-1] for r in exc.refusals)
            report.skipped.append({**entry, "reason": f"refused: {reasons}"})
            continue
        staged.append(memory)
        taken[topic] = shown
        done = {**entry, "id": memory.id, "paths": globs[:MAX_PATHS], "truncated": rule.truncated}
        if len(globs) > MAX_PATHS:
            done["notes"] = [f"only the first {MAX_PATHS} of {len(globs)} paths were kept"]
        (report.updated if previous else report.imported).append(done)
    if staged and not dry_run:
        from cuecard.core.store._compiler import compile_index

        with store.transaction() as tx:
            for memory in staged:
                tx.put(memory)
        compile_index(store)
    return report
