"""Other agents' path-scoped rule files, parsed into what an import needs. Pure functions.

Six formats, each a folder of Markdown files with a frontmatter block:

=========  ================================  ====================================================
tool       files                             paths from
=========  ================================  ====================================================
claude     ``.claude/rules/**/*.md``         ``paths`` (list or comma-separated string)
cursor     ``.cursor/rules/**/*.mdc``        ``globs`` (list, or the common unquoted
                                             comma-separated form); ``alwaysApply: true`` is on
copilot    ``.github/instructions/**/        ``applyTo`` (comma-separated string)
           *.instructions.md``
continue   ``.continue/rules/**/*.md``       ``globs``; ``alwaysApply: true`` is always on
windsurf   ``.windsurf/rules/**/*.md``       ``globs`` with ``trigger: glob``; ``always_on`` is on
kiro       ``.kiro/steering/**/*.md``        ``fileMatchPattern`` with ``inclusion: fileMatch``
claude-md  ``<folder>/CLAUDE.md``            the folder (``<folder>/**``), not at the root
agents-md  ``<folder>/AGENTS.md``            the folder (``<folder>/**``), not at the root
=========  ================================  ====================================================

The frontmatter reader is a tolerant subset of YAML (``key: value``, ``- item`` lists, ``[a, b]``
flow lists, quotes, ``|``/``>`` blocks), because real rule files break YAML (``globs: **/*.ts``
starts with an alias character). A bare pattern (``*.ts``) applies across folders (``**/*.ts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

__all__ = [
    "BODY_LIMIT",
    "EXPORT_MARK",
    "FORMATS",
    "Rule",
    "RuleFormat",
    "cut_body",
    "normalise_glob",
    "parse_frontmatter",
    "parse_rule",
    "rule_topic",
    "split_globs",
]

BODY_LIMIT = 1_500
EXPORT_MARK = "cuecard-export:"
_ALWAYS_GLOBS = frozenset({"**", "**/*", "*", "**/**"})


@dataclass(frozen=True)
class RuleFormat:
    """Where one tool keeps its rules and how their frontmatter names paths."""

    tool: str
    folder: str
    suffix: str
    key: str


# Instruction files in a subfolder, which their tools load only when the agent reads there
# (anthropics/claude-code#90449): imported to fire on reads, edits and writes of that folder.
NESTED: tuple[RuleFormat, ...] = (
    RuleFormat("claude-md", "", "CLAUDE.md", ""),
    RuleFormat("agents-md", "", "AGENTS.md", ""),
)
_OWNED_BLOCK = re.compile(r"<!-- cuecard:begin[^\n]*-->.*?<!-- cuecard:end -->\n?", re.DOTALL)

FORMATS: tuple[RuleFormat, ...] = (
    RuleFormat("claude", ".claude/rules", ".md", "paths"),
    RuleFormat("cursor", ".cursor/rules", ".mdc", "globs"),
    RuleFormat("copilot", ".github/instructions", ".instructions.md", "applyTo"),
    RuleFormat("continue", ".continue/rules", ".md", "globs"),
    RuleFormat("windsurf", ".windsurf/rules", ".md", "globs"),
    RuleFormat("kiro", ".kiro/steering", ".md", "fileMatchPattern"),
)

Value = str | bool | list[str]


@dataclass
class Rule:
    """A parsed rule file, or why it cannot be imported (``skip``)."""

    tool: str
    file: str
    """The file's path relative to the folder imported from."""
    title: str = ""
    body: str = ""
    globs: list[str] = field(default_factory=list)
    truncated: bool = False
    skip: str = ""
    notes: list[str] = field(default_factory=list)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return inner.replace("''", "'") if text[0] == "'" else inner.replace('\\"', '"')
    return text


def _scalar(text: str) -> Value:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_unquote(p) for p in split_globs(text[1:-1]) if _unquote(p)]
    if text[:1] not in "'\"" and " #" in text:
        text = text.split(" #", 1)[0].rstrip()
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    return _unquote(text)


def parse_frontmatter(text: str) -> tuple[dict[str, Value], str, str]:
    """``(fields, body, problem)`` of a rule file's text (BOM and CRLF already removed)."""
    if not text.startswith("---"):
        return {}, text, ""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, ""
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, "", "its frontmatter has no closing --- line"
    fields: dict[str, Value] = {}
    key = ""
    block: list[str] | None = None
    for raw in lines[1:end]:
        if block is not None:
            if raw.startswith((" ", "\t")) or not raw.strip():
                block.append(raw.strip())
                continue
            fields[key] = " ".join(x for x in block if x)
            block = None
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            if not key:
                return {}, "", f"its frontmatter has a list item before any key: {stripped!r}"
            current = fields.get(key)
            items = current if isinstance(current, list) else []
            item = _unquote(stripped[1:].strip())
            if item:
                items.append(item)
            fields[key] = items
            continue
        match = re.match(r"^([A-Za-z_][\w.-]*)\s*:(.*)$", stripped)
        if match is None or raw.startswith((" ", "\t")):
            return {}, "", f"its frontmatter line {stripped[:60]!r} is not `key: value`"
        key, value = match.group(1), match.group(2).strip()
        if value in ("|", ">", "|-", ">-"):
            block = []
        elif value:
            fields[key] = _scalar(value)
        else:
            fields[key] = []
    if block is not None:
        fields[key] = " ".join(x for x in block if x)
    return fields, "\n".join(lines[end + 1 :]), ""


