"""Project memories inside DSH: its Claude Code hook bridge (``@deepseek-ai/dsh-hooks-claude-code``)
runs cuecard's hook at SessionStart, UserPromptSubmit, PostToolUse and Stop.

The bridge drops ``additionalContext`` at PreToolUse (it acts on deny and ask only), so a memory
printed there never reaches the model while cuecard's ledger would count it as delivered. cuecard
therefore runs nothing at PreToolUse in DSH: after each tool call, ``python -I -m
cuecard.dsh_adapter hook PostToolUse`` asks ``cuecard-hook`` for the tool's trigger memories (its
PreToolUse answer) and for the PostToolUse reply (footprint, proposal ingestion), and hands both
to the bridge as PostToolUse ``additionalContext``, which the bridge attaches to the tool result
the model reads next (``merge``).

DSH names its tools in lower case (``read``, ``write``, ``edit``, ``bash``, ``grep``, ``glob``),
which ``cuecard-hook claude`` reads as they are; ``str_replace_editor`` takes its kind from its
``command`` and is translated here (``translate``). The bridge's matchers are case-sensitive
unanchored regexes, so they are written anchored.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cuecard.dsh_adapter._errors import DshAdapterError

__all__ = [
    "BRIDGE_PACKAGES",
    "HOOK_ENV",
    "PATCH_BEGIN",
    "PATCH_END",
    "drop_patch_rows",
    "hook_command",
    "hooks_config",
    "merge",
    "own_prompt",
    "patch_rows",
    "put_patch_rows",
    "translate",
]

BRIDGE_PACKAGES = (
    "@deepseek-ai/dsh-hooks-claude-code@0.0.1-rc.5",
    "@deepseek-ai/dsh-hook-protocol@0.0.1-rc.1",
)
TOOLS = "^(read|write|edit|bash|grep|glob|str_replace_editor)$"
PATCH_BEGIN = (
    "# cuecard:begin (written by `cuecard dsh install --hooks`; edits inside are replaced)"
)
PATCH_END = "# cuecard:end"
TIMEOUT_S = 30
_EDITOR = {"view": "read", "create": "write", "str_replace": "edit", "insert": "edit"}


def _write_response(response: Any) -> Any:
    """DSH's ``write`` result text (``Created file`` / ``Updated file``) as Claude Code's
    ``{"type": "create"|"update"}``, which tells cuecard whether the write made a new file."""
    if isinstance(response, str):
        if "\nCreated file\n" in response:
            return {"type": "create", "text": response}
        if "\nUpdated file\n" in response:
            return {"type": "update", "text": response}
    return response


def _bash_exit_code(args: Any, response: Any) -> int | None:
    """The exit code of a finished DSH ``bash`` call, read from its result text: DSH appends
    ``[exit code: N]`` after a non-zero exit and nothing after a zero one; a timeout, a signal
    or a sandbox denial ends in a bracketed marker of its own (unknown here), and a call run in
    the background has not finished."""
    if not isinstance(response, str) or not response:
        return None
    if isinstance(args, Mapping) and args.get("run_in_background") is True:
        return None
    last = response.rstrip("\n").rsplit("\n", 1)[-1]
    found = re.fullmatch(r"\[exit code: (-?\d+)\]", last)
    if found:
        return int(found.group(1))
    if re.match(r"\[(timed out|killed by signal|sandbox)", last) or response.startswith("Error:"):
        return None
    return 0


def translate(payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` with a ``str_replace_editor`` call turned into read, write or edit, a
    ``write`` result in the shape cuecard reads, and a ``bash`` call's exit code (``exit_code``)
    when its result text tells it: DSH marks only a failure, so without this a passing command
    is of unknown outcome and a fixed failure is never evidence worth asking about at Stop."""
    out = dict(payload)
    if out.get("tool_name") == "write" and "tool_response" in out:
        out["tool_response"] = _write_response(out["tool_response"])
    if out.get("tool_name") == "bash" and "exit_code" not in out:
        code = _bash_exit_code(out.get("tool_input"), out.get("tool_response"))
        if code is not None:
            out["exit_code"] = code
    if out.get("tool_name") != "str_replace_editor":
        return out
    args = out.get("tool_input")
    args = args if isinstance(args, Mapping) else {}
    tool = _EDITOR.get(str(args.get("command", "")), "read")
    mapped: dict[str, Any] = {"file_path": args.get("path", "")}
    if tool == "write":
        mapped["content"] = args.get("file_text", "")
    elif tool == "edit":
        mapped["old_string"] = args.get("old_str", "")
        mapped["new_string"] = args.get("new_str", args.get("file_text", ""))
    out["tool_name"] = tool
    out["tool_input"] = mapped
    return out


def own_prompt(prompt: str, handed: Sequence[str]) -> bool:
    """Whether ``prompt`` holds nothing but contexts cuecard handed the bridge at PostToolUse.

    DSH puts a PostToolUse ``additionalContext`` in the agent's inbox as a message, and the
    bridge runs UserPromptSubmit at every step that claims a message, with the claimed text as
    the prompt. Such a "prompt" is cuecard's own delivery, not the user's: taken as one, it
    would start a new turn in the middle of the agent's work (so a failure fixed across it is
    never evidence at Stop) and be read for corrections and keywords."""
    rest = prompt
    for text in handed:
        if text:
            rest = rest.replace(text, "", 1)
    return bool(prompt.strip()) and not rest.strip()


HOOK_ENV = "CUECARD_DSH_HOOK"
"""The variable naming the host's hook address file, set by the plugins in the host process (and
so inherited by the bridge's shells): ``PORT SECRET`` of the loopback listener that hands an
event to the plugins' worker."""


