"""``cuecard schema``: the JSON Schema of cuecard's records."""

from __future__ import annotations

import argparse

from cuecard.core.cli._output import emit_json

SCHEMAS = ("memory", "proposal", "config")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "schema",
        description="Print the JSON Schema of a memory, an inbox proposal or .cuecard/config.json.",
    )
    parser.add_argument("name", choices=SCHEMAS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.name == "memory":
        from cuecard.core.store._memory import Memory

        emit_json(Memory.model_json_schema())
    elif args.name == "proposal":
        from cuecard.core.store._proposal import proposal_schema

        emit_json(proposal_schema())
    else:
        from cuecard.core.store._config import ProjectConfig

        emit_json(ProjectConfig.model_json_schema())
    return 0
