"""Runtime wiring, owned blocks only.

Claude Code: an include block in the root ``CLAUDE.md`` between cuecard's markers, one ``@path``
line per projected file. OpenCode: owned entries of ``instructions`` in the root
``opencode.json`` (the file is backed up once before the first change). Kimaki runs OpenCode
sessions in the root, so it is wired through the same ``opencode.json``. Nothing outside the
block or the owned entries is touched.
"""

from __future__ import annotations

import json
from typing import Any

from cuecard.wp_projection._errors import ProjectionError
from cuecard.wp_projection._manifest import Manifest
from cuecard.wp_projection._safefs import SafeRoot

__all__ = [
    "CLAUDE_END",
    "CLAUDE_START",
    "RUNTIMES",
    "included_paths",
    "refresh",
    "render_claude",
    "render_opencode",
    "unwire",
    "wire",
]

RUNTIMES = ("claude", "opencode", "kimaki")
CLAUDE_FILE = "CLAUDE.md"
OPENCODE_FILE = "opencode.json"
OPENCODE_BACKUP = "opencode.json.cuecard-backup"
CLAUDE_START = "<!-- CUECARD_WP_PROJECTION_START -->"
CLAUDE_END = "<!-- CUECARD_WP_PROJECTION_END -->"
# Data Machine's registry priorities (MemoryFileRegistry): files are included in this order.
_PRIORITY = {
    "NETWORK.md": 5,
    "AGENTS.md": 5,
    "SITE.md": 10,
    "RULES.md": 15,
    "SOUL.md": 20,
    "USER.md": 25,
    "USER_MEMORY.md": 28,
    "MEMORY.md": 30,
    "WAKE.md": 35,
}


def included_paths(manifest: Manifest, managed: str) -> list[str]:
    """Root-relative paths of the projected files a runtime should load (daily files excluded)."""
    live = [p for p in manifest.live_paths() if "/daily/" not in p]
    live.sort(key=lambda p: (_PRIORITY.get(p.rsplit("/", 1)[-1], 50), p))
    return [f"{managed}/{p}" for p in live]


def render_claude(current: str | None, paths: list[str] | None) -> str | None:
    """``CLAUDE.md`` with the owned block replaced (``paths=None`` removes it)."""
    text = current or ""
    start, end = text.find(CLAUDE_START), text.find(CLAUDE_END)
    if (start == -1) != (end == -1) or (start != -1 and end < start):
        raise ProjectionError(
            f"{CLAUDE_FILE}: the markers {CLAUDE_START} and {CLAUDE_END} must both be present, "
            "in that order; fix the file by hand"
        )
    block = ""
    if paths is not None:
        lines = [
            CLAUDE_START,
            "<!-- Written by cuecard wp wire: Data Machine memory projected from WordPress. -->",
            *(f"@{p}" for p in paths),
            CLAUDE_END,
        ]
        block = "\n".join(lines)
    if start != -1:
        after = text[end + len(CLAUDE_END) :]
        before = text[:start]
        if not block:
            before, after = before.rstrip("\n"), after.lstrip("\n")
            joined = before + ("\n\n" if before and after else "") + after
            return (joined.rstrip("\n") + "\n") if joined.strip() else ""
        return before + block + after
    if not block:
        return current
    prefix = text.rstrip("\n")
    return (prefix + "\n\n" if prefix else "") + block + "\n"


def render_opencode(
    current: str | None, owned: list[str], entries: list[str] | None
) -> tuple[str | None, list[str]]:
    """``opencode.json`` with our owned ``instructions`` entries replaced by ``entries``.

    Returns the new text and the entries now owned (those cuecard added; an entry the user had
    already listed stays theirs).
    """
    if current is None:
        data: dict[str, Any] = {}
    else:
        try:
            data = json.loads(current)
        except ValueError as exc:
            raise ProjectionError(
                f"{OPENCODE_FILE}: not valid JSON ({exc}); nothing changed"
            ) from None
        if not isinstance(data, dict):
            raise ProjectionError(f"{OPENCODE_FILE}: must hold a JSON object; nothing changed")
    instructions = data.get("instructions", [])
    if not isinstance(instructions, list):
        raise ProjectionError(f"{OPENCODE_FILE}: instructions must be a list; nothing changed")
    kept = [i for i in instructions if i not in owned]
    now_owned: list[str] = []
    for entry in (f"./{p}" for p in entries or []):
        if entry not in kept:
            kept.append(entry)
            now_owned.append(entry)
    if current is None and not now_owned:
        return None, []
    if kept:
        data["instructions"] = kept
    elif owned or "instructions" not in data:
        data.pop("instructions", None)  # the key held only cuecard's entries
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n", now_owned


def _text(root: SafeRoot, name: str) -> str | None:
    raw = root.read(name, top=True)
    return None if raw is None else raw.decode("utf-8")


def _write_claude(root: SafeRoot, manifest: Manifest, on: bool) -> None:
    current = _text(root, CLAUDE_FILE)
    paths = included_paths(manifest, root.managed) if on else None
    new = render_claude(current, paths)
    if new is not None and new != current:
        root.write(CLAUDE_FILE, new.encode("utf-8"), top=True)


def _write_opencode(root: SafeRoot, manifest: Manifest, on: bool) -> None:
    current = _text(root, OPENCODE_FILE)
    owned = manifest.wired.get("opencode-entries", [])
    paths = included_paths(manifest, root.managed) if on else None
    new, now_owned = render_opencode(current, owned, paths)
    if new is not None and new != current:
        if current is not None and root.read(OPENCODE_BACKUP, top=True) is None:
            root.write(OPENCODE_BACKUP, current.encode("utf-8"), top=True)
        root.write(OPENCODE_FILE, new.encode("utf-8"), top=True)
    if now_owned:
        manifest.wired["opencode-entries"] = now_owned
    else:
        manifest.wired.pop("opencode-entries", None)


def _opencode_on(manifest: Manifest) -> bool:
    return "opencode" in manifest.wired or "kimaki" in manifest.wired


def refresh(root: SafeRoot, manifest: Manifest) -> None:
    """Rewrite the owned blocks of every wired runtime (called when projected files change)."""
    if "claude" in manifest.wired:
        _write_claude(root, manifest, True)
    if _opencode_on(manifest):
        _write_opencode(root, manifest, True)


def wire(root: SafeRoot, manifest: Manifest, runtime: str) -> None:
    if runtime not in RUNTIMES:
        raise ProjectionError(f"runtime {runtime!r} must be one of {', '.join(RUNTIMES)}")
    manifest.wired[runtime] = []
    if runtime == "claude":
        _write_claude(root, manifest, True)
    else:
        _write_opencode(root, manifest, True)


def unwire(root: SafeRoot, manifest: Manifest, runtime: str) -> None:
    if runtime not in RUNTIMES:
        raise ProjectionError(f"runtime {runtime!r} must be one of {', '.join(RUNTIMES)}")
    manifest.wired.pop(runtime, None)
    if runtime == "claude":
        _write_claude(root, manifest, False)
    else:
        _write_opencode(root, manifest, _opencode_on(manifest))