def hook_command(python: Path, event: str) -> str:
    """The bridge's command for ``event``: bash hands the payload to the plugins' worker over
    loopback (``/dev/tcp``: builtins only, so no interpreter starts, and a folder that has not
    opted in costs the worker one lookup); with no worker address, or none listening, it runs
    ``python -I -m cuecard.dsh_adapter hook EVENT`` instead. The bridge runs it with ``bash -c``
    in the session folder."""
    fallback = f"{shlex.quote(str(python))} -I -m cuecard.dsh_adapter hook {event}"
    return (
        f'h=${{{HOOK_ENV}-}}; if [ -n "$h" ] && read -r p s < "$h" 2>/dev/null; then '
        "IFS= read -r -d '' b; "
        f"if {{ printf '%s {event}\\n%s\\n' \"$s\" \"$b\" >&3 && IFS= read -r -d '' a <&3; "
        'printf %s "$a"; } 2>/dev/null 3<>"/dev/tcp/127.0.0.1/$p"; then exit 0; fi; '
        f'printf %s "$b" | {fallback}; exit 0; fi; exec {fallback}'
    )


def hooks_config(python: Path, *, prompt: bool = False) -> dict[str, Any]:
    """A Claude Code ``hooks.json`` for the bridge: every event through ``hook_command`` (which
    answers as ``cuecard dsh hook EVENT`` does: PostToolUse delivers the tool's memories too);
    nothing at PreToolUse (see the module).

    UserPromptSubmit only with ``prompt``: the discipline plugin gives a prompt's memories
    itself, at the steps that claim a message a person typed, through the running worker. The
    bridge would run a shell at every step that claims any message, the one DSH makes of each
    PostToolUse delivery included (``cuecard dsh hook`` then skips a step whose messages are
    only cuecard's own, see ``own_prompt``). So ``prompt`` is for a profile without the
    discipline plugin.

    The bridge runs each command through a shell in the session folder, a repository the agent
    works in: Python, when it starts, starts in isolated mode (``-I``), so nothing there is
    importable."""

    def entry(event: str) -> dict[str, Any]:
        return {"type": "command", "command": hook_command(python, event), "timeout": TIMEOUT_S}

    hooks: dict[str, Any] = {"SessionStart": [{"hooks": [entry("SessionStart")]}]}
    if prompt:
        hooks["UserPromptSubmit"] = [{"hooks": [entry("UserPromptSubmit")]}]
    hooks["PostToolUse"] = [{"matcher": TOOLS, "hooks": [entry("PostToolUse")]}]
    hooks["Stop"] = [{"hooks": [entry("Stop")]}]
    return {"hooks": hooks}


def merge(*answers: str) -> dict[str, Any] | None:
    """One PostToolUse answer holding the ``additionalContext`` of each ``cuecard-hook`` answer
    (a PreToolUse and a PostToolUse one), in order; ``None`` when there is none.

    The bridge keeps event-specific fields only when ``hookEventName`` is the firing event, so
    the merged answer names PostToolUse."""
    texts: list[str] = []
    for answer in answers:
        try:
            value = json.loads(answer) if answer.strip() else None
        except ValueError:
            continue
        specific = value.get("hookSpecificOutput") if isinstance(value, dict) else None
        text = specific.get("additionalContext") if isinstance(specific, dict) else None
        if isinstance(text, str) and text.strip():
            texts.append(text.strip())
    if not texts:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "\n\n".join(texts),
        }
    }


def patch_rows(config_path: Path) -> str:
    """The user-layer patch rows that mount the bridge on ``config_path`` (between markers)."""
    return "\n".join(
        [
            PATCH_BEGIN,
            "- insert:",
            "    - id: cuecard-hooks",
            "      name: '@deepseek-ai/dsh-hooks-claude-code'",
            "      config:",
            f"        configPath: {json.dumps(str(config_path))}",
            PATCH_END,
        ]
    )


def drop_patch_rows(text: str) -> str:
    """A profile's ``cordis.patch.yml`` without cuecard's rows (the text itself if it has none)."""
    if PATCH_BEGIN not in text and PATCH_END not in text:
        return text
    start, stop = text.find(PATCH_BEGIN), text.find(PATCH_END)
    if text.count(PATCH_BEGIN) != 1 or text.count(PATCH_END) != 1 or stop < start:
        raise DshAdapterError("cordis.patch.yml: cuecard's markers are broken; fix it by hand")
    rest = text[:start] + text[stop + len(PATCH_END) :].removeprefix("\n")
    return rest if rest.strip() else "[]\n"


def put_patch_rows(text: str, rows: str) -> str:
    """A profile's ``cordis.patch.yml`` with cuecard's rows put in (replacing earlier ones)."""
    if PATCH_BEGIN in text or PATCH_END in text:
        start, stop = text.find(PATCH_BEGIN), text.find(PATCH_END)
        if text.count(PATCH_BEGIN) != 1 or text.count(PATCH_END) != 1 or stop < start:
            raise DshAdapterError("cordis.patch.yml: cuecard's markers are broken; fix it by hand")
        return text[:start] + rows + text[stop + len(PATCH_END) :]
    lines = text.splitlines()
    content = [
        i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")
    ]
    if not content:
        return text.rstrip("\n") + ("\n" if text.strip() else "") + rows + "\n"
    if [lines[i].strip() for i in content] == ["[]"]:  # the empty list DSH writes, comments kept
        lines[content[0]] = rows
        return "\n".join(lines) + "\n"
    if lines[content[0]].lstrip().startswith("["):
        raise DshAdapterError(
            "cordis.patch.yml: a flow-style list ([...]) cannot be extended safely; "
            "rewrite it as a block list (one `- ` row per line)"
        )
    return text.rstrip("\n") + "\n" + rows + "\n"
