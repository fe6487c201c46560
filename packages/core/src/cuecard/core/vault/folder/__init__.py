"""The Markdown-folder vault: notes, inbox, pending list and conflict file under a lock."""

__all__: list[str] = []
