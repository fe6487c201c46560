"""Runtime wiring in owned blocks only, and `cuecard wp status`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuecard.core.cli import main
from cuecard.wp_projection import Change, Projector, SafeRoot

MARK_START = "<!-- CUECARD_WP_PROJECTION_START -->"
MARK_END = "<!-- CUECARD_WP_PROJECTION_END -->"


def project(root: Path, *files: tuple[str, str, bytes], seq: int = 1) -> None:
    changes = [
        Change(
            kind="update",
            site="prod",
            home_url="https://a.example",
            path=f"prod/{rel}",
            layer=layer,
            agent_slug="admin",
            filename=rel.rsplit("/", 1)[-1],
            content=body,
            seq=seq,
        )
        for rel, layer, body in files
    ]
    from cuecard.wp_projection._wiring import refresh

    Projector(SafeRoot(root), on_change=refresh).apply(changes)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    project(
        runtime,
        ("agents/admin/MEMORY.md", "agent", b"m\n"),
        ("shared/SITE.md", "shared", b"s\n"),
        ("agents/admin/SOUL.md", "agent", b"soul\n"),
        ("agents/admin/daily/2026/04/17.md", "agent", b"d\n"),
    )
    return runtime


def wp(*args: str) -> int:
    return main(["wp", *args])


def test_claude_gets_an_include_block_and_keeps_the_rest(root, capsys) -> None:
    claude = root / "CLAUDE.md"
    claude.write_text("# My project\n\nHand-written rules.\n")
    assert wp("wire", "claude", "--root", str(root), "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"runtime", "wired", "paths"}
    text = claude.read_text()
    assert text.startswith("# My project\n\nHand-written rules.\n\n" + MARK_START)
    block = text[text.index(MARK_START) : text.index(MARK_END)]
    includes = [line for line in block.splitlines() if line.startswith("@")]
    assert includes == [
        "@.dm-memory/prod/shared/SITE.md",
        "@.dm-memory/prod/agents/admin/SOUL.md",
        "@.dm-memory/prod/agents/admin/MEMORY.md",
    ]
    # New records refresh the block; the user's text outside it is untouched.
    claude.write_text(claude.read_text() + "\nMore notes after the block.\n")
    project(root, ("users/1/USER.md", "user", b"u\n"), seq=2)
    text = claude.read_text()
    assert "@.dm-memory/prod/users/1/USER.md" in text
    assert text.endswith("\nMore notes after the block.\n")
    assert wp("unwire", "claude", "--root", str(root)) == 0
    assert (
        claude.read_text() == "# My project\n\nHand-written rules.\n\nMore notes after the block.\n"
    )


def test_claude_markers_out_of_order_are_refused(root, capsys) -> None:
    claude = root / "CLAUDE.md"
    claude.write_text(f"{MARK_END}\nx\n{MARK_START}\n")
    assert wp("wire", "claude", "--root", str(root)) == 1
    assert "must both be present, in that order" in capsys.readouterr().err
    assert claude.read_text() == f"{MARK_END}\nx\n{MARK_START}\n"


def test_opencode_gets_owned_instructions_with_a_backup(root) -> None:
    config = root / "opencode.json"
    original = {
        "$schema": "https://opencode.ai/config.json",
        "model": "x/y",
        "instructions": ["./docs/RULES.md", "./.dm-memory/prod/shared/SITE.md"],
    }
    config.write_text(json.dumps(original))
    assert wp("wire", "opencode", "--root", str(root)) == 0
    data = json.loads(config.read_text())
    assert data["model"] == "x/y"
    assert data["instructions"] == [
        "./docs/RULES.md",
        "./.dm-memory/prod/shared/SITE.md",
        "./.dm-memory/prod/agents/admin/SOUL.md",
        "./.dm-memory/prod/agents/admin/MEMORY.md",
    ]
    assert json.loads((root / "opencode.json.cuecard-backup").read_text()) == original
    assert wp("unwire", "opencode", "--root", str(root)) == 0
    # The entry the user had listed before stays theirs.
    assert json.loads(config.read_text())["instructions"] == original["instructions"]


def test_kimaki_is_wired_through_opencode(root) -> None:
    assert wp("wire", "kimaki", "--root", str(root)) == 0
    data = json.loads((root / "opencode.json").read_text())
    assert "./.dm-memory/prod/agents/admin/MEMORY.md" in data["instructions"]
    assert not (root / "opencode.json.cuecard-backup").exists()  # nothing to back up
    assert wp("wire", "opencode", "--root", str(root)) == 0
    assert wp("unwire", "kimaki", "--root", str(root)) == 0
    assert (
        "./.dm-memory/prod/agents/admin/MEMORY.md"
        in json.loads((root / "opencode.json").read_text())["instructions"]
    )  # still wanted by opencode
    assert wp("unwire", "opencode", "--root", str(root)) == 0
    assert json.loads((root / "opencode.json").read_text()) == {}


def test_an_invalid_opencode_json_is_left_alone(root, capsys) -> None:
    (root / "opencode.json").write_text("{ not json")
    assert wp("wire", "opencode", "--root", str(root)) == 1
    assert "opencode.json: not valid JSON" in capsys.readouterr().err
    assert (root / "opencode.json").read_text() == "{ not json"


def test_a_symlinked_claude_md_is_never_written_through(root, tmp_path, capsys) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("keep\n")
    (root / "CLAUDE.md").symlink_to(victim)
    assert wp("wire", "claude", "--root", str(root)) == 1
    assert "symbolic link" in capsys.readouterr().err
    assert victim.read_text() == "keep\n"


def test_status_reports_projection_preserved_and_wiring(root, capsys) -> None:
    (root / ".dm-memory/prod/agents/admin/MEMORY.md").write_text("local edit\n")
    project(root, ("agents/admin/MEMORY.md", "agent", b"m2\n"), seq=3)
    assert wp("wire", "claude", "--root", str(root)) == 0
    capsys.readouterr()
    assert wp("status", "--root", str(root), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {
        "root",
        "managed",
        "sites",
        "projected",
        "queue",
        "preserved",
        "refused",
        "refused_events",
        "retrying",
        "wired",
    }
    assert report["sites"]["prod"]["last_seq"] == 3
    assert len(report["projected"]) == 4
    preserved = report["preserved"][".dm-memory/prod/agents/admin/MEMORY.md"]
    assert preserved["reason"] == "local edit"
    assert preserved["incoming"] == ".dm-memory/prod/agents/admin/MEMORY.md.incoming"
    assert report["queue"] == {"waiting": 0, "applied": 0}
    assert report["wired"] == ["claude"]
    assert wp("status", "--root", str(root)) == 0
    text = capsys.readouterr().out
    assert "preserved: .dm-memory/prod/agents/admin/MEMORY.md: local edit" in text


def test_help_lists_every_json_key() -> None:
    import io
    from contextlib import redirect_stdout

    for sub, keys in {
        "status": (
            "root",
            "managed",
            "sites",
            "projected",
            "queue",
            "preserved",
            "refused",
            "wired",
        ),
        "sync": ("site", "counts", "outcomes"),
        "wire": ("runtime", "wired", "paths"),
        "bridge": ("files", "endpoint"),
    }.items():
        buffer = io.StringIO()
        with redirect_stdout(buffer), pytest.raises(SystemExit):
            main(["wp", sub, "--help"])
        text = " ".join(buffer.getvalue().split())
        for key in keys:
            assert key in text, (sub, key)
