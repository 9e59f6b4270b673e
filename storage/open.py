"""``open_store(url)``: the :class:`~storage.protocol.Store` named by ``DATABASE_URL``."""

from __future__ import annotations

from storage.protocol import Store


async def open_store(url: str) -> Store:
    """Open (and migrate) the store at ``url``: ``sqlite:///path`` or ``postgresql://…``.

    Raises ValueError for a malformed URL and
    :class:`~storage.protocol.DatabaseUnusable` for a database that cannot be
    used (one line, for the operator).
    """
    if url.startswith(("postgresql://", "postgres://")):
        from storage.postgres import PostgresStore

        return await PostgresStore.open(url)
    from storage.sqlite import SqliteStore

    return await SqliteStore.open(url)
