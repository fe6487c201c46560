"""The PostgreSQL vault: one database that many machines search and submit to."""

__all__: list[str] = []
