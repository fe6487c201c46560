"""Export live path-scoped memories as other agents' rule files (``cuecard export``).

For agents without hooks: one committed source (``.cuecard/memories``) projected as Claude Code
rules (``.claude/rules/cuecard/<topic>.md``), Cursor rules (``.cursor/rules/cuecard/<topic>.mdc``)
or one owned block of ``AGENTS.md``. cuecard writes only files it owns — each carries an
``EXPORT_MARK`` comment, and ``cuecard import`` skips such files — removes its own files whose
memory is no longer live, never touches another file, and writes nothing when nothing changed.
A memory imported from a tool's own rule file is not exported back to that tool.

The rule folders and ``AGENTS.md`` are the repository's, which a teammate's commit can fill:
they are read, written and deleted through the confined layer (``Tree``, based at the folder
exported to), so a link, FIFO or device at any depth of them is skipped with its reason, never
followed, opened or replaced.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cuecard.core.base._confined import Tree, UnsafePath
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


def _why(exc: UnsafePath) -> str:
    """What the layer refused, in a few words (``is a symbolic link``, ``is a FIFO``…)."""
    return exc.reason.split(",")[0]


def _write(tree: Tree, rel: str, text: str, report: ExportReport) -> None:
    try:
        if tree.read_bytes(rel).decode("utf-8", "replace") == text:
            report.unchanged.append(rel)
            return
    except FileNotFoundError:
        pass
    try:
        tree.write(rel, text)
    except UnsafePath as exc:
        report.skipped.append({"file": rel, "reason": f"it {_why(exc)}"})
        return
    report.written.append(rel)


def _owned(tree: Tree, rel: str, kind: str) -> bool:
    """Whether ``rel`` is a regular file cuecard exported (it carries ``EXPORT_MARK``)."""
    if kind != "file":
        return False
    try:
        return EXPORT_MARK in tree.read_bytes(rel).decode("utf-8", "replace")
    except OSError:
        return False


def export_rules(memories: list[Memory], target: str, out: Path) -> ExportReport:
    """Write ``target``'s rule files for the live path-scoped ``memories`` under ``out``."""
    report = ExportReport(target)
    chosen = sorted((m for m in memories if _exportable(m, target)), key=lambda m: (m.topic, m.id))
    tree = Tree(out)
    if target == "agents-md":
        try:
            current = tree.read_bytes("AGENTS.md").decode("utf-8")
        except FileNotFoundError:
            current = ""
        except UnsafePath as exc:
            report.skipped.append({"file": "AGENTS.md", "reason": f"it {_why(exc)}"})
            return report
        except UnicodeDecodeError:
            report.skipped.append({"file": "AGENTS.md", "reason": "it is not UTF-8 text"})
            return report
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
            tree.remove("AGENTS.md")
            report.removed.append("AGENTS.md")
        else:
            _write(tree, "AGENTS.md", text, report)
        return report
    folder_rel, suffix = _FOLDERS[target]
    wanted: dict[str, str] = {}
    for memory in chosen:
        wanted[f"{_slug(memory.topic)}{suffix}"] = render_rule(target, memory)
    try:
        existing = [(n, k) for n, k in tree.entries(folder_rel) if n.endswith(suffix)]
    except UnsafePath as exc:  # a link (or not a folder) at any depth of it
        report.skipped.append({"file": folder_rel, "reason": f"the folder {_why(exc)}"})
        return report
    for name, kind in existing:
        shown = f"{folder_rel}/{name}"
        owned = _owned(tree, shown, kind)
        if name in wanted and not owned:
            report.skipped.append({"file": shown, "reason": "not written by cuecard; left alone"})
            del wanted[name]
        elif name not in wanted and owned:
            tree.remove(shown)
            report.removed.append(shown)
    for name, text in wanted.items():
        _write(tree, f"{folder_rel}/{name}", text, report)
    return report
