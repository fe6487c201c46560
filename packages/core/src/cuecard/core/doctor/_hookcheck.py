"""Whether installed harness hooks will run: the command resolves on this machine, and Codex
trusts them.

Stdlib only; shared by ``cuecard doctor`` (core) and the installers (the hooks package).

**The portable command.** A harness file a team commits holds no path of one machine: cuecard's
command there is :func:`portable_command`, which finds ``cuecard-hook`` on the PATH and is a
quiet no-op (exit 0, no output) on a machine without cuecard.

**Codex hook trust.** Codex runs a hook from a ``hooks.json`` only once that hook is trusted:
``[hooks.state."<key>"] trusted_hash = "<hash>"`` in the user's ``config.toml``, where the key
is ``<absolute path of hooks.json>:<event in snake case>:<group index>:<handler index>`` and the
hash is ``sha256:`` and the SHA-256 of the compact, key-sorted JSON of the hook's identity
``{"event_name", "hooks": [{"async", "command", "timeout", "type"}], "matcher"?}`` (Codex's
defaults filled: ``async`` false, ``timeout`` 600; no matcher for UserPromptSubmit and Stop).
Codex's own ``app-server`` (``hooks/list``) reports the same keys and hashes. Codex also skips a
project's ``.codex/`` folder altogether until the project is trusted (``[projects."<root>"]
trust_level = "trusted"``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MARK",
    "CodexHook",
    "Finding",
    "check_hooks",
    "codex_config_path",
    "codex_hash",
    "codex_hooks",
    "codex_project_trusted",
    "codex_trust_state",
    "command_resolves",
    "hook_commands",
    "plugin_commands",
    "plugin_resolves",
    "portable_command",
    "read_toml",
    "setup_steps",
]

MARK = "cuecard-hook"


def portable_command(harness: str, event: str) -> str:
    """The hook command for a committed file: ``cuecard-hook`` from the PATH when the PATH
    finds it at an absolute path, else nothing. An empty or relative PATH entry (``/usr/bin:``,
    ``node_modules/.bin``) would find a ``cuecard-hook`` the repository itself holds: that one
    never runs. No shell variable: Grok Build substitutes ``$NAME`` in a hook command itself, and
    refuses to run one that names a variable it does not know."""
    return (
        "sh -c 'case $(command -v cuecard-hook) in /*) "
        f'exec "$(command -v cuecard-hook)" {harness} {event};; esac\''
    )


# The portable command, and the one cuecard wrote before it required an absolute cuecard-hook.
_PORTABLE = re.compile(
    r"^sh -c '(?:case \$\(command -v cuecard-hook\) in /\*\) exec "
    r"|command -v cuecard-hook >/dev/null 2>&1 \|\| exit 0; exec )"
)


def command_resolves(command: str, path: str | None = None) -> tuple[bool, str]:
    """Whether ``command`` (a cuecard hook command) runs ``cuecard-hook`` on this machine, and
    what it runs (the file found, or the reason)."""
    if _PORTABLE.match(command):
        found = shutil.which(MARK, path=path)
        if found and not os.path.isabs(found):
            return False, f"{MARK} is found at {found}, not an absolute path: it is not run"
        return (True, found) if found else (False, f"{MARK} is not on the PATH")
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return False, "the command is not valid shell"
    if not words:
        return False, "the command is empty"
    program = words[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if os.path.isfile(program) and os.access(program, os.X_OK):
            return True, program
        return False, f"{program} does not exist or is not executable"
    found = shutil.which(program, path=path)
    return (True, found) if found else (False, f"{program} is not on the PATH")


def hook_commands(config: Any) -> list[str]:
    """The commands of cuecard's hooks in a harness's JSON hook configuration."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    out: list[str] = []
    for groups in (hooks or {}).values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and MARK in command:
                    out.append(command)
    return out


# The line of the OpenCode plugin (``cuecard install opencode``) that names what it runs.
_PLUGIN_COMMAND = re.compile(r'^const CUECARD_HOOK = ("(?:[^"\\\n]|\\.)*");[ \t]*$', re.M)


def plugin_commands(text: str) -> list[str]:
    """What the OpenCode plugin ``text`` (``cuecard install opencode``) runs: its
    ``CUECARD_HOOK``, a bare name or a path (none when the line is missing or not a string)."""
    found = _PLUGIN_COMMAND.search(text)
    try:
        program = json.loads(found.group(1)) if found else None
    except ValueError:
        program = None
    return [program] if isinstance(program, str) and program else []


def plugin_resolves(program: str, path: str | None = None) -> tuple[bool, str]:
    """``command_resolves`` for the OpenCode plugin's program, judged as the plugin runs it: a
    bare name is looked up in the PATH's absolute entries only, an absolute path is run as it is,
    a relative path never runs."""
    if os.path.isabs(program):
        return command_resolves(shlex.quote(program), path)
    if os.sep in program or (os.altsep and os.altsep in program):
        return False, f"{program} is a relative path: the plugin never runs it"
    found = shutil.which(program, path=path)
    if found and not os.path.isabs(found):
        return False, f"{program} is found at {found}, not an absolute path: it is not run"
    return (True, found) if found else (False, f"{program} is not on the PATH")


