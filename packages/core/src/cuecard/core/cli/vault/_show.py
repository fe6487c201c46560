"""``cuecard vault show``: one canonical note."""

from __future__ import annotations

import argparse

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
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


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._render import clean, render_note
    from cuecard.core.vault._shared import check_note_name

    name: str = args.note.strip()
    check_note_name(name)  # before any file or row is touched
    with open_backend(args) as vault:
        shown = vault.show(name)
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json({"note": shown.file, "id": shown.id, "text": clean(shown.text)})
    else:
        print(render_note(shown.file, shown.text))
    return 0
