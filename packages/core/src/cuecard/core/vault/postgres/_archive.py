"""Session archives on a PostgreSQL vault: one ``cuecard_archives`` row per day.

The block is the folder vault's (``_rules.render_block``: redacted, neutralised) and the row's
text is what the folder's ``sessions/<YYYY-MM-DD>.md`` would hold: ``# <date>`` then each block.
A block is appended by one upsert, so concurrent archivers on any machine lose nothing.
"""

from __future__ import annotations

from cuecard.core.vault._rules import render_block
from cuecard.core.vault.postgres._vault import PgVault

__all__ = ["archive_session_pg"]

_APPEND = """
INSERT INTO cuecard_archives (name, text) VALUES (%(name)s, %(head)s || %(block)s)
ON CONFLICT (name) DO UPDATE SET
    text = cuecard_archives.text
           || CASE WHEN cuecard_archives.text = '' OR right(cuecard_archives.text, 1) = E'\\n'
                   THEN '' ELSE E'\\n' END
           || %(block)s,
    updated_at = now()
"""


def archive_session_pg(vault: PgVault, agent: str, title: str, text: str) -> tuple[str, int] | None:
    """Append the block to the day's archive; its name and line count, or ``None`` if empty."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    now = vault.now()
    day = now.date().isoformat()
    block = render_block(now.strftime("%H:%M"), agent, title, lines)
    with vault.conn.transaction():
        vault.conn.execute(_APPEND, {"name": f"{day}.md", "head": f"# {day}\n\n", "block": block})
    return f"{day}.md", len(lines)
