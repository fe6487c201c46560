"""The wheel's build hook: the two DSH plugins' files, each plugin with its own copy of the one
shared runner.

``js/shared/*.js`` is the one source of what both plugins run (the worker, the hook bridge,
bounds and redaction). A plugin is installed into the DSH host as its own npm package and must
load without the other, so each gets a copy at build time: in the wheel, ``_js/<plugin>/lib/``
holds the shared files beside the plugin's own. In the repository each plugin's ``lib/`` names
a shared file by a relative link (``lib/runner.js -> ../../shared/runner.js``), so that Node
loads a plugin straight from its folder in the tests; an sdist may hold a copy instead. The build
fails when a plugin's ``lib/`` lacks a shared file or holds one that differs from the source.

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


def plugin_files(root: Path) -> dict[str, str]:
    """Source file -> wheel path (hatchling's ``force_include``), for every file of both plugins
    (``package.json``, ``cordis.patch.yml``, ``lib/**/*.js``): a shared file is read through the
    plugin's link to it, so each plugin's copy in the wheel is the shared source's bytes."""
    shared = {p.name: p for p in sorted((root / SHARED).glob("*.js")) if p.is_file()}
    if not shared:
        raise PluginFilesError(f"{root / SHARED}: no shared plugin source (*.js) found")
    out: dict[str, str] = {}
    for name in PLUGINS:
        folder = root / "js" / name
        lib = folder / "lib"
        for rel in ("package.json", "cordis.patch.yml"):
            if not (folder / rel).is_file():
                raise PluginFilesError(f"{folder / rel} is missing")
            out[str(folder / rel)] = f"{WHEEL_DIR}/{name}/{rel}"
        for path in sorted(lib.rglob("*.js")):
            rel = path.relative_to(lib).as_posix()
            out[str(path)] = f"{WHEEL_DIR}/{name}/lib/{rel}"
            if rel in shared and path.read_bytes() != shared[rel].read_bytes():
                raise PluginFilesError(
                    f"{path} differs from {shared[rel]}, its one source: link it there "
                    f"(ln -sf ../../shared/{rel} {path})"
                )
        for rel in shared:
            if not (lib / rel).is_file():
                raise PluginFilesError(
                    f"{lib / rel} is missing: the plugin loads the shared {rel} from there "
                    f"(ln -s ../../shared/{rel} {lib / rel})"
                )
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
