"""``cuecard vault show``: one canonical note."""

from __future__ import annotations

import argparse
import re

from cuecard.core.cli._vault import add_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.vault._pg import PgVault

NOTE_IDS = ("index", "prefs", "env", "rules", "tools", "ui", "coord", "other")
_NAME = re.compile(r"^[^/\\\x00]+\.md$", re.IGNORECASE)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
        help="print one canonical note, redacted, wrapped in <memory-data>",
        description=(
            "Print a canonical note by id (index, prefs, env, rules, tools, ui, coord, other) or "
            "by its bare file name (NAME.md, directly in the notes folder). Names with a path "
            "separator or '..' are refused before any file is touched. Its facts count as used. "
            "--json prints keys: note, id, text."
        ),
    )
    parser.add_argument("note", metavar="ID|NOTE.md")
    add_common(parser)
    parser.set_defaults(run=run)


def check_name(name: str) -> None:
    from cuecard.core._errors import UsageError

    if ".." in name or not _NAME.fullmatch(name) or name.startswith("."):
        raise UsageError(
            f"note {name!r}: give a note id or a bare NAME.md (no path separators, no '..')"
        )


def run(args: argparse.Namespace) -> int:
    from cuecard.core._errors import NotFound
    from cuecard.core.cli._vault_open import open_any
    from cuecard.core.vault._facts import fact_id, note_facts
    from cuecard.core.vault._render import clean, render_note
    from cuecard.core.vault._vault import Vault

    name: str = args.note.strip()
    if name not in NOTE_IDS:
        check_name(name)  # before any file is touched
    vault = open_any(args)
    if not isinstance(vault, Vault):
        with vault:
            return _show_pg(vault, name, args.json)
    ids = (*vault.layout.notes, "other")
    if name in ids:
        path = vault.note_file(name)
        note_id: str | None = name
    else:
        path = vault.root / vault.layout.notes_dir / name
        catch_all = vault.root / vault.layout.catch_all
        if not path.is_file() and catch_all.name == name:
            path = catch_all
        note_id = vault.note_id_of(str(path.relative_to(vault.root)))
    if path.is_symlink() or not path.is_file():
        raise NotFound(f"note {name!r}: no such canonical note (ids: {', '.join(ids)})")
    text = path.read_text(encoding="utf-8", errors="replace")
    vault.record_use([fact_id(f.text) for f in note_facts(text)])
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"note": path.name, "id": note_id, "text": clean(text)})
    else:
        print(render_note(path.name, text))
    return 0


def _show_pg(vault: PgVault, name: str, as_json: bool) -> int:
    from cuecard.core._errors import NotFound
    from cuecard.core.vault._render import clean, render_note

    note_id = name[:-3] if name.lower().endswith(".md") else name
    text = vault.note(note_id) if note_id in NOTE_IDS else None
    if text is None:
        raise NotFound(f"note {name!r}: no such canonical note (ids: {', '.join(NOTE_IDS)})")
    if as_json:
        from cuecard.core.cli._output import emit_json

        emit_json({"note": f"{note_id}.md", "id": note_id, "text": clean(text)})
    else:
        print(render_note(f"{note_id}.md", text))
    return 0