def split_globs(text: str) -> list[str]:
    """Split a comma-separated glob list, keeping commas inside ``{a,b}`` groups."""
    parts: list[str] = []
    current = ""
    depth = 0
    quote = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        if char == "," and depth == 0 and not quote:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def normalise_glob(glob: str) -> tuple[str | None, str]:
    """A rule's glob as a cuecard trigger glob, or ``None`` and why it is dropped."""
    from cuecard.core.store._globs import glob_problem

    text = _unquote(glob).replace("\\", "/").strip()
    while text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/") if not text.startswith("//") else text
    if not text:
        return None, "is empty"
    if text.startswith("!"):
        return None, "is a negation, which cuecard triggers cannot express"
    if text.endswith("/"):
        text += "**"
    if "/" not in text and not text.startswith("**"):
        text = "**/" + text
    problem = glob_problem(text)
    if problem is not None:
        return None, problem
    return text, ""


def _globs(value: Value | None) -> list[str]:
    if value is None or isinstance(value, bool):
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        out += split_globs(item)
    return out


def _always_on(tool: str, fields: dict[str, Value]) -> bool:
    if tool in ("cursor", "continue") and fields.get("alwaysApply") is True:
        return True
    if tool == "windsurf" and str(fields.get("trigger", "")).lower() == "always_on":
        return True
    return tool == "kiro" and str(fields.get("inclusion", "always")).lower() == "always"


def cut_body(body: str, file: str, limit: int = BODY_LIMIT) -> tuple[str, bool]:
    """``body`` cut at a paragraph to at most ``limit`` characters, pointing at ``file``."""
    if len(body) <= limit:
        return body, False
    note = f"\n\n[…] The rest of this rule is in {file}."
    room = max(limit - len(note), 200)
    head = body[:room]
    for mark in ("\n\n", "\n", " "):
        cut = head.rfind(mark)
        if cut >= room // 3:
            head = head[:cut]
            break
    paragraphs = head.rstrip().split("\n\n")
    while len(paragraphs) > 1 and paragraphs[-1].lstrip().startswith("#"):
        paragraphs.pop()  # a heading whose section was cut away
    return "\n\n".join(paragraphs).rstrip() + note, True


def _title(fields: dict[str, Value], body: str, file: str) -> str:
    for key in ("description", "name", "title"):
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:150]
    for line in body.split("\n"):
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
            if heading:
                return heading[:150]
    return PurePosixPath(file).name[:150]


def parse_rule(fmt: RuleFormat, file: str, data: bytes, shown_as: str) -> Rule:
    """Parse one rule file's bytes; ``shown_as`` is the path a cut body points at."""
    rule = Rule(fmt.tool, file)
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not fmt.key:
        return _parse_nested(rule, text, shown_as)
    if f"<!-- {EXPORT_MARK}" in text:
        rule.skip = "written by cuecard export (its memory is the source)"
        return rule
    fields, body, problem = parse_frontmatter(text)
    if problem:
        rule.skip = problem
        return rule
    body = body.strip()
    if _always_on(fmt.tool, fields):
        rule.skip = "always on (no paths to fire on)"
        return rule
    if fmt.tool == "windsurf" and str(fields.get("trigger", "glob")).lower() not in ("glob", ""):
        rule.skip = f"its trigger is {fields.get('trigger')}, not glob (no paths to fire on)"
        return rule
    if fmt.tool == "kiro" and str(fields.get("inclusion", "")).lower() != "filematch":
        rule.skip = f"its inclusion is {fields.get('inclusion')}, not fileMatch (no paths)"
        return rule
    raw = _globs(fields.get(fmt.key))
    if not raw:
        rule.skip = f"it names no paths ({fmt.key} is missing or empty)"
        return rule
    for glob in raw:
        clean, why = normalise_glob(glob)
        if clean is None:
            rule.notes.append(f"pattern {glob[:80]!r} dropped: {why}")
        elif clean in _ALWAYS_GLOBS:
            rule.skip = f"pattern {glob!r} applies to every file (always on)"
            return rule
        elif clean not in rule.globs:
            rule.globs.append(clean)
    if not rule.globs:
        rule.skip = "none of its paths is a safe repository pattern"
        return rule
    if not body:
        rule.skip = "its body is empty"
        return rule
    rule.title = _title(fields, body, file)
    rule.body, rule.truncated = cut_body(body, shown_as)
    return rule


def _parse_nested(rule: Rule, text: str, shown_as: str) -> Rule:
    folder = rule.file.rsplit("/", 1)[0] if "/" in rule.file else ""
    if not folder:
        rule.skip = "at the repository root it applies to every file (always on)"
        return rule
    fields, body, problem = parse_frontmatter(text)
    if problem:
        fields, body = {}, text
    body = _OWNED_BLOCK.sub("", body).strip()
    if f"<!-- {EXPORT_MARK}" in body:
        rule.skip = "written by cuecard export (its memory is the source)"
        return rule
    if not body:
        rule.skip = "its body is empty"
        return rule
    clean, why = normalise_glob(f"{folder}/**")
    if clean is None:
        rule.skip = f"its folder {why}"
        return rule
    rule.globs = [clean]
    rule.title = _title(fields, body, f"{folder}/{PurePosixPath(rule.file).name}")
    rule.body, rule.truncated = cut_body(body, shown_as)
    return rule


def _slug(segment: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", segment.lower()).strip("-.")
    slug = re.sub(r"^[^a-z0-9]+", "", slug)
    return slug[:64] or "rule"


def rule_topic(fmt: RuleFormat, file: str) -> str:
    """The topic of a rule file: ``rules/<tool>/<file without its extension>``."""
    name = file[: -len(fmt.suffix)] if file.endswith(fmt.suffix) else file
    parts = [_slug(p) for p in name.split("/") if p] or ["root"]
    if len(parts) > 4:
        parts = [*parts[:3], _slug("-".join(parts[3:]))]
    return "/".join(["rules", fmt.tool, *parts])
