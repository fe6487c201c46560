"""``cuecard doctor`` and what it checks: the installed hooks, Codex's hook trust, Grok Build's
folder trust, the DSH and MCP set-ups, the caches.

May import: the foundation, the engine, the store, the lifecycle, recall and the vault.
"""

__all__: list[str] = []  # a room of core: its modules are private, its public names live elsewhere
