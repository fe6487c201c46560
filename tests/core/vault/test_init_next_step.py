"""`cuecard vault init` says how cuecard will find the new vault, and `--remember` records it in
the user config so that the next vault command finds it."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from cuecard.core import ConfigError
from cuecard.core.vault._user_config import with_vault
from tests._support.cli import Run


def test_init_without_a_setting_says_the_next_step(
    cc: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = cc("vault", "init", "--vault", "notes-vault")
    assert code == 0, err
    where = str((tmp_path / "notes-vault").resolve())
    assert f"cuecard vault init --vault {where} --remember" in out
    assert f"CUECARD_VAULT={where}" in out
    code, _, err = cc("vault", "status")
    assert code != 0
    assert "no vault" in err


def test_remember_records_the_vault_for_the_next_command(
    cc: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "cuecard" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('# mine\n\n[digest]\nmodel = "small"\n')
    code, out, err = cc("vault", "init", "--vault", "v", "--remember", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["remembered"] == str(config)
    assert answer["next"] is None
    saved = tomllib.loads(config.read_text())
    assert saved == {"vault": str((tmp_path / "v").resolve()), "digest": {"model": "small"}}
    assert config.read_text().startswith("# mine\n")
    code, out, err = cc("vault", "status", "--json")
    assert code == 0, err
    assert json.loads(out)["vault"] == str((tmp_path / "v").resolve())
    # on a vault that is there, --remember records it and changes nothing in it
    other = tmp_path / "other"
    assert cc("vault", "init", "--vault", str(other))[0] == 0
    before = sorted(p.relative_to(other) for p in other.rglob("*"))
    code, _, err = cc("vault", "init", "--vault", str(other), "--remember")
    assert code == 0, err
    assert sorted(p.relative_to(other) for p in other.rglob("*")) == before
    assert tomllib.loads(config.read_text())["vault"] == str(other.resolve())
    # once found, no next step
    code, out, _ = cc("vault", "init", "--vault", str(tmp_path / "v"), "--force", "--json")
    assert json.loads(out)["next"] is not None  # the config names `other` now
    code, out, _ = cc("vault", "init", "--vault", str(other), "--force", "--json")
    assert json.loads(out)["next"] is None


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", {"vault": "/v"}),
        ('vault = "/old"\nx = 1\n', {"vault": "/v", "x": 1}),
        ('[t]\nvault = "inner"\n', {"vault": "/v", "t": {"vault": "inner"}}),
    ],
)
def test_the_vault_key_is_set_at_the_top_level(before: str, after: dict[str, object]) -> None:
    assert tomllib.loads(with_vault(before, "/v")) == after


def test_a_config_that_is_not_toml_is_left_alone() -> None:
    with pytest.raises(ConfigError):
        with_vault("vault = \n[", "/v")
    assert tomllib.loads(with_vault("", 'a "quoted" \\ path'))["vault"] == 'a "quoted" \\ path'
