"""The wheel's build hook, and the one check that each DSH plugin holds a copy of the shared
runner.

``js/shared/*.js`` is the one source of what both plugins run (the worker, the hook bridge,
bounds and redaction). A plugin is installed into the DSH host as its own npm package and must
load without the other, so each plugin's ``lib/`` holds a copy of every shared file, a regular
file in the repository (a link would become a text file in a Windows checkout), and the wheel
ships each plugin's folder as it is: ``_js/<plugin>/lib/``. ``copy_problems`` is the check: the
build fails when a plugin's copy is missing, is a link or differs from the source, and so does a
test; ``write_copies`` refreshes the copies (``python tools/dsh/plugin_copies.py``, and
``tools/secrets/js_rules.py`` after it writes ``secrets.js``).

``js/shared/secrets.js`` is generated from cuecard-core's credential rules by
``tools/secrets/js_rules.py``; built from a checkout (the sdist, or a wheel straight from the
repository) with cuecard-core importable, the build fails when it is out of date.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PLUGINS = ("cuecard-dsh-memory", "cuecard-dsh-discipline")
SHARED = Path("js") / "shared"
WHEEL_DIR = "cuecard/dsh_adapter/_js"


class PluginFilesError(ValueError):
    """A plugin's files do not agree with the shared source."""


REFRESH = "python tools/dsh/plugin_copies.py"


def shared_files(root: Path) -> dict[str, Path]:
    """The shared plugin sources (``js/shared/*.js``) by file name."""
    shared = {p.name: p for p in sorted((root / SHARED).glob("*.js")) if p.is_file()}
    if not shared:
        raise PluginFilesError(f"{root / SHARED}: no shared plugin source (*.js) found")
    return shared


def copy_problems(root: Path) -> list[str]:
    """Each plugin's copy of a shared file that is missing, a link or not the source's bytes, as
    a message naming the copy; empty when every plugin holds a regular copy of each."""
    problems = []
    for rel, source in shared_files(root).items():
        wanted = source.read_bytes()
        for name in PLUGINS:
            copy = root / "js" / name / "lib" / rel
            if copy.is_symlink():
                problems.append(f"{copy} is a link: the plugin holds a copy of {source}")
            elif not copy.is_file():
                problems.append(f"{copy} is missing: the plugin loads the shared {rel} from there")
            elif copy.read_bytes() != wanted:
                problems.append(f"{copy} differs from {source}, its one source")
    return problems


def write_copies(root: Path, names: tuple[str, ...] = ()) -> list[Path]:
    """Write each plugin's copy of the shared files (of those ``names``, or all) from
    ``js/shared/``, replacing a link or a differing file; the copies changed."""
    written = []
    for rel, source in shared_files(root).items():
        if names and rel not in names:
            continue
        wanted = source.read_bytes()
        for name in PLUGINS:
            copy = root / "js" / name / "lib" / rel
            if not copy.is_symlink() and copy.is_file() and copy.read_bytes() == wanted:
                continue
            if copy.is_symlink() or copy.exists():
                copy.unlink()  # a link removed, never written through
            copy.write_bytes(wanted)
            written.append(copy)
    return written


def plugin_files(root: Path) -> dict[str, str]:
    """Source file -> wheel path (hatchling's ``force_include``), for every file of both plugins
    (``package.json``, ``cordis.patch.yml``, ``lib/**/*.js``), once each plugin's copies of the
    shared files are the source's bytes (``copy_problems``)."""
    problems = copy_problems(root)
    if problems:
        raise PluginFilesError("; ".join(problems) + f" (refresh the copies: {REFRESH})")
    out: dict[str, str] = {}
    for name in PLUGINS:
        folder = root / "js" / name
        for rel in ("package.json", "cordis.patch.yml"):
            if not (folder / rel).is_file():
                raise PluginFilesError(f"{folder / rel} is missing")
            out[str(folder / rel)] = f"{WHEEL_DIR}/{name}/{rel}"
        lib = folder / "lib"
        for path in sorted(lib.rglob("*.js")):
            out[str(path)] = f"{WHEEL_DIR}/{name}/lib/{path.relative_to(lib).as_posix()}"
    return out


def stale_generated(root: Path) -> str | None:
    """Why ``js/shared/secrets.js`` differs from what ``tools/secrets/js_rules.py`` writes from
    core's rules, or ``None`` (also outside a checkout, or without cuecard-core to read)."""
    import importlib.util

    script = root.parents[1] / "tools" / "secrets" / "js_rules.py"
    spec = importlib.util.spec_from_file_location("cuecard_js_rules", script)
    if not script.is_file() or spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        wanted = module.render()
    except ImportError:  # an isolated build without cuecard-core: nothing to compare with
        return None
    if (root / SHARED / "secrets.js").read_text(encoding="utf-8") != wanted:
        return f"{root / SHARED / 'secrets.js'} is out of date: run python {script}"
    return None


class PluginFilesHook(BuildHookInterface):  # type: ignore[type-arg]
    """Checks the generated rules (sdist and wheel) and puts both plugins, each with the shared
    files, into the wheel; an editable install reads them from ``js/``."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        root = Path(self.root)
        stale = stale_generated(root)
        if stale is not None:
            raise SystemExit(f"cuecard-dsh-adapter build: {stale}")
        if self.target_name != "wheel":
            return
        try:
            build_data["force_include"].update(plugin_files(root))
        except PluginFilesError as exc:
            raise SystemExit(f"cuecard-dsh-adapter build: {exc}") from None
