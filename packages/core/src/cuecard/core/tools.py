"""The four memory tools (``memory_search``, ``memory_show``, ``memory_submit``,
``memory_status``), one implementation behind every host: the DeepSeek Harness plugin and the
MCP server (``cuecard mcp``) call the same functions, so the names, schemas, limits,
``<memory-data>`` framing, secret refusal and error answers cannot drift apart.

``parse_request`` checks a request, ``handle`` runs it against a ``VaultClient`` (the vault's
own command line, in this process), ``respond`` does both and finds the session's project.
Re-exported lazily: the per-call paths import only what they use.
"""

from __future__ import annotations

from cuecard.core.base._lazy import lazy_exports as _lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cuecard.core.service._memory_tools import ALIASES as ALIASES
    from cuecard.core.service._memory_tools import CLOSE_TAG as CLOSE_TAG
    from cuecard.core.service._memory_tools import DATA_NOTE as DATA_NOTE
    from cuecard.core.service._memory_tools import DEFAULT_AGENT as DEFAULT_AGENT
    from cuecard.core.service._memory_tools import LIMIT_RANGE as LIMIT_RANGE
    from cuecard.core.service._memory_tools import MAX_FACTS_CHARS as MAX_FACTS_CHARS
    from cuecard.core.service._memory_tools import MAX_OUTPUT_CHARS as MAX_OUTPUT_CHARS
    from cuecard.core.service._memory_tools import MAX_QUERY_CHARS as MAX_QUERY_CHARS
    from cuecard.core.service._memory_tools import MAX_REQUEST_BYTES as MAX_REQUEST_BYTES
    from cuecard.core.service._memory_tools import SPECS as SPECS
    from cuecard.core.service._memory_tools import TOOLS as TOOLS
    from cuecard.core.service._memory_tools import TRUNCATION_MARKER as TRUNCATION_MARKER
    from cuecard.core.service._memory_tools import answer as answer
    from cuecard.core.service._memory_tools import bound as bound
    from cuecard.core.service._memory_tools import clamp_limit as clamp_limit
    from cuecard.core.service._memory_tools import doc_problem as doc_problem
    from cuecard.core.service._memory_tools import handle as handle
    from cuecard.core.service._memory_tools import parse_request as parse_request
    from cuecard.core.service._memory_tools import refusal as refusal
    from cuecard.core.service._memory_tools import respond as respond
    from cuecard.core.service._memory_tools import tool_name as tool_name
    from cuecard.core.service._tool_errors import BadRequest as BadRequest
    from cuecard.core.service._tool_errors import VaultCallError as VaultCallError
    from cuecard.core.service._tool_errors import VaultNotConfigured as VaultNotConfigured
    from cuecard.core.service._vault_client import PROJECT_NOTE as PROJECT_NOTE
    from cuecard.core.service._vault_client import CliRunner as CliRunner
    from cuecard.core.service._vault_client import VaultClient as VaultClient
    from cuecard.core.service._vault_client import find_project as find_project
    from cuecard.core.service._vault_client import run_core_cli as run_core_cli
    from cuecard.core.service._vault_client import session_project as session_project
    from cuecard.core.service._vault_client import vault_location as vault_location

_EXPORTS: dict[str, str] = {
    "ALIASES": "cuecard.core.service._memory_tools",
    "CLOSE_TAG": "cuecard.core.service._memory_tools",
    "DATA_NOTE": "cuecard.core.service._memory_tools",
    "DEFAULT_AGENT": "cuecard.core.service._memory_tools",
    "LIMIT_RANGE": "cuecard.core.service._memory_tools",
    "MAX_FACTS_CHARS": "cuecard.core.service._memory_tools",
    "MAX_OUTPUT_CHARS": "cuecard.core.service._memory_tools",
    "MAX_QUERY_CHARS": "cuecard.core.service._memory_tools",
    "MAX_REQUEST_BYTES": "cuecard.core.service._memory_tools",
    "SPECS": "cuecard.core.service._memory_tools",
    "TOOLS": "cuecard.core.service._memory_tools",
    "TRUNCATION_MARKER": "cuecard.core.service._memory_tools",
    "answer": "cuecard.core.service._memory_tools",
    "bound": "cuecard.core.service._memory_tools",
    "clamp_limit": "cuecard.core.service._memory_tools",
    "doc_problem": "cuecard.core.service._memory_tools",
    "handle": "cuecard.core.service._memory_tools",
    "parse_request": "cuecard.core.service._memory_tools",
    "refusal": "cuecard.core.service._memory_tools",
    "respond": "cuecard.core.service._memory_tools",
    "tool_name": "cuecard.core.service._memory_tools",
    "CliRunner": "cuecard.core.service._vault_client",
    "PROJECT_NOTE": "cuecard.core.service._vault_client",
    "VaultClient": "cuecard.core.service._vault_client",
    "find_project": "cuecard.core.service._vault_client",
    "run_core_cli": "cuecard.core.service._vault_client",
    "session_project": "cuecard.core.service._vault_client",
    "vault_location": "cuecard.core.service._vault_client",
    "BadRequest": "cuecard.core.service._tool_errors",
    "VaultCallError": "cuecard.core.service._tool_errors",
    "VaultNotConfigured": "cuecard.core.service._tool_errors",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS, __all__)
