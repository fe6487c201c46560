"""Export live path-scoped memories as other agents' rule files (``cuecard export``).

For agents without hooks: one committed source (``.cuecard/memories``) projected as Claude Code
rules (``.claude/rules/cuecard/<topic>.md``), Cursor rules (``.cursor/rules/cuecard/<topic>.mdc``)
or one owned block of ``AGENTS.md``. cuecard writes only files it owns — each carries an
``EXPORT_MARK`` comment, and ``cuecard import`` skips such files — removes its own files whose
memory is no longer live, never touches another file, and writes nothing when nothing changed.
A memory imported from a tool's own rule file is not exported back to that tool.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._fsio import atomic_write
from cuecard.core.lifecycle._rules import EXPORT_MARK
from cuecard.core.store._globs import expand_braces
from cuecard.core.store._memory import Memory

__all__ = ["TARGETS", "ExportReport", "export_rules", "render_agents_block", "render_rule"]

TARGETS = ("claude", "cursor", "agents-md")
_FOLDERS = {"claude": (".claude/rules/cuecard", ".md"), "cursor": (".cursor/rules/cuecard", ".mdc")}
BEGIN = "<!-- cuecard:begin (written by `cuecard export agents-md`; edit the memories instead) -->"
END = "<!-- cuecard:end -->"
_BLOCK = re.compile(r"<!-- cuecard:begin[^\n]*-->.*?<!-- cuecard:end -->\n?", re.DOTALL)


@dataclass
class ExportReport:
    """What an export wrote."""

    target: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "written": self.written,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "skipped": self.skipped,
        }


def _paths(memory: Memory) -> list[str]:
    out: list[str] = []
    for clause in memory.triggers:
        for glob in clause.paths:
            for one in expand_braces(glob):
                if one not in out:
                    out.append(one)
    return out


def _marker(memory: Memory) -> str:
    return f"<!-- {EXPORT_MARK} {memory.id} (edit the memory, not this file) -->"


def render_rule(target: str, memory: Memory) -> str:
    """The rule file text of ``memory`` for ``target`` (claude or cursor)."""
    paths = _paths(memory)
    if target == "claude":
        head = "paths:\n" + "".join(f"  - {json.dumps(p)}\n" for p in paths)
    else:
        head = (
            f"description: {json.dumps(memory.title, ensure_ascii=False)}\n"
            f"globs: {', '.join(paths)}\nalwaysApply: false\n"
        )
    return f"---\n{head}---\n{_marker(memory)}\n# {memory.title}\n\n{memory.body.strip()}\n"


def render_agents_block(memories: list[Memory]) -> str:
    """The owned ``AGENTS.md`` block for ``memories``."""
    parts = [BEGIN, f"<!-- {EXPORT_MARK} agents-md -->", "## Project memories (cuecard)", ""]
    for memory in memories:
        where = ", ".join(f"`{p}`" for p in _paths(memory))
        parts += [
            f"### {memory.title}",
            f"Applies when reading or changing {where}.",
            "",
            memory.body.strip(),
            "",
        ]
    parts.append(END)
    return "\n".join(parts) + "\n"


def _slug(topic: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "-", topic.replace("/", "--")).strip("-")[:120] or "memory"


def _exportable(memory: Memory, target: str) -> bool:
    return memory.live and bool(_paths(memory)) and memory.source != f"import:{target}"


def _write(path: Path, text: str, report: ExportReport, shown: str) -> None:
    try:
        if path.read_text(encoding="utf-8") == text:
            report.unchanged.append(shown)
            return
    except OSError:
        pass
    atomic_write(path, text)
    report.written.append(shown)


def export_rules(memories: list[Memory], target: str, out: Path) -> ExportReport:
    """Write ``target``'s rule files for the live path-scoped ``memories`` under ``out``."""
    report = ExportReport(target)
    chosen = sorted((m for m in memories if _exportable(m, target)), key=lambda m: (m.topic, m.id))
    if target == "agents-md":
        path = out / "AGENTS.md"
        if path.is_symlink():
            report.skipped.append({"file": "AGENTS.md", "reason": "it is a symbolic link"})
            return report
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = ""
        block = render_agents_block(chosen) if chosen else ""
        if _BLOCK.search(current):
            text = _BLOCK.sub(lambda _m: block, current, count=1)
        elif block:
            text = current + ("\n" if current and not current.endswith("\n") else "")
            text += ("\n" if current else "") + block
        else:
            text = current
        if text == current:
            report.unchanged.append("AGENTS.md")
        elif not text.strip():
            path.unlink()
            report.removed.append("AGENTS.md")
        else:
            atomic_write(path, text)
            report.written.append("AGENTS.md")
        return report
    folder_rel, suffix = _FOLDERS[target]
    folder = out / folder_rel
    wanted: dict[str, str] = {}
    for memory in chosen:
        wanted[f"{_slug(memory.topic)}{suffix}"] = render_rule(target, memory)
    if not folder.resolve().is_relative_to(out.resolve() / folder_rel):
        report.skipped.append({"file": folder_rel, "reason": "the folder is a symbolic link"})
        return report
    existing = sorted(folder.glob(f"*{suffix}")) if folder.is_dir() else []
    for path in existing:
        shown = f"{folder_rel}/{path.name}"
        owned = not path.is_symlink() and EXPORT_MARK in path.read_text("utf-8", "replace")
        if path.name in wanted and not owned:
            report.skipped.append({"file": shown, "reason": "not written by cuecard; left alone"})
            del wanted[path.name]
        elif path.name not in wanted and owned:
            path.unlink()
            report.removed.append(shown)
    for name, text in wanted.items():
        _write(folder / name, text, report, f"{folder_rel}/{name}")
    return report
