"""``cuecard mcp``: the memory tools as a stdio MCP server (the SDK is imported when it runs)."""

from __future__ import annotations

import argparse
import textwrap


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "mcp",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(
            "Serve cuecard's memory tools over the Model Context Protocol on stdin and stdout, "
            "for a harness to start (`cuecard install <harness>` registers it): memory_search, "
            "memory_show, memory_submit and memory_status, the DeepSeek Harness tools with the "
            "same schemas, limits and answers. Inside an opted-in repository memory_search also "
            "covers the project's own memories. Results are wrapped in <memory-data>; a "
            "credential-shaped fact is refused; memory_submit writes only the vault's inbox. "
            "Needs cuecard-core's `mcp` extra (the MCP Python SDK)."
        ),
    )
    parser.add_argument(
        "--vault",
        metavar="PATH|URL",
        help="the vault (default: CUECARD_VAULT, then `vault` in the user config)",
    )
    parser.add_argument(
        "--agent",
        default="mcp",
        help="the agent name stamped on submissions (lowercase letters, digits, -; default mcp)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import re

    from cuecard.core.base._errors import UsageError
    from cuecard.core.service._mcp_server import serve

    if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", args.agent):
        raise UsageError(f"--agent {args.agent[:40]!r}: lowercase letters, digits and -")
    return serve(vault=args.vault, agent=args.agent)
