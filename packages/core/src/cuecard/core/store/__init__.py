"""The project store: the memory model and its configuration, validation, globs, ``.cuecard/`` on
disk, proposals and their reader, and the trigger compiler with its cache (what writes the index
the engine reads).

May import: the foundation (``cuecard.core.base``) and the engine.
"""

__all__: list[str] = []  # a room of core: its modules are private, its public names live elsewhere
