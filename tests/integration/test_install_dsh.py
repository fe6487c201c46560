"""`cuecard install dsh` (cuecard-hooks) hands over to the DSH adapter's installer
(cuecard-dsh-adapter): two distributions, so it runs where all five are installed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests._support.cli import run_cli
from tests._support.dsh import isolate, seed_vault
from tests._support.dsh_host import DSH, host_env, require_host
from tests._support.hooks import MEMORIES


def test_install_dsh_runs_the_dsh_adapters_installer_and_options_stay_where_they_belong(
    tmp_path: Path,
) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    done = run_cli(
        "install", "dsh", "--no-add", "--profile", "headless", "--json", cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["profile"] == "headless"
    assert report["added"] is False
    hooks = json.loads(Path(report["hooks"]).read_text())
    assert "-m cuecard.dsh_adapter hook PostToolUse" in json.dumps(hooks)
    assert "UserPromptSubmit" not in hooks["hooks"]  # the discipline plugin gives those
    refused = run_cli("install", "dsh", "--user", cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert "cuecard dsh install --hooks" in refused.stderr
    refused = run_cli("install", "claude", "--profile", "web", cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert "only for `cuecard install dsh`" in refused.stderr
    assert not (tmp_path / ".claude").exists()


def _dsh_only(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A project whose only harness is DSH: `cuecard dsh install --hooks` into a profile that
    `dsh plugin add` made (its package.json, the bridge mounted in its cordis.patch.yml)."""
    (tmp_path / "user").mkdir()
    isolate(tmp_path / "user", monkeypatch)
    seed_vault()
    env = {"DSH_HOME": str(tmp_path / "dsh")}
    profile = tmp_path / "dsh" / "profiles" / "headless"
    profile.mkdir(parents=True)
    deps = {"cuecard-dsh-memory": "file:m.tgz", "cuecard-dsh-discipline": "file:d.tgz"}
    (profile / "package.json").write_text(json.dumps({"dependencies": deps}))
    (profile / "cordis.patch.yml").write_text("[]\n")
    done = run_cli("install", "dsh", "--no-add", "--profile", "headless", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert "cuecard:begin" in (profile / "cordis.patch.yml").read_text()
    return env


def test_doctor_counts_dsh_as_the_harness_running_cuecards_hooks(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _dsh_only(tmp_path, project, monkeypatch)
    done = run_cli("doctor", "--json", cwd=project, env=env)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report["problems"]
    hooks_file = str(tmp_path / "user" / "config" / "cuecard" / "dsh-hooks.json")
    assert report["hooks"] == [{"harness": "dsh", "scope": "user", "file": hooks_file}]
    assert report["dsh"]["hooks"] == hooks_file
    assert not [n for n in report["notes"] if "edit checks" in n["message"]]
    # an edit check never reports in DSH (it runs cuecard after the call): doctor says so
    [scripts] = [m for m in MEMORIES if m.get("check", {}).get("when") == "edit"]
    memories = project / ".cuecard" / "memories"
    (memories / f"{scripts['id']}.json").write_text(json.dumps(scripts))
    report = json.loads(run_cli("doctor", "--json", cwd=project, env=env).stdout)
    [note] = [n for n in report["notes"] if "edit checks" in n["message"]]
    assert note["message"].startswith("1 live memory has edit checks (`when: edit`: 66666666)")
    assert "when: turn" in note["hint"]
    # mounted nowhere: DSH does not run them, so no harness does
    patch = tmp_path / "dsh" / "profiles" / "headless" / "cordis.patch.yml"
    patch.write_text("[]\n")
    done = run_cli("doctor", "--json", cwd=project, env=env)
    assert done.returncode == 1
    assert "no harness runs cuecard's hooks" in done.stdout


def test_doctor_checks_the_vault_as_the_plugins_do(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _dsh_only(tmp_path, project, monkeypatch)
    notes = tmp_path / "user" / "vault" / "notes"
    notes.rename(notes.with_name("elsewhere"))  # a folder, but no longer a vault
    done = run_cli("doctor", "--json", cwd=project, env=env)
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [p["message"] for p in report["problems"]] == [
        f"the DSH memory tools have no vault: {tmp_path / 'user' / 'vault'} is not a vault "
        "(no notes/ and inbox/): `cuecard vault init --vault PATH`"
    ]


def _files(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root``: a file's bytes, ``None`` for a folder (links not followed)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        key = path.relative_to(root).as_posix()
        found[key] = None if path.is_dir() and not path.is_symlink() else path.read_bytes()
    return found


def test_a_failed_install_dsh_leaves_the_home_as_it_was_and_doctor_clean(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    (home / ".config" / "cuecard").mkdir(parents=True)
    kept = b'{"python": "/opt/py/bin/python3", "note": "as a person left it"}\n'
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "DSH_HOME": str(home / ".dsh"),
        "PATH": "/usr/bin:/bin",  # no dsh here
    }
    doctor = run_cli("doctor", "--json", cwd=project, env=env)
    before = _files(home)
    no_dsh = run_cli("install", "dsh", "--json", cwd=project, env=env)
    assert no_dsh.returncode == 1
    assert "dsh is not on PATH" in no_dsh.stderr
    assert "nothing was written" in no_dsh.stderr
    assert no_dsh.stdout == ""
    assert _files(home) == before
    # a file of its own there already: a failing `dsh plugin add` puts it back, byte for byte
    (home / ".config" / "cuecard" / "dsh.json").write_bytes(kept)
    before = _files(home)
    failing = run_cli("install", "dsh", "--dsh", "/bin/false", cwd=project, env=env)
    assert failing.returncode == 1
    assert "`dsh plugin add` failed (exit 1)" in failing.stderr
    assert _files(home) == before
    (home / ".config" / "cuecard" / "dsh.json").unlink()
    again = run_cli("doctor", "--json", cwd=project, env=env)
    assert (again.returncode, again.stdout) == (doctor.returncode, doctor.stdout)
    assert json.loads(again.stdout)["dsh"] is None


def test_install_then_uninstall_dsh_leaves_the_home_as_it_was(
    tmp_path: Path, project: Path
) -> None:
    """On the real host: `cuecard dsh install` adds both plugins to a profile DSH made (offline:
    the tarballs only), `cuecard install dsh --no-add` mounts the hook bridge in the profile's
    patch, and `cuecard uninstall dsh` takes all of it back, byte for byte."""
    require_host()
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "package-manager"  # pnpm's store and cache: not the install's
    env = host_env(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(outside / "cache"),
            "XDG_DATA_HOME": str(outside / "data"),
            "XDG_STATE_HOME": str(outside / "state"),
            "npm_config_offline": "true",
            "PATH": os.environ.get("PATH", ""),
        },
        home / ".dsh",
    )
    # DSH as a person has it: its first run made the profile; the person's own patch row in it
    made = subprocess.run(
        [str(DSH), "plugin", "--profile", "headless", "list"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    patch = home / ".dsh" / "profiles" / "headless" / "cordis.patch.yml"
    patch.write_text("# mine\n- id: hmr\n  disabled: false\n")
    doctor = run_cli("doctor", "--json", cwd=project, env=env)
    before = _files(home)

    added = run_cli("dsh", "install", "--profile", "headless", "--dsh", str(DSH), "--json",
                    cwd=project, env=env)  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["added"] is True
    mounted = run_cli("install", "dsh", "--no-add", "--profile", "headless", cwd=project, env=env)
    assert mounted.returncode == 0, mounted.stderr
    assert "cuecard:begin" in patch.read_text()
    assert "- id: hmr" in patch.read_text()
    installed = _files(home)
    assert installed != before

    # the host refuses: nothing is removed
    refused = run_cli("uninstall", "dsh", "--dsh", "/bin/false", cwd=project, env=env)
    assert refused.returncode == 1
    assert "`dsh plugin remove` failed" in refused.stderr
    assert _files(home) == installed

    done = run_cli("uninstall", "dsh", "--json", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "harness",
        "scope",
        "written",
        "unchanged",
        "removed",
        "backups",
        "notes",
    }
    assert (report["harness"], report["scope"], report["notes"]) == ("dsh", "user", [])
    assert "cuecard-dsh-memory (DSH profile headless)" in report["removed"]
    assert str(patch) in report["written"]
    assert _files(home) == before
    again = run_cli("doctor", "--json", cwd=project, env=env)
    assert (again.returncode, again.stdout) == (doctor.returncode, doctor.stdout)
    twice = run_cli("uninstall", "dsh", "--json", cwd=project, env=env)
    assert twice.returncode == 0, twice.stderr
    assert json.loads(twice.stdout)["notes"] == [
        "nothing to remove: cuecard's DSH set-up is not installed"
    ]
    assert _files(home) == before


def test_uninstall_dsh_help_says_what_it_removes(tmp_path: Path) -> None:
    done = run_cli("uninstall", "dsh", "--help", cwd=tmp_path)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "runs `cuecard dsh uninstall`" in text
    assert "--dsh PATH" in text
    own = " ".join(run_cli("dsh", "uninstall", "--help", cwd=tmp_path).stdout.split())
    for part in (
        "dsh-install.json",
        "dsh plugin --profile PROFILE remove",
        "cordis.patch.yml",
        "dsh-backups/",
        "nothing is removed",
        "--json prints keys: harness, scope",
    ):
        assert part in own


def _no_host_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    profile = home / ".dsh" / "profiles" / "web"
    profile.mkdir(parents=True)
    (profile / "cordis.patch.yml").write_text("[]\n")
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "DSH_HOME": str(home / ".dsh"),
        "PATH": "/usr/bin:/bin",
    }
    return home, env


def test_uninstall_dsh_takes_out_only_its_rows_from_a_patch_edited_since(tmp_path: Path) -> None:
    home, env = _no_host_home(tmp_path)
    patch = home / ".dsh" / "profiles" / "web" / "cordis.patch.yml"
    done = run_cli("install", "dsh", "--no-add", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    patch.write_text(patch.read_text() + "- id: mine\n  disabled: true\n")
    done = run_cli("uninstall", "dsh", "--json", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["written"] == [str(patch)]
    assert report["notes"] == [f"{patch} changed since the install: removed cuecard's rows only"]
    assert patch.read_text() == "- id: mine\n  disabled: true\n"
    assert _files(home) == {
        ".dsh": None,
        ".dsh/profiles": None,
        ".dsh/profiles/web": None,
        ".dsh/profiles/web/cordis.patch.yml": b"- id: mine\n  disabled: true\n",
    }


@pytest.mark.parametrize(
    "record",
    [
        '{"profiles": [], "files": ["VICTIM"]}',
        '{"profiles": [{"dsh_home": "/", "profile": "..", "dsh": null, "added": [], '
        '"package_json": false, "lock": true, "modules": true, "patch": null}], "files": []}',
        '{"profiles": "nope"}',
        "[" * 10000,
    ],
    ids=["file-outside", "profile-escape", "malformed", "nested"],
)
def test_uninstall_dsh_refuses_a_record_it_did_not_write(tmp_path: Path, record: str) -> None:
    home, env = _no_host_home(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    config = home / ".config" / "cuecard"
    config.mkdir(parents=True)
    (config / "dsh-install.json").write_text(record.replace("VICTIM", str(victim)))
    before = _files(tmp_path)
    done = run_cli("uninstall", "dsh", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    assert "dsh-install.json" in done.stderr
    assert "Traceback" not in done.stderr
    assert _files(tmp_path) == before
