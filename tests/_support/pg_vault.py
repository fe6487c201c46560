"""Notes of a PostgreSQL vault the tests fill directly (three notes, English, Chinese, Japanese
and a superseded section)."""

from __future__ import annotations

from cuecard.core.vault.postgres import PgVault

FACTS = {
    "env": (
        "- the CI runners use Python 3.12 and PostgreSQL 15\n"
        "- deploy keys live in the team password manager, entry deploy/prod\n"
        "- the staging database is staging-db.internal on port 5433\n"
    ),
    "tools": (
        "- run scripts/test before every push; it installs what the tests need\n"
        "- parse_config_file() reads cuecard.toml and falls back to defaults\n"
        "- 部署前先运行数据库迁移脚本\n"
        "- 日本語のドキュメントは docs/ja にある\n"
    ),
    "prefs": "- answer in short sentences\n## superseded\n- answer in long paragraphs\n",
}


def fill(url: str) -> None:
    """Write ``FACTS`` as the notes of the PostgreSQL vault at ``url``."""
    with PgVault(url) as vault:
        for note, text in FACTS.items():
            vault.add_note_text(note, text)
