"""The memory tools an agent calls (behind the DSH plugin and ``cuecard mcp``): request parsing,
limits, answers, their errors, the vault client, the MCP server.

May import: the foundation, core's public modules and the command line it calls.
"""

__all__: list[str] = []  # a room of core: its modules are private, its public names live elsewhere
