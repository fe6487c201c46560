"""The repository stands on its own: its documents link to files that exist, and nothing in it
cites a document that lives outside it (a design brief, a study, a machine's paths)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".sh", ".js", ".mjs", ".php", ".toml", ".yml", ".yaml", ".html", ".txt"}
# Built from parts so that this file does not match itself.
OUTSIDE = re.compile(
    "|".join(
        [
            r"\breference/[\w.-]+\.md",
            "ARCHITECT" + r"URE\.md",
            r"\bseeds/[\w.-]+",
            "STY" + r"LE\.md",
            "DEVEL" + r"OPERS\.md",
            "/" + r"work/(?:shared|main|briefs)\b",
        ]
    )
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tracked(*patterns: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *patterns],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def documents() -> list[Path]:
    return tracked("*.md", "docs/*", "packages/*/README.md")


def sources() -> list[Path]:
    files = tracked("packages", "tests", "tools", "scripts", "docs", ".ci", "*.md")
    return [p for p in files if p.suffix in TEXT or p.parent.name in ("scripts", ".ci")]


def test_there_are_documents_and_sources_to_check() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in documents()}
    assert {"README.md", "CONTRIBUTING.md", "docs/architecture.md"} <= names
    assert len(sources()) > 100


@pytest.mark.parametrize("path", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_lead_to_files_in_the_repository(path: Path) -> None:
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        assert file.exists(), f"{path.relative_to(ROOT)} links to {target}, which does not exist"
        assert file.is_relative_to(ROOT), f"{path.relative_to(ROOT)} links outside: {target}"


def test_nothing_cites_a_document_outside_the_repository() -> None:
    found = []
    for path in sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = OUTSIDE.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)}")
    assert found == []


def test_the_contributors_guide_holds_no_machine_paths() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert re.findall(r"(?<![\w.~])/(?:work|root|home|Users|tmp)/", text) == []


def test_every_test_file_the_guides_cite_exists() -> None:
    guides = [
        "CONTRIBUTING.md",
        "README.md",
        *(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")),
    ]
    for doc in guides:
        text = (ROOT / doc).read_text(encoding="utf-8")
        for cited in re.findall(r"`(tests/[\w/.-]+\.py)", text):
            assert (ROOT / cited).is_file(), f"{doc} cites {cited}, which does not exist"
