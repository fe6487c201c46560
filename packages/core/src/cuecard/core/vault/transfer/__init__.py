"""Moving a vault between the two backends: export, import and the mirror."""

__all__: list[str] = []
