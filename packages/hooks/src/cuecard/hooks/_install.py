"""Installers: write (or remove) a harness's configuration so that it runs ``cuecard-hook``.

What each harness gets (``--user`` puts it in the person's home instead of the project):

===========  ===========================================  ==========================================
harness      hooks                                         skills (cuecard-save, cuecard-review)
===========  ===========================================  ==========================================
claude       ``.claude/settings.json`` (merged), or a      ``.claude/skills/<name>/SKILL.md``
             plugin folder (``.claude-plugin/plugin.json``
             and ``hooks/hooks.json``) with ``--plugin``
codex        ``.codex/hooks.json`` (merged)                ``.codex/skills/<name>/SKILL.md``
opencode     ``.opencode/plugins/cuecard.js`` (the plugin)  ``.opencode/skills/<name>/SKILL.md``
grok         ``.grok/hooks/cuecard.json``                  ``.grok/skills/<name>/SKILL.md``
===========  ===========================================  ==========================================

Merging (``cuecard.hooks._hook_config``) keeps every hook that is not cuecard's and replaces
cuecard's own (a command that runs ``cuecard-hook``), so installing twice changes nothing. A file
that changes is first copied (``backup_path``: in a git work tree, under ``.git/cuecard/backups/``,
out of the tree; elsewhere ``<file>.cuecard.bak``), and uninstalling puts that copy back when
nothing else changed; a file only cuecard's entries were in, and a folder it alone made, go.

A project's files are committed and shared, so they hold no path of this machine: the command
there is ``cuecard.core.harnesses.portable_command`` (``cuecard-hook`` from the PATH, a quiet
no-op where cuecard is not installed). A path given with ``--hook-command`` is this machine's:
for Claude Code it goes to the git-ignored ``.claude/settings.local.json`` (which, without it,
gets the same portable hooks as ``settings.json``: Claude Code started in a subfolder reads only
that one of the two); Codex, OpenCode and
Grok Build have no git-ignored hook file of their own in a project, so there it is refused
(``--user`` takes it). The user's own files (``--user``) run the installed ``cuecard-hook`` by
its path. A path is quoted, so spaces and
Windows-style paths survive the harness's shell.

``install codex`` records Codex's trust for exactly the hooks it wrote, by their current hash
(``cuecard.hooks._trust``), unless ``trust=False``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from cuecard.core import UsageError
from cuecard.core.fs import Tree, atomic_write
from cuecard.hooks._errors import InstallError
from cuecard.hooks._hook_config import (
    EVENTS,
    MARK,
    default_hook_path,
    hook_command,
    merge_hooks,
    quote_path,
    unmerge_hooks,
)

__all__ = [
    "EVENTS",
    "SKILLS",
    "InstallReport",
    "default_hook_path",
    "hook_command",
    "install",
    "merge_hooks",
    "preflight",
    "quote_path",
    "uninstall",
    "unmerge_hooks",
]

SKILLS = ("cuecard-save", "cuecard-review")
HARNESS_DIRS = {"claude": ".claude", "codex": ".codex", "opencode": ".opencode", "grok": ".grok"}


@dataclass
class InstallReport:
    """What an install or uninstall did."""

    harness: str
    scope: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    root: Path | None = field(default=None, repr=False, compare=False)
    """The project whose files are changed through the confined layer (``cuecard.core.fs.Tree``:
    no link followed, no FIFO opened at any depth); ``None`` for the person's own home
    configuration or a plugin folder they name, changed by path as they keep them."""

    def as_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "scope": self.scope,
            "written": self.written,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "backups": self.backups,
            "notes": self.notes,
        }


def _within(path: Path, root: Path | None) -> tuple[Tree, str] | None:
    """The confined tree of the project ``root`` and ``path`` in it, when it lies there."""
    if root is None:
        return None
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    return Tree(root), rel.as_posix()


def _read_bytes(path: Path, root: Path | None) -> bytes | None:
    """The bytes of ``path`` (``None`` when there is none): a project's through the layer."""
    place = _within(path, root)
    if place is None:
        return path.read_bytes() if path.exists() else None
    tree, rel = place
    try:
        return tree.read_bytes(rel)
    except FileNotFoundError:
        return None


