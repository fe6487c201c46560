"""The two JavaScript plugins shipped with this distribution, and npm tarballs of them."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

from cuecard.dsh_adapter._errors import DshAdapterError
from cuecard.dsh_adapter._journal import Journal

__all__ = ["PLUGINS", "pack", "plugin_dir", "plugin_files"]

PLUGINS: dict[str, str] = {
    "memory": "cuecard-dsh-memory",
    "discipline": "cuecard-dsh-discipline",
}
_EPOCH = 499162500  # npm's fixed mtime for packed files (1985-10-26), so tarballs are reproducible


def _roots() -> list[Path]:
    here = Path(__file__).resolve().parent
    # In a wheel the plugins sit in ``_js/``; in an editable checkout, in packages/dsh-adapter/js.
    return [here / "_js", here.parents[2] / "js"]


def plugin_dir(name: str) -> Path:
    """The folder of plugin ``name`` (``cuecard-dsh-memory`` or ``cuecard-dsh-discipline``)."""
    if name not in PLUGINS.values():
        raise DshAdapterError(f"plugin {name!r} is unknown: choose {', '.join(PLUGINS.values())}")
    for root in _roots():
        if (root / name / "package.json").is_file():
            return root / name
    raise DshAdapterError(f"plugin {name}: its JavaScript is missing from this installation")


def plugin_files(folder: Path) -> list[Path]:
    """What a plugin package holds: package.json, cordis.patch.yml and lib/*.js."""
    files = [folder / "package.json", folder / "cordis.patch.yml"]
    files += sorted(p for p in (folder / "lib").rglob("*.js") if p.is_file())
    return [f for f in files if f.is_file()]


def pack(name: str, out_dir: Path, *, journal: Journal | None = None) -> Path:
    """Write ``<name>-<version>.tgz`` (the layout ``npm pack`` makes) into ``out_dir``; with a
    ``journal``, the write is undone when the install fails."""
    folder = plugin_dir(name)
    meta = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in plugin_files(folder):
            data = path.read_bytes()
            info = tarfile.TarInfo("package/" + path.relative_to(folder).as_posix())
            info.size, info.mtime, info.mode = len(data), _EPOCH, 0o644
            tar.addfile(info, io.BytesIO(data))
    target = out_dir / f"{meta['name']}-{meta['version']}.tgz"
    if journal is not None:
        journal.before_write(target)
    out_dir.mkdir(parents=True, exist_ok=True)
    target.write_bytes(gzip.compress(raw.getvalue(), mtime=0))
    return target
