"""From a harness's tool call to a trigger event. Pure functions over the payload; stdlib only.

Every harness names its tools and their arguments its own way (Claude Code and Grok Build:
``Edit`` with ``file_path``; OpenCode: ``edit`` with ``filePath``; Codex: ``apply_patch`` with the
patch text in ``command``). :func:`tool_call` reads any of them into one :class:`Call`: the
normalised tool, the event kind, the paths, and what a check needs to judge an edit.
"""

from __future__ import annotations

import os
import re

# collections.abc's Mapping, from the module the interpreter has loaded at startup:
# importing collections.abc costs the hook process 0.15 ms.
from _collections_abc import Mapping

TYPE_CHECKING = False  # typing and dataclasses cost a hook process more than its work
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    _ContentsBase = Mapping[str, Any]
else:
    _ContentsBase = Mapping

__all__ = ["Call", "Contents", "command_text", "patch_files", "tool_call"]

# Tool name (lowercased) -> normalised tool. Unknown tools (web, todo, MCP…) make no event.
_TOOLS: dict[str, str] = {
    "read": "read",
    "read_file": "read",
    "view": "read",
    "notebookread": "read",
    "ls": "list",
    "list": "list",
    "list_dir": "list",
    "write": "write",
    "write_file": "write",
    "create": "write",
    "edit": "edit",
    "edit_file": "edit",
    "str_replace": "edit",
    "search_replace": "edit",
    "multiedit": "multiedit",
    "notebookedit": "notebook",
    "grep": "grep",
    "grep_search": "grep",
    "search": "grep",
    "glob": "glob",
    "find": "glob",
    "bash": "shell",
    "shell": "shell",
    "local_shell": "shell",
    "exec_command": "shell",
    "run_terminal_cmd": "shell",
    "run_terminal_command": "shell",  # Grok Build
    "run_command": "shell",
    "run_shell_command": "shell",
    "apply_patch": "patch",
    "applypatch": "patch",
    "patch": "patch",
}
# Patterns, compiled on first use (``re``'s own cache): a hook process compiles only those its
# tool call needs.
_PATCH_HEADER = r"(?m)^\*\*\* (Add File|Update File|Delete File|Move to): (.+?)\s*$"
_GLOB_CHARS = r"[*?\[{]"
_MAX_SYMBOLS = 48
# An identifier-like word: an ASCII letter, ``_`` or ``$``, then 2 to 63 more of those or digits.
# Found without a pattern (compiling one costs a hook process more than reading an Edit): every
# other character becomes a space, in one ``bytes.translate``.
_WORD_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"
_OTHER_BYTES = bytes(range(256)).translate(None, _WORD_CHARS)
_TO_SPACE = bytes.maketrans(_OTHER_BYTES, b" " * len(_OTHER_BYTES))
_MAX_READ = 1024 * 1024  # files larger than this are read as their first _JUDGED bytes only
_JUDGED = 256 * 1024  # what a check judges of a file (core.engine._checks.JUDGED_BYTES)
_MAX_EDITS = 500  # a MultiEdit with more edits gets no after-the-edit content either


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _first(args: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def command_text(args: Any) -> str:
    """The shell command of a shell tool's arguments (a string, or an argv such as
    ``["bash", "-lc", "…"]``)."""
    value = args.get("command", args.get("cmd", "")) if isinstance(args, Mapping) else args
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        shell = len(value) >= 3 and os.path.basename(value[0]) in {"bash", "sh", "zsh"}
        if shell and value[1] in {"-c", "-lc", "-ic"}:
            return str(value[2])
        return " ".join(value)
    return value if isinstance(value, str) else ""


def patch_files(patch: str) -> list[tuple[str, str, str | None]]:
    """The files an ``apply_patch`` text names: ``(path, action, added content)``.

    ``action`` is ``add``, ``update``, ``delete`` or ``move``; ``added content`` is the new
    file's text for an ``Add File`` (the ``+`` lines), else ``None``.
    """
    found: list[tuple[str, str, str | None]] = []
    headers = list(re.finditer(_PATCH_HEADER, patch))
    for i, match in enumerate(headers):
        action = match.group(1).split()[0].lower()
        added = None
        if action == "add":
            end = headers[i + 1].start() if i + 1 < len(headers) else len(patch)
            body = patch[match.end() : end].split("\n*** End Patch", 1)[0]
            added = "".join(line[1:] + "\n" for line in body.splitlines() if line.startswith("+"))
        found.append((match.group(2), action, added))
    return found


def _symbols(*texts: str) -> tuple[str, ...]:
    """The identifier-like words of ``texts`` (the first 20,000 characters of each), each once,
    at most ``_MAX_SYMBOLS``: what ``re.findall(r"[A-Za-z_$][A-Za-z0-9_$]{2,63}", text)`` finds
    (a run of word characters loses its leading digits and is cut every 64 characters)."""
    seen: dict[str, None] = {}
    for text in texts:
        for run in text[:20_000].encode("ascii", "replace").translate(_TO_SPACE).split():
            while run:
                run = run.lstrip(b"0123456789")
                if len(run) >= 3:
                    seen.setdefault(run[:64].decode("ascii"), None)
                    if len(seen) >= _MAX_SYMBOLS:
                        return tuple(seen)
                run = run[64:]
    return tuple(seen)


def _glob_dir(pattern: str) -> str:
    """The literal folder a glob pattern starts with (``src/x/**/*.py`` → ``src/x``)."""
    parts = pattern.replace("\\", "/").split("/")
    literal = []
    for part in parts[:-1]:
        if re.search(_GLOB_CHARS, part):
            break
        literal.append(part)
    return "/".join(literal)


class Contents(_ContentsBase):
    """Each path's content before or after an edit, computed only when a check asks.

    ``len`` and iteration name the paths without reading anything, so the engine pays for the
    file read only when an edit check may judge the change.
    """

    def __init__(self, paths: tuple[str, ...], load: Callable[[str], tuple[str | None, str]],
                 which: int) -> None:  # fmt: skip
        self._paths = paths
        self._load = load
        self._which = which

    def __getitem__(self, path: str) -> Any:
        if path not in self._paths:
            raise KeyError(path)
        return self._load(path)[self._which]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


class Call:
    """A tool call as cuecard sees it."""

    __slots__ = ("added", "command", "content", "edits", "hunks", "kind", "patterns", "raw_paths",
                 "symbols", "tool")  # fmt: skip

    def __init__(
        self,
        tool: str,
        kind: str,
        raw_paths: list[str] | None = None,
        *,
        command: str = "",
        patterns: list[str] | None = None,
        symbols: tuple[str, ...] = (),
        edits: list[tuple[str, str, bool]] | None = None,
        content: str | None = None,
        added: dict[str, str] | None = None,
        hunks: dict[str, list[Any]] | None = None,
    ) -> None:
        self.tool = tool
        """The normalised tool: read, list, write, edit, multiedit, notebook, grep, glob, shell,
        patch."""
        self.kind = kind
        """The event kind: read, edit, write, run or search (shell commands are classified
        later)."""
        self.raw_paths = raw_paths or []
        """Paths as the harness gave them (absolute, relative or Windows-style)."""
        self.command = command
        self.patterns = patterns or []
        self.symbols = symbols
        self.edits = edits or []
        """For edits: ``(old, new, replace_all)`` in order."""
        self.content = content
        """For a whole-file write: the new content."""
        self.added = added or {}
        """For a patch: the content of each added file, by raw path."""
        self.hunks = hunks or {}
        """For a patch: the hunks of each updated file (``_patch.Hunk``), by raw path."""


def tool_call(name: Any, args: Any) -> Call | None:
    """Read one tool call, or ``None`` for a tool that makes no event."""
    if not isinstance(name, str):
        return None
    tool = _TOOLS.get(name.strip().lower())
    if tool is None:
        return None
    if tool in _COMMAND_READERS:  # the arguments may be the patch or command itself
        return _COMMAND_READERS[tool](args)
    if not isinstance(args, Mapping):
        return None
    path = _first(args, "file_path", "filePath", "notebook_path", "notebookPath", "path",
                  "filename", "target_file")  # fmt: skip
    return _READERS[tool](tool, args, path)


def _patch_call(args: Any) -> Call | None:
    patch = args if isinstance(args, str) else command_text(args)
    if not patch and isinstance(args, Mapping):
        patch = _first(args, "patch", "patchText", "input")
    files = patch_files(patch)
    if not files:
        return None
    kind = "write" if all(a in ("add", "move") for _, a, _ in files) else "edit"
    added = {p: c for p, a, c in files if a == "add" and c is not None}
    hunks = _update_hunks(patch) if any(a == "update" for _, a, _ in files) else {}
    return Call("patch", kind, [p for p, _, _ in files], added=added, hunks=hunks)


def _shell_call(args: Any) -> Call | None:
    command = command_text(args)
    return Call("shell", "run", command=command) if command.strip() else None


def _read_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    return Call(tool, "read", [path]) if path else None


def _grep_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    pattern = _first(args, "pattern", "query", "regex")
    glob = _first(args, "glob", "include")
    paths = [path] if path else []
    if not path and glob and _glob_dir(glob):
        paths = [_glob_dir(glob)]
    return Call("grep", "search", paths, patterns=[p for p in (pattern, glob) if p],
                symbols=_symbols(pattern))  # fmt: skip


def _glob_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    pattern = _first(args, "pattern", "glob")
    folder = _glob_dir(pattern)
    joined = f"{path.rstrip('/')}/{folder}" if path and folder else path or folder
    return Call("glob", "search", [joined] if joined else [], patterns=[pattern] if pattern
                else [])  # fmt: skip


def _notebook_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    return Call("notebook", "edit", [path]) if path else None


def _write_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    return Call("write", "write", [path], content=_text(args.get("content"))) if path else None


def _edit_call(tool: str, args: Mapping[str, Any], path: str) -> Call | None:
    if not path:
        return None
    edits = args.get("edits") if tool == "multiedit" else [args]
    pairs: list[tuple[str, str, bool]] = []
    for edit in edits if isinstance(edits, list) else []:
        if isinstance(edit, Mapping):
            old = _text(edit.get("old_string", edit.get("oldString")))
            new = _text(edit.get("new_string", edit.get("newString")))
            every = edit.get("replace_all", edit.get("replaceAll")) is True
            pairs.append((old, new, every))
    symbols = _symbols(*(t for pair in pairs for t in pair[:2]))
    return Call(tool, "edit", [path], edits=pairs, symbols=symbols)


# Normalised tool -> the reader of its arguments: a patch or shell command may be given bare;
# the other tools take a mapping, whose path is read first.
_COMMAND_READERS: dict[str, Callable[[Any], Call | None]] = {
    "patch": _patch_call,
    "shell": _shell_call,
}
_READERS: dict[str, Callable[[str, Mapping[str, Any], str], Call | None]] = {
    "read": _read_call,
    "list": _read_call,
    "grep": _grep_call,
    "glob": _glob_call,
    "notebook": _notebook_call,
    "write": _write_call,
    "edit": _edit_call,
    "multiedit": _edit_call,
}


def read_text(path: str) -> str | None:
    """A file's text, or ``None`` when it is missing, unreadable or not a regular file (a FIFO,
    a device). Of a file larger than 1 MB only the first 256 KB, the part a check judges."""
    from cuecard.core.engine import open_regular

    fd = open_regular(path, follow_links=True)  # never blocks on a FIFO or reads a device
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(_MAX_READ + 1)
    except OSError:
        return None
    if len(data) > _MAX_READ:
        data = data[:_JUDGED]
    return data.decode("utf-8", "replace")


def _update_hunks(patch: str) -> dict[str, list[Any]]:
    from cuecard.hooks._patch import update_hunks

    return dict(update_hunks(patch))


def _after_patch(call: Call, before: str | None, raw_path: str) -> str | None:
    """An added file's content, or an updated file's with the patch's hunks applied to it."""
    if raw_path in call.added:
        return call.added[raw_path]
    hunks = call.hunks.get(raw_path)
    if before is None or not hunks:
        return None
    from cuecard.hooks._patch import apply_hunks

    return apply_hunks(before, hunks)


def after_edit(call: Call, before: str | None, raw_path: str) -> str | None:
    """The file's content once ``call`` is applied to ``before`` (``None``: cannot tell)."""
    if call.tool == "write":
        return call.content
    if call.tool == "patch":
        return _after_patch(call, before, raw_path)
    if before is None or call.tool not in ("edit", "multiedit") or len(call.edits) > _MAX_EDITS:
        return None
    text = before
    for old, new, every in call.edits:
        if not old or old not in text:
            return before  # the tool will refuse this edit; nothing changes
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return text