def _read_text(path: Path, root: Path | None) -> str | None:
    data = _read_bytes(path, root)
    return None if data is None else data.decode("utf-8")


def _put(path: Path, data: str | bytes, root: Path | None, mode: int | None = None) -> None:
    """Replace ``path`` atomically (folders made; a new file gets ``mode``): a project's
    through the layer."""
    place = _within(path, root)
    if place is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data, durable=False)
        if mode is not None:
            os.chmod(path, mode)
    else:
        assert root is not None
        root.mkdir(parents=True, exist_ok=True)  # the project folder the person names
        place[0].write(place[1], data, durable=False, mode=mode)


def _mode(path: Path, root: Path | None) -> int:
    """The permission bits of the regular file ``path`` (a project's looked at through the
    layer), for its backup."""
    place = _within(path, root)
    st = path.stat() if place is None else place[0].lstat(place[1])
    return 0o644 if st is None else stat.S_IMODE(st.st_mode)


def _read_json(path: Path, root: Path | None = None) -> dict[str, Any]:
    try:
        text = _read_text(path, root)
        value = json.loads(text or "{}")
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path}: not readable as JSON ({exc}); fix or move it first") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: the top level must be a JSON object")
    return value


def _git_dir(path: Path) -> tuple[Path, Path] | None:
    """(the work tree's root, its git folder) for a file inside a git work tree, else None."""
    for folder in path.parents:
        dot = folder / ".git"
        if dot.is_dir():
            return folder, dot
        if dot.is_file():  # a linked work tree: "gitdir: <path>"
            line = dot.read_text(encoding="utf-8", errors="replace").strip()
            if line.startswith("gitdir:"):
                found = Path(line.removeprefix("gitdir:").strip())
                return folder, found if found.is_absolute() else (folder / found).resolve()
    return None


def backup_path(path: Path) -> Path:
    """Where the copy of ``path`` goes before cuecard changes it: inside a git work tree, in its
    git folder (``.git/cuecard/backups/<path in the tree>.cuecard.bak``), out of the work tree
    where no ``git add -A`` picks it up; elsewhere (the person's home) ``<file>.cuecard.bak``."""
    found = _git_dir(path)
    if found is None:
        return path.with_name(path.name + ".cuecard.bak")
    root, git = found
    rel = path.resolve().relative_to(root.resolve())
    return git / "cuecard" / "backups" / rel.parent / (rel.name + ".cuecard.bak")


def _write(path: Path, text: str, report: InstallReport) -> None:
    old = _read_bytes(path, report.root)
    if old is not None and old == text.encode("utf-8"):
        report.unchanged.append(str(path))
        return
    if old is not None:
        backup = backup_path(path)
        _put(backup, old, report.root, _mode(path, report.root))
        report.backups.append(str(backup))
    _put(path, text, report.root)
    report.written.append(str(path))


