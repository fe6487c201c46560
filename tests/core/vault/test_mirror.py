"""A folder vault mirrored to PostgreSQL (for Obsidian users), against a real server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def folder(cc: Run, tmp_path: Path) -> str:
    root = str(tmp_path / "obsidian")
    assert cc("vault", "init", "--vault", root)[0] == 0
    return root


@pytest.fixture
def mirror(cc: Run, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    assert cc("vault", "migrate-db", "--vault", pg_url)[0] == 0
    monkeypatch.setenv("CUECARD_VAULT_MIRROR", pg_url)
    return pg_url


def show(cc: Run, vault: str, note: str) -> str:
    code, out, err = cc("vault", "show", note, "--vault", vault, "--json")
    assert code == 0, err
    return str(json.loads(out)["text"])


def test_each_apply_and_decision_reaches_the_database(cc: Run, folder: str, mirror: str) -> None:
    for fact in (
        "the staging database is staging-db.internal on port 5433",
        "the staging database is staging-db.internal on port 5434",
    ):
        assert cc("vault", "submit", "--agent", "a", "--vault", folder, fact)[0] == 0
        assert cc("vault", "apply", "--auto", "--vault", folder)[0] == 0
    assert show(cc, mirror, "env") == show(cc, folder, "env")
    code, out, _ = cc("vault", "search", "staging", "--vault", mirror, "--json")
    assert code == 0
    assert "5433" in json.loads(out)["results"][0]["text"]
    code, out, _ = cc("vault", "conflicts", "--vault", folder, "--json")
    [conflict] = json.loads(out)["conflicts"]
    assert (
        cc("vault", "adjudicate", conflict["id"], "--decision", "use-new", "--vault", folder)[0]
        == 0
    )
    assert "5434" in show(cc, mirror, "env")
    assert "5433" not in show(cc, mirror, "env")
    code, out, _ = cc("vault", "search", "staging", "--vault", mirror, "--json")
    [only] = json.loads(out)["results"]
    assert "staging-db.internal on port 5434" in only["text"]


def test_vault_mirror_copies_hand_edits_and_removals(
    cc: Run, folder: str, mirror: str, tmp_path: Path
) -> None:
    notes = Path(folder) / "notes"
    (notes / "tools.md").write_text("# Tools\n\n- ripgrep is the search tool here\n", "utf-8")
    code, out, err = cc("vault", "mirror", "--vault", folder, "--json")
    assert code == 0, err
    done = json.loads(out)
    assert set(done) == {"url", "notes", "removed", "facts"}
    assert done["facts"] == 1
    assert show(cc, mirror, "tools") == "# Tools\n\n- ripgrep is the search tool here\n"
    (notes / "tools.md").unlink()
    done = json.loads(cc("vault", "mirror", "--vault", folder, "--json")[1])
    assert done["removed"] == ["tools"]
    code, _, err = cc("vault", "show", "tools", "--vault", mirror)
    assert code == 1
    assert "no such canonical note" in err


def test_an_unreachable_mirror_warns_and_the_folder_change_stands(
    cc: Run, folder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUECARD_VAULT_MIRROR", "postgresql://nobody@127.0.0.1:1/none")
    assert cc("vault", "submit", "--agent", "a", "--vault", folder, "ports are fun")[0] == 0
    code, out, err = cc("vault", "apply", "--auto", "--vault", folder, "--json")
    assert code == 0
    assert json.loads(out)["promoted"]
    assert "warning: the vault mirror was not updated" in err
    assert "vault mirror" in err
    code, _, err = cc("vault", "mirror", "--vault", folder)
    assert code == 1
    assert "cannot connect" in err


def test_a_mirror_failure_reaches_the_user_through_notify_and_is_never_printed(
    cc: Run, folder: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cuecard.core.vault import open_backend

    capsys.readouterr()
    monkeypatch.setenv("CUECARD_VAULT_MIRROR", "postgresql://nobody@127.0.0.1:1/none")
    said: list[str] = []
    with open_backend(folder, notify=said.append) as backend:
        backend.submit("a", ["ports are fun"])
        assert backend.apply(auto=True)[0].promoted
    [line] = said
    assert line.startswith("warning: the vault mirror was not updated (")
    assert line.endswith("); `cuecard vault mirror` retries")
    with open_backend(folder) as backend:
        backend.submit("a", ["queues are fun too"])
        assert backend.apply(auto=True)[0].promoted
    assert capsys.readouterr() == ("", "")  # library code prints nothing


def test_mirror_settings_are_checked(cc: Run, folder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = cc("vault", "mirror", "--vault", folder)
    assert code == 2
    assert "no mirror set" in err
    code, _, err = cc("vault", "mirror", "--vault", folder, "--to", "/tmp/elsewhere")
    assert code == 2
    assert "postgresql://" in err
    code, _, err = cc("vault", "mirror", "--vault", folder, "--to", "postgresql://u:pw1234@h/d")
    assert code == 1
    assert "pw1234" not in err
    assert "PGPASSWORD" in err
    monkeypatch.setenv("CUECARD_VAULT_MIRROR", "postgresql://u:pw1234@h/d")
    assert cc("vault", "submit", "--agent", "a", "--vault", folder, "a fact")[0] == 0
    code, _, err = cc("vault", "apply", "--auto", "--vault", folder)
    assert code == 0
    assert "pw1234" not in err
    assert "warning" in err
