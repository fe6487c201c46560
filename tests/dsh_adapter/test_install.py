"""``cuecard dsh install`` and the plugins shipped as package data."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from cuecard.dsh_adapter import PLUGINS, pack, plugin_dir
from tests._support.dsh import Home, dsh

JS = Path(__file__).resolve().parents[2] / "packages" / "dsh-adapter" / "js"


def test_install_records_the_interpreter_and_packs_both_plugins(isolated: Home) -> None:
    out = isolated.root / "tarballs"
    done = dsh("install", "--no-add", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "python",
        "record",
        "tarballs",
        "profile",
        "added",
        "command",
        "hooks",
        "patch",
    }
    record = json.loads((isolated.config / "cuecard" / "dsh.json").read_text())
    assert Path(record["python"]).is_absolute()
    assert report["added"] is False
    assert report["command"][1:5] == ["plugin", "--profile", "web", "add"]
    names = sorted(Path(t).name for t in report["tarballs"])
    assert names == ["cuecard-dsh-discipline-0.1.0.tgz", "cuecard-dsh-memory-0.1.0.tgz"]


@pytest.mark.parametrize("name", sorted(PLUGINS.values()))
def test_a_tarball_is_an_npm_package_of_the_plugin(name: str, tmp_path: Path) -> None:
    tgz = pack(name, tmp_path)
    with tarfile.open(tgz) as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert "package/package.json" in members
        assert "package/cordis.patch.yml" in members
        assert "package/lib/index.js" in members
        assert "package/lib/runner.js" in members
        assert all(m.name.startswith("package/") and ".." not in m.name for m in members.values())
        runner = tar.extractfile(members["package/lib/runner.js"])
        assert runner is not None
        assert members["package/lib/runner.js"].isfile()  # the shared source's bytes, no link
        assert runner.read() == (JS / "shared" / "runner.js").read_bytes()
        rules = tar.extractfile(members["package/lib/secrets.js"])
        assert rules is not None
        assert rules.read() == (JS / "shared" / "secrets.js").read_bytes()
        package_json = tar.extractfile(members["package/package.json"])
        assert package_json is not None
        meta = json.loads(package_json.read())
    assert meta["name"] == name
    assert meta["type"] == "module"
    assert meta["dsh"]["bundle"]["patch"] == "./cordis.patch.yml"
    assert pack(name, tmp_path / "again").read_bytes() == tgz.read_bytes()  # reproducible


def test_peer_ranges_admit_both_host_lines() -> None:
    for name in PLUGINS.values():
        meta = json.loads((plugin_dir(name) / "package.json").read_text())
        peers = meta["peerDependencies"]
        assert peers["@deepseek-ai/cordis"] == "^4.0.1"
        for key, value in peers.items():
            if key.startswith("@deepseek-ai/dsh-"):
                assert value == "^0.1.0-rc.6 || ^0.1.5-rc.2", key
        assert meta["engines"]["node"] == ">=20"


def test_the_wheel_ships_both_plugins(tmp_path: Path) -> None:
    import zipfile

    from hatchling.builders.wheel import WheelBuilder

    [built] = WheelBuilder(str(JS.parent)).build(directory=str(tmp_path), versions=["standard"])
    wheel = Path(built)
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        shared = (JS / "shared" / "runner.js").read_bytes()
        for name in PLUGINS.values():
            base = f"cuecard/dsh_adapter/_js/{name}"
            assert {f"{base}/package.json", f"{base}/lib/index.js", f"{base}/lib/runner.js"} <= (
                names
            )
            # each plugin's own copy of the one source, a regular file
            assert zf.read(f"{base}/lib/runner.js") == shared
            assert zf.getinfo(f"{base}/lib/runner.js").external_attr >> 28 != 0o12
    assert not any("node_modules" in n or "/test/" in n for n in names)
    assert "cuecard/dsh_adapter/__main__.py" in names
    assert not any(n == "cuecard/__init__.py" for n in names)


@pytest.mark.parametrize("change", ["differs", "link as text", "link", "missing", "stale rules"])
def test_the_build_refuses_a_plugin_whose_runner_is_not_the_shared_one(
    change: str, tmp_path: Path
) -> None:
    """The wheel's build hook: a plugin's ``lib/runner.js`` is a regular copy of the shared
    source or the build stops, naming the file (a link too, and the text file a Windows checkout
    makes of one); in a checkout, so does a ``secrets.js`` that core's rules no longer give."""
    import shutil
    import subprocess
    import sys

    package = tmp_path / "packages" / "dsh-adapter"
    shutil.copytree(JS.parent, package, symlinks=True,
                    ignore=shutil.ignore_patterns("node_modules", ".dsh-host", "test"))  # fmt: skip
    (tmp_path / "tools" / "secrets").mkdir(parents=True)
    generator = JS.parents[2] / "tools" / "secrets" / "js_rules.py"
    shutil.copy(generator, tmp_path / "tools" / "secrets")
    runner = package / "js" / "cuecard-dsh-discipline" / "lib" / "runner.js"
    assert runner.is_file()
    assert not runner.is_symlink()
    if change == "stale rules":
        runner = package / "js" / "shared" / "secrets.js"
        runner.write_text(runner.read_text().replace('"private key"', '"a private key"'))
    else:
        runner.unlink()
    if change == "differs":
        runner.write_text((JS / "shared" / "runner.js").read_text() + "// one more line\n")
    elif change == "link as text":
        runner.write_text("../../shared/runner.js")
    elif change == "link":
        runner.symlink_to(Path("..", "..", "shared", "runner.js"))
    build = (
        "import sys\n"
        "from hatchling.builders.wheel import WheelBuilder\n"
        "list(WheelBuilder(sys.argv[1]).build(directory=sys.argv[2], versions=['standard']))\n"
    )
    done = subprocess.run([sys.executable, "-c", build, str(package), str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode != 0
    assert "cuecard-dsh-adapter build:" in done.stderr + done.stdout
    assert str(runner) in done.stderr + done.stdout
    assert not list((tmp_path / "out").glob("*.whl"))
    # a copy equal to the shared source builds
    runner.unlink(missing_ok=True)
    runner.write_bytes((JS / "shared" / runner.name).read_bytes())
    again = subprocess.run([sys.executable, "-c", build, str(package), str(tmp_path / "out")],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert again.returncode == 0, again.stderr