def _dump(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _remove(path: Path, report: InstallReport) -> None:
    place = _within(path, report.root)
    if place is None:
        if path.exists():
            path.unlink()
            report.removed.append(str(path))
    elif place[0].remove(place[1]):
        report.removed.append(str(path))


# -- package data -------------------------------------------------------------------------------


def data_text(*parts: str) -> str:
    """A file shipped in ``cuecard/hooks/data/``."""
    node = resources.files("cuecard.hooks").joinpath("data", *parts)
    return node.read_text(encoding="utf-8")


def opencode_plugin(hook_path: str | None) -> str:
    """The OpenCode plugin with the ``cuecard-hook`` path filled in."""
    template = data_text("opencode", "cuecard.js")
    return template.replace('"__CUECARD_HOOK__"', json.dumps(hook_path or MARK))


# -- install / uninstall ------------------------------------------------------------------------


def _base(harness: str, user: bool, project: Path, home: Path) -> Path:
    if harness == "opencode" and user:
        return home / ".config" / "opencode"
    return (home if user else project) / HARNESS_DIRS[harness]


def _check(harness: str) -> None:
    if harness not in HARNESS_DIRS:
        names = ", ".join(HARNESS_DIRS)
        raise UsageError(f"harness {harness!r} is not one of {names}")


def _target(harness: str, base: Path, local: bool) -> Path:
    if harness == "claude":
        return base / ("settings.local.json" if local else "settings.json")
    if harness == "codex":
        return base / "hooks.json"
    if harness == "grok":
        return base / "hooks" / "cuecard.json"
    return base / "plugins" / "cuecard.js"


def preflight(
    harness: str,
    *,
    project: Path,
    user: bool = False,
    home: Path | None = None,
    mcp: bool = True,
) -> None:
    """Raise :class:`InstallError` when a configuration :func:`install` would merge into cannot
    be read, before anything is changed (not even ``cuecard init``)."""
    if mcp and harness in HARNESS_DIRS:
        from cuecard.hooks._mcp_config import register

        register(harness, project=project, user=user, home=home or Path.home())
    if harness not in ("claude", "codex"):
        return
    base = _base(harness, user, project, home or Path.home())
    for local in (False, True) if harness == "claude" else (False,):
        _read_json(_target(harness, base, local), None if user else project)


_NAMES = {"codex": "Codex", "opencode": "OpenCode", "grok": "Grok Build"}
_NO_LOCAL_FILE = (
    "--hook-command names a path of this machine, and {file} is the project's file, meant to be "
    "committed: a teammate's {name} would run a program that is not on their machine. {name} "
    "has no git-ignored hook file of its own in a project (as Claude Code has "
    "settings.local.json), so the path goes in your own configuration: "
    "`cuecard install {harness} --user --hook-command PATH` (it runs in every project and does "
    "nothing in one that did not opt in); or leave --hook-command out, and the project's file "
    "runs cuecard-hook from the PATH"
)
"""Why ``--hook-command`` is refused for a project's Codex, OpenCode or Grok Build file."""


def install(
    harness: str,
    *,
    project: Path,
    user: bool = False,
    home: Path | None = None,
    hook_path: str | None = None,
    plugin: Path | None = None,
    trust: bool = True,
    environ: dict[str, str] | None = None,
    trust_folder: bool = False,
    mcp: bool = True,
) -> InstallReport:
    """Write ``harness``'s configuration for cuecard (idempotent).

    ``hook_path``: the ``cuecard-hook`` to run; by default a project gets the portable command
    and ``--user`` the installed ``cuecard-hook`` by its path. ``trust`` (Codex): record Codex's
    trust for the hooks written; (Grok Build, a project install) trust the project's folder
    when cuecard's are its only hook, MCP and LSP files for Grok, or with ``trust_folder``;
    ``environ`` is where ``CODEX_HOME`` and ``GROK_FOLDER_TRUST`` are read (default: this
    process's environment). ``mcp``: register ``cuecard mcp``, the memory tools' server, in the
    harness's MCP configuration (``cuecard.hooks._mcp_config``)."""
    _check(harness)
    home = home or Path.home()
    report = InstallReport(harness, "user" if user else "plugin" if plugin else "project")
    report.root = None if user or plugin is not None else project
    base = _base(harness, user, project, home)
    if plugin is not None:
        if harness != "claude":
            raise UsageError("--plugin makes a Claude Code plugin; use it with claude")
        _write_plugin(plugin, hook_path, report)
        return report
    if hook_path is not None and not user and harness != "claude":
        raise UsageError(_NO_LOCAL_FILE.format(
            harness=harness, name=_NAMES[harness], file=_target(harness, base, False)
        ))  # fmt: skip
    if user and hook_path is None:
        hook_path = default_hook_path()
    local = harness == "claude" and not user and hook_path is not None
    target = _target(harness, base, local)
    if harness in ("claude", "codex"):
        merged = merge_hooks(_read_json(target, report.root), harness, hook_path)
        _write(target, _dump(merged), report)
    elif harness == "grok":
        _write(target, _dump(merge_hooks({}, "grok", hook_path)), report)
    else:
        _write(target, opencode_plugin(hook_path), report)
    _subfolder_hooks(harness, project, report, wanted=not user and not local)
    for name in SKILLS:
        _write(base / "skills" / name / "SKILL.md", data_text("skills", name, "SKILL.md"), report)
    if mcp:
        _register_mcp(
            harness, project=project, user=user, home=home, environ=environ, report=report
        )
    if local:
        _ignore_locally(project, target, report)
    elif not user and hook_path is None and shutil.which(MARK) is None:
        report.notes.append(
            f"{MARK} is not on this machine's PATH, so the hooks do nothing here yet: install "
            "cuecard as a tool (see the README) or give --hook-command PATH"
        )
    if harness == "codex":
        from cuecard.hooks._trust import trust_installed

        config = _read_json(target, report.root)
        written, notes = trust_installed(target, config, project, user=user,
                                         home=home, trust=trust, environ=environ)  # fmt: skip
        report.written += written
        report.notes += notes
    claude_settings = (home if user else project) / ".claude" / "settings.json"
    if harness == "grok" and MARK in (_read_text(claude_settings, report.root) or ""):
        report.notes.append(
            f"Grok Build also runs the hooks in {claude_settings}, where cuecard's Claude Code "
            "hooks are installed: keep one of the two (`cuecard uninstall claude` or "
            "`cuecard uninstall grok`) so that each tool call runs cuecard once."
        )
    if harness == "grok" and not user:
        from cuecard.hooks._groktrustwrite import trust_grok_folder

        env = dict(os.environ if environ is None else environ)
        written, notes = trust_grok_folder(
            project, home, trust=trust, environ=env, trust_others=trust_folder
        )
        report.written += written
        report.notes += notes
    if harness == "grok":
        report.notes.append(
            "Grok Build passes hook output on to the model only when a turn ends: memories "
            "matched during a turn arrive then, as feedback the agent acts on before it finishes. "
            "What must be known before the first edit belongs in AGENTS.md, which Grok Build "
            "reads at start: `cuecard export agents-md` writes it"
        )
    return report


def _subfolder_hooks(harness: str, project: Path, report: InstallReport, *, wanted: bool) -> None:
    """For a Claude Code project install (``wanted``). Claude Code reads a project's
    ``.claude/settings.json`` only when it starts in the folder that holds it: started in a
    subfolder it runs none of those hooks, and says nothing (anthropics/claude-code#86187). It does
    read the root's ``settings.local.json`` from any subfolder, so the same portable hooks go there
    too, git-ignored: this person's sessions get cuecard wherever in the repository they start. The
    two commands are the same string, and Claude Code runs a command that two settings files hold
    once per event."""
    if harness != "claude" or not wanted:
        return
    local = project / ".claude" / "settings.local.json"
    _write(local, _dump(merge_hooks(_read_json(local, report.root), "claude", None)), report)
    _ignore_locally(
        project, local, report,
        "runs cuecard's hooks when Claude Code starts in a subfolder, where it reads no "
        ".claude/settings.json",
    )  # fmt: skip


def _remove_subfolder_hooks(local: Path, report: InstallReport) -> None:
    """Remove cuecard's hooks from ``.claude/settings.local.json``; the rest stays (a file left
    empty goes)."""
    if _read_bytes(local, report.root) is None:
        return
    config = _read_json(local, report.root)
    left = unmerge_hooks(config)
    if left == config:
        return
    if left:
        _write(local, _dump(left), report)
    else:
        _remove(local, report)


def _register_mcp(
    harness: str,
    *,
    project: Path,
    user: bool,
    home: Path,
    environ: dict[str, str] | None,
    report: InstallReport,
) -> None:
    """Register ``cuecard mcp`` in the harness's MCP configuration; for a Claude Code project,
    also approve it for this person (``.claude/settings.local.json``, git-ignored): the
    committed ``.mcp.json`` still asks each teammate."""
    from cuecard.hooks._mcp_config import SERVER, register

    path, text, _ = register(harness, project=project, user=user, home=home, environ=environ)
    _write(path, text, report)
    if harness == "claude" and not user:
        local = project / ".claude" / "settings.local.json"
        settings = _read_json(local, report.root)
        enabled = settings.get("enabledMcpjsonServers")
        enabled = list(enabled) if isinstance(enabled, list) else []
        if SERVER not in enabled:
            enabled.append(SERVER)
        # First, so that merging the hooks (which puts "hooks" last) leaves the file unchanged.
        rest = {k: v for k, v in settings.items() if k != "enabledMcpjsonServers"}
        _write(local, _dump({"enabledMcpjsonServers": enabled, **rest}), report)
        _ignore_locally(project, local, report, "approves the cuecard MCP server for you alone")
    if shutil.which("cuecard") is None and not user:
        report.notes.append(
            "cuecard is not on this machine's PATH, so the harness cannot start its MCP server "
            "here yet: install cuecard as a tool (see the README)"
        )


def _unregister_mcp(harness: str, *, project: Path, user: bool, home: Path,
                    report: InstallReport) -> None:  # fmt: skip
    from cuecard.hooks._mcp_config import SERVER, unregister

    found = unregister(harness, project=project, user=user, home=home)
    if found is not None:
        path, text = found
        if text is None:
            _remove(path, report)
        else:
            _write(path, text, report)
    local = project / ".claude" / "settings.local.json"
    if harness == "claude" and not user and _read_bytes(local, report.root) is not None:
        settings = _read_json(local, report.root)
        enabled = settings.get("enabledMcpjsonServers")
        if isinstance(enabled, list) and SERVER in enabled:
            rest = [name for name in enabled if name != SERVER]
            if rest:
                settings["enabledMcpjsonServers"] = rest
            else:
                settings.pop("enabledMcpjsonServers")
            if settings:
                _write(local, _dump(settings), report)
            else:
                _remove(local, report)


def _forget_trust(
    target: Path,
    config: dict[str, Any],
    home: Path,
    environ: dict[str, str] | None,
    report: InstallReport,
) -> None:
    """Remove Codex's trust entries (``[hooks.state."<key>"]``) of cuecard's hooks in
    ``target``, which ``cuecard install codex`` recorded."""
    from cuecard.core.harnesses import codex_config_path, codex_hooks
    from cuecard.hooks._trust import forget_codex_trust

    config_path = codex_config_path(home, environ)
    try:
        if forget_codex_trust(config_path, codex_hooks(target, config)):
            report.written.append(str(config_path))
    except ValueError as exc:
        report.notes.append(f"Codex's trust entries were left in place: {exc}")


def _restore(target: Path, left: dict[str, Any], report: InstallReport) -> bool:
    """Put back the copy of ``target`` made before cuecard changed it, byte for byte, when
    what is left without cuecard's hooks is what that copy holds (nobody changed it since);
    whether it did."""
    backup = backup_path(target)
    try:
        kept = _read_bytes(backup, report.root)
        if kept is None or json.loads(kept) != left:
            return False
    except (OSError, ValueError):
        return False
    _put(target, kept, report.root)
    _remove(backup, InstallReport(report.harness, report.scope, root=report.root))
    report.written.append(str(target))
    report.notes.append(f"restored {target} as it was before cuecard's install")
    return True


def _remove_empty(folder: Path, report: InstallReport) -> None:
    """Remove ``folder`` when cuecard's removals left it empty."""
    place = _within(folder, report.root)
    if place is None:
        try:
            folder.rmdir()
        except OSError:
            return
    else:
        tree, rel = place
        if not tree.is_dir(rel) or tree.entries(rel) or not tree.remove_empty(rel):
            return  # missing, not a plain folder, or holding anything: left as it is
    report.removed.append(str(folder))


def _ignore_locally(
    project: Path, target: Path, report: InstallReport, why: str = "holds a path of this machine"
) -> None:
    """Keep a file of this machine's out of commits: ``.git/info/exclude``."""
    exclude = project / ".git" / "info" / "exclude"
    rel = "/" + target.relative_to(project).as_posix()
    if not (project / ".git").is_dir():
        report.notes.append(f"{target} {why}: do not commit it")
        return
    old = _read_text(exclude, project) or ""
    if rel not in old.splitlines():
        sep = "" if not old or old.endswith("\n") else "\n"
        _put(exclude, f"{old}{sep}{rel}\n", project)
        report.written.append(str(exclude))
    report.notes.append(f"{target} {why}; git ignores it (.git/info/exclude)")


def _write_plugin(folder: Path, hook_path: str | None, report: InstallReport) -> None:
    from cuecard.hooks.__about__ import __version__

    manifest = {
        "name": "cuecard",
        "version": __version__,
        "description": "Project knowledge delivered at the action it applies to.",
    }
    _write(folder / ".claude-plugin" / "plugin.json", _dump(manifest), report)
    hooks = merge_hooks({}, "claude", hook_path)
    _write(folder / "hooks" / "hooks.json", _dump(hooks), report)
    for name in SKILLS:
        text = data_text("skills", name, "SKILL.md")
        _write(folder / "skills" / name / "SKILL.md", text, report)


def uninstall(
    harness: str,
    *,
    project: Path,
    user: bool = False,
    home: Path | None = None,
    plugin: Path | None = None,
    environ: dict[str, str] | None = None,
) -> InstallReport:
    """Remove what :func:`install` wrote; other hooks and settings stay. A configuration that
    held only cuecard's is removed; Codex's trust entries for cuecard's hooks go too."""
    _check(harness)
    home = home or Path.home()
    report = InstallReport(harness, "user" if user else "plugin" if plugin else "project")
    report.root = None if user or plugin is not None else project
    if plugin is not None:
        for path in (
            plugin / ".claude-plugin" / "plugin.json",
            plugin / "hooks" / "hooks.json",
            *(plugin / "skills" / n / "SKILL.md" for n in SKILLS),
        ):
            _remove(path, report)
        return report
    base = _base(harness, user, project, home)
    _unregister_mcp(harness, project=project, user=user, home=home, report=report)
    if harness == "claude" and not user:
        _remove_subfolder_hooks(project / ".claude" / "settings.local.json", report)
    if harness in ("claude", "codex"):
        target = base / ("settings.json" if harness == "claude" else "hooks.json")
        if _read_bytes(target, report.root) is not None:
            config = _read_json(target, report.root)
            if harness == "codex":
                _forget_trust(target, config, home, environ, report)
            left = unmerge_hooks(config)
            if not _restore(target, left, report):
                if left:
                    _write(target, _dump(left), report)
                else:  # nothing but cuecard's hooks was in it
                    _remove(target, report)
    elif harness == "grok":
        _remove(base / "hooks" / "cuecard.json", report)
    else:
        _remove(base / "plugins" / "cuecard.js", report)
    for name in SKILLS:
        skill = base / "skills" / name / "SKILL.md"
        if (_read_text(skill, report.root) or "").startswith(f"---\nname: {name}\n"):
            _remove(skill, report)
            _remove_empty(skill.parent, InstallReport(harness, report.scope, root=report.root))
    if not user:  # folders cuecard's files alone made (never the person's own harness home)
        for folder in (base / "hooks", base / "plugins", base / "skills", base):
            _remove_empty(folder, report)
    return report
