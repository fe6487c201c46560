"""``cuecard vault archive``: append a redacted session block to today's archive."""

from __future__ import annotations

import argparse
import sys

from cuecard.core.cli.vault import add_common


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "archive",
        description=(
            "Read a session summary on stdin and append it, redacted, as a block "
            "'## HH:MM [agent] title' to the day's file in the sessions folder, under the vault "
            "lock. Hosts call it at the end of a session. Empty input archives nothing. --json "
            "prints keys: archived, file, lines."
        ),
    )
    parser.add_argument("--agent", required=True, help="who ran the session")
    parser.add_argument("--title", default="", help="a short title")
    add_common(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from cuecard.core.cli.vault._open import open_backend
    from cuecard.core.vault._rules import MAX_ARCHIVE_CHARS, check_agent

    check_agent(args.agent)
    text = sys.stdin.read(MAX_ARCHIVE_CHARS + 1)
    if len(text) > MAX_ARCHIVE_CHARS:
        from cuecard.core.base._errors import ValidationError

        raise ValidationError([f"archive: more than {MAX_ARCHIVE_CHARS} characters on stdin"])
    with open_backend(args) as vault:
        done = vault.archive(args.agent, args.title, text)
        sessions = vault.places.sessions
    if args.json:
        from cuecard.core.cli._output import emit_json

        emit_json(
            {
                "archived": done is not None,
                "file": None if done is None else f"{sessions}/{done[0]}",
                "lines": 0 if done is None else done[1],
            }
        )
    elif done is None:
        print("nothing to archive (empty input)", file=sys.stderr)
    else:
        print(f"archived {done[1]} line(s) to {sessions}/{done[0]}")
    return 0