# -- Codex ----------------------------------------------------------------------------------------


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


# Events whose matcher Codex leaves out of the hash (it does not apply a matcher there).
_NO_MATCHER = frozenset({"user_prompt_submit", "stop"})


@dataclass(frozen=True)
class CodexHook:
    """One of cuecard's hooks as Codex identifies it."""

    key: str
    hash: str
    event: str


def codex_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """Codex's hash of one command hook (``event`` in snake case)."""
    identity: dict[str, Any] = {
        "event_name": event,
        "hooks": [
            {
                "async": bool(handler.get("async", False)),
                "command": str(handler["command"]),
                "timeout": int(handler.get("timeout", 600)),
                "type": "command",
            }
        ],
    }
    if matcher is not None and event not in _NO_MATCHER:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def codex_hooks(hooks_file: Path, config: Any) -> list[CodexHook]:
    """cuecard's hooks in ``config`` (the parsed ``hooks_file``), with Codex's keys and hashes."""
    hooks = config.get("hooks") if isinstance(config, dict) else None
    out: list[CodexHook] = []
    if not isinstance(hooks, dict):
        return out
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        name = _snake(str(event))
        for group_index, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            for handler_index, handler in enumerate(handlers):
                if not isinstance(handler, dict) or MARK not in str(handler.get("command", "")):
                    continue
                matcher = group.get("matcher")
                digest = codex_hash(name, matcher if isinstance(matcher, str) else None, handler)
                key = f"{hooks_file}:{name}:{group_index}:{handler_index}"
                out.append(CodexHook(key, digest, str(event)))
    return out


def codex_config_path(home: Path, environ: dict[str, str] | None = None) -> Path:
    """The user's Codex ``config.toml`` (``$CODEX_HOME``, else ``~/.codex``)."""
    env = os.environ if environ is None else environ
    base = env.get("CODEX_HOME")
    return (Path(base) if base else home / ".codex") / "config.toml"


def read_toml(path: Path) -> dict[str, Any]:
    """``path`` parsed (an empty table when it does not exist); ``ValueError`` when it cannot be
    read or parsed."""
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None


def codex_trust_state(config: dict[str, Any], hooks: list[CodexHook]) -> dict[str, str]:
    """Each hook's trust in the parsed Codex ``config``: ``trusted``, ``untrusted`` or
    ``stale`` (trusted for another version of the hook)."""
    state = config.get("hooks", {}).get("state", {}) if isinstance(config, dict) else {}
    out: dict[str, str] = {}
    for hook in hooks:
        entry = state.get(hook.key) if isinstance(state, dict) else None
        trusted = entry.get("trusted_hash") if isinstance(entry, dict) else None
        if trusted == hook.hash:
            out[hook.key] = "trusted"
        else:
            out[hook.key] = "stale" if isinstance(trusted, str) else "untrusted"
    return out


