"""The folder vault's logs and records as values, for moving them to and from PostgreSQL.

Pure functions over text: the pending list's header, adjudication and promotion log lines (in
either layout's wording), the use records (``usage.log``: one ``<fact id>\\t<day>`` line per use)
and the digest cursor's file. A line that does not parse is kept as it is by the callers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from cuecard.core.vault._layout import Layout

__all__ = [
    "LogLine",
    "parse_adjudication",
    "parse_cursor",
    "parse_pending_header",
    "parse_promotion",
    "parse_usage",
    "render_cursor",
    "render_usage",
]

_MINUTE = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"
_PROMOTION = re.compile(rf"^- (?P<when>{_MINUTE}) \| (?P<file>[^|]*?) \| (?P<fact>.*)$")


@dataclass(frozen=True)
class LogLine:
    """One parsed log line: when (local, to the minute), the note file or decision, new/fact and
    old (adjudications only)."""

    when: datetime
    what: str
    new: str
    old: str = ""


def _when(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").astimezone()


def _pattern(fmt: str, fields: dict[str, str]) -> re.Pattern[str]:
    """A regex matching what ``fmt.format(**fields)`` writes (each field a named group)."""
    pattern = re.escape(fmt)
    for name, group in fields.items():
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>{group})")
    return re.compile(f"^{pattern}$", re.DOTALL)


def parse_pending_header(layout: Layout, text: str) -> tuple[str, str] | None:
    """The generated time (``YYYY-MM-DD HH:MM``) and command of a pending list's header."""
    head = layout.pending_header.rstrip("\n")
    found = _pattern(head, {"now": r"[^\n]*?", "command": r"[^\n]*?"}).match(
        "\n".join(text.splitlines()[: head.count("\n") + 1])
    )
    if found is None:
        return None
    return found.group("now"), found.group("command")


def parse_adjudication(layout: Layout, line: str) -> tuple[str, LogLine] | None:
    """(decision, parsed line) of an adjudication log line in ``layout``'s wording."""
    words = {word: decision for decision, word in layout.decisions.items()}
    found = _pattern(
        layout.log_format,
        {"when": _MINUTE, "decision": r".*?", "new": r".*", "old": r".*"},
    ).match(line)
    if found is None or found.group("decision") not in words:
        return None
    try:
        when = _when(found.group("when"))
    except ValueError:
        return None
    decision = words[found.group("decision")]
    return decision, LogLine(when, decision, found.group("new"), found.group("old"))


def parse_promotion(line: str) -> LogLine | None:
    """A promotion log line (``- <when> | <note file> | <fact>``, both layouts)."""
    found = _PROMOTION.match(line)
    if found is None:
        return None
    try:
        when = _when(found.group("when"))
    except ValueError:
        return None
    return LogLine(when, found.group("file"), found.group("fact"))


def parse_usage(text: str) -> dict[str, tuple[int, date]]:
    """Fact id -> (uses, last day) from a ``usage.log`` (lines without a valid day are skipped,
    as ``folder._recall.last_uses`` skips them)."""
    found: dict[str, tuple[int, date]] = {}
    for line in text.splitlines():
        ident, _, day = line.partition("\t")
        if len(day) != 10:
            continue
        try:
            when = date.fromisoformat(day)
        except ValueError:
            continue
        uses, last = found.get(ident, (0, when))
        found[ident] = (uses + 1, max(last, when))
    return found


def render_usage(records: dict[str, tuple[int, date]]) -> str:
    """A ``usage.log`` with these records: each use one line, dated the last day."""
    return "".join(
        f"{ident}\t{last.isoformat()}\n" * uses for ident, (uses, last) in sorted(records.items())
    )


def parse_cursor(text: str) -> dict[str, tuple[int, str]]:
    """A digest cursor file's entries: vault-relative archive -> (size read, its SHA-256);
    malformed entries are left out, as the digest leaves them out."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {
        str(key): (value["size"], value["sha256"])
        for key, value in (files if isinstance(files, dict) else {}).items()
        if isinstance(value, dict)
        and isinstance(value.get("size"), int)
        and not isinstance(value.get("size"), bool)
        and isinstance(value.get("sha256"), str)
    }


def render_cursor(files: dict[str, dict[str, Any]]) -> str:
    """The digest cursor's file as ``_digest`` writes it."""
    return json.dumps({"files": files}, indent=1, sort_keys=True)
