"""The WordPress content check is core's one credential detector: a file holding any credential
of the corpus is refused (its outcome never echoes it, nothing is written, the manifest does not
keep it), and a file holding a placeholder is written. One batch for each."""

from __future__ import annotations

from pathlib import Path

from cuecard.wp_projection import Change, Projector, SafeRoot
from tests._support.credentials import CREDENTIALS, PLACEHOLDERS, fragments


def _update(path: str, text: str) -> Change:
    return Change(
        kind="update",
        site="s",
        home_url="https://a.example",
        path=path,
        layer="agent",
        filename=path.rsplit("/", 1)[-1],
        content=f"# Notes\n\nDeploys use {text} today.\n".encode(),
        seq=1,
    )


def test_content_holding_any_credential_is_refused_without_echo(tmp_path: Path) -> None:
    root = tmp_path / "runtime"
    root.mkdir()
    paths = [f"s/shared/N{n:03d}.md" for n in range(len(CREDENTIALS))]
    result = Projector(SafeRoot(root)).apply(
        [_update(path, c.text) for path, c in zip(paths, CREDENTIALS, strict=True)]
    )
    assert [o.action for o in result.outcomes] == ["refused"] * len(CREDENTIALS)
    manifest = (root / ".dm-memory/.manifest.json").read_text()
    for credential, outcome, path in zip(CREDENTIALS, result.outcomes, paths, strict=True):
        assert "holds a credential" in outcome.detail, credential.family
        for piece in fragments(credential):
            assert piece not in outcome.detail, credential.family
            assert piece not in manifest, credential.family
        assert not (root / ".dm-memory" / path).exists()


def test_content_holding_a_placeholder_is_written(tmp_path: Path) -> None:
    root = tmp_path / "runtime"
    root.mkdir()
    changes = [_update(f"s/shared/P{n:03d}.md", text) for n, text in enumerate(PLACEHOLDERS)]
    result = Projector(SafeRoot(root)).apply(changes)
    assert [o.detail for o in result.outcomes if o.action != "written"] == []