def codex_project_trusted(config: dict[str, Any], root: Path) -> bool:
    """Whether Codex loads ``root``'s ``.codex/`` folder (the project or a parent is trusted)."""
    projects = config.get("projects") if isinstance(config, dict) else None
    if not isinstance(projects, dict):
        return False
    for folder in (root, *root.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


# -- doctor ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One thing ``cuecard doctor`` reports about installed hooks."""

    problem: bool
    message: str
    hint: str


def _hook_file(hook: dict[str, str], root: Path | None) -> str:
    """The text of an installed hook's file: a project's through the confined layer (no link
    or FIFO at any depth), the person's own home configuration as it is kept."""
    from cuecard.core.doctor._installed_hooks import hook_text

    path = Path(hook["file"])
    if hook["scope"] == "project" and root is not None:
        return hook_text("project", root, path.relative_to(root).as_posix())
    return path.read_text(encoding="utf-8")


def check_hooks(
    hooks: list[dict[str, str]],
    root: Path | None,
    home: Path,
    environ: dict[str, str] | None = None,
) -> list[Finding]:
    """Whether the installed hooks (``{harness, scope, file}``, as doctor finds them) run here:
    each command resolves on this machine; Codex trusts each hook and loads the project; Grok
    Build trusts the project's folder."""
    env = os.environ if environ is None else environ
    out: list[Finding] = []
    for hook in hooks:
        path = Path(hook["file"])
        try:
            text = _hook_file(hook, root)
            config = json.loads(text) if path.suffix == ".json" else None
        except (OSError, ValueError):
            continue  # doctor reports an unreadable file already
        if path.suffix == ".json":
            results = [command_resolves(c, env.get("PATH")) for c in hook_commands(config)]
        else:
            results = [plugin_resolves(p, env.get("PATH")) for p in plugin_commands(text)]
        failing = {reason for ok, reason in results if not ok}
        for reason in sorted(failing):
            out.append(
                Finding(
                    True,
                    f"{path}: the hooks do not run cuecard here: {reason}",
                    "install cuecard as a tool so that cuecard-hook is on the PATH (see the "
                    "README), or run `cuecard install` again",
                )
            )
        if hook["harness"] == "codex":
            out += _codex_findings(path, config, hook["scope"], root, home, env)
        if hook["harness"] == "grok":
            from cuecard.core.doctor._groktrust import grok_findings

            out += [Finding(*f) for f in grok_findings(hook["scope"], root, home, dict(env))]
    return out


def _codex_findings(
    path: Path,
    config: Any,
    scope: str,
    root: Path | None,
    home: Path,
    env: Any,
) -> list[Finding]:
    config_path = codex_config_path(home, dict(env))
    try:
        codex = read_toml(config_path)
    except ValueError as exc:
        return [Finding(True, f"Codex's configuration: {exc}", "fix it; Codex cannot start")]
    out: list[Finding] = []
    states = codex_trust_state(codex, codex_hooks(path, config))
    untrusted = sum(1 for s in states.values() if s == "untrusted")
    stale = sum(1 for s in states.values() if s == "stale")
    if untrusted or stale:
        counted = ((untrusted, "untrusted"), (stale, "trusted for an older version"))
        parts = [f"{n} {what}" for n, what in counted if n]
        out.append(
            Finding(
                True,
                f"{path}: Codex skips cuecard's hooks it does not trust ({', '.join(parts)} of "
                f"{len(states)})",
                "`cuecard install codex` records the trust (or review them in Codex: /hooks)",
            )
        )
    if scope == "project" and root is not None and not codex_project_trusted(codex, root):
        out.append(
            Finding(
                True,
                f"Codex does not load {root}/.codex/: the project is not trusted in {config_path}",
                f'add [projects.{json.dumps(str(root))}] trust_level = "trusted" there, or '
                "answer yes when Codex asks",
            )
        )
    return out


# -- status ---------------------------------------------------------------------------------------


def setup_steps(
    root: Path, home: Path, environ: dict[str, str] | None = None
) -> list[dict[str, str]]:
    """What this person must run before the project's committed Codex and Grok Build hooks run here,
    and Claude Code's in a subfolder (``{harness, reason, run}``), for ``cuecard status``. Codex and
    Grok Build record trust by absolute path: a clone at another path (a teammate's, a second
    checkout) is not trusted, and Codex's trust of each hook is for one version of
    ``.codex/hooks.json``, so a changed file goes silent too. Codex says nothing of an untrusted
    hook and Grok Build nothing of an untrusted folder, so ``status`` says it, with the command that
    records the trust. Claude Code reads the committed ``.claude/settings.json`` only when started
    at the root, and a clone lacks the git-ignored copy of its hooks that ``cuecard install claude``
    makes."""
    from cuecard.core.doctor._installed_hooks import installed_hooks

    env = dict(os.environ if environ is None else environ)
    hooks, _ = installed_hooks(root, None)
    out: list[dict[str, str]] = []
    for hook in hooks:
        harness = hook["harness"]
        reasons: list[str] = []
        if harness == "codex":
            path = Path(hook["file"])
            try:
                config = json.loads(_hook_file(hook, root))
                codex = read_toml(codex_config_path(home, env))
            except (OSError, ValueError):
                continue  # doctor names the file
            states = codex_trust_state(codex, codex_hooks(path, config)).values()
            if "untrusted" in states:
                reasons.append(
                    f"Codex does not run cuecard's hooks in {path}: their trust is recorded by "
                    "the file's absolute path, and none is recorded for this one (a clone at "
                    "another path, or a first install here)"
                )
            elif "stale" in states:
                reasons.append(
                    f"Codex does not run cuecard's hooks in {path}: the file changed since their "
                    "trust was recorded here"
                )
        elif harness == "grok":
            from cuecard.core.doctor._groktrust import grok_findings

            reasons += [
                message + " (Grok Build records trust by the folder's absolute path)"
                for problem, message, _ in grok_findings("project", root, home, env)
                if problem
            ]
        out += [{"harness": harness, "reason": r, "run": f"cuecard install {harness}"}
                for r in reasons]  # fmt: skip
    claude = {Path(h["file"]).name for h in hooks if h["harness"] == "claude"}
    mine = installed_hooks(None, home)[0]
    if claude == {"settings.json"} and not any(h["harness"] == "claude" for h in mine):
        out.append({
            "harness": "claude",
            "reason": (
                "Claude Code started in a subfolder of the project runs none of the hooks in "
                f"{root / '.claude' / 'settings.json'}: it reads that file only in the folder it "
                "starts in (anthropics/claude-code#86187), and says nothing; the git-ignored "
                "settings.local.json beside it, read from every subfolder, has none of "
                "cuecard's hooks"
            ),
            "run": "cuecard install claude",
        })  # fmt: skip
    return out
