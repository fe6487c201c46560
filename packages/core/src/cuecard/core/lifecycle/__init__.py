"""A memory's life after the store: ingestion of proposals with their evidence and grounds,
a person's decisions, maintenance, telemetry and the health report, dry runs, import of other
agents' rules, migration from DeltaDictum, export, the store's findings.

May import: the foundation, the engine, the store and the vault (and, through it, recall).
"""

__all__: list[str] = []  # a room of core: its modules are private, its public names live elsewhere
