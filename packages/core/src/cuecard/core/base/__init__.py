"""Core's foundation, standard library only: the error tree (``_errors``), crash-consistent files
(``_fsio``), the confined filesystem layer (``_confined``: every path walked by descriptor, no
link followed), the lazy re-export helper (``_lazy``), strict decoding of outside text
(``_decoding``) and the pip hint (``_pip``).

May import: nothing else of core. Every other room, the engine included, may import it.
"""

__all__: list[str] = []  # a room of core: its modules are private, its public names live elsewhere
