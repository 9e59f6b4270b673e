"""The store: every query once, over a :class:`~storage.sql.Backend`.

:class:`SqlStore` is the union of the role stores (sessions and moves,
messages and leases, preferences, the send budget, the Mini App's open pages, tallies
and ratings, the daily deal, the seasons), each written once for both backends, plus
the whole-store copy of :mod:`storage.copy`. :class:`storage.sqlite.SqliteStore` and
:class:`storage.postgres.PostgresStore` only choose the backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from storage.sql import Backend, Row, Sql
from storage.store_daily import SqlDaily
from storage.store_messages import SqlLiveness, SqlMessages, SqlPreferences, SqlSendBudget
from storage.store_pages import SqlOpenPages
from storage.store_ratings import SqlTallies
from storage.store_seasons import SqlSeasons
from storage.store_sessions import SqlSessions
from storage.tables import TABLES, Batch, NotEmpty, Table


class SqlStore(
    SqlSessions, SqlMessages, SqlPreferences, SqlSendBudget, SqlLiveness, SqlOpenPages,
    SqlTallies, SqlDaily, SqlSeasons,
):
    """Koloda's store over one backend (see :class:`storage.protocol.Store`)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    async def ping(self, timeout: float) -> None:
        """Raise if the database cannot take a write within ``timeout`` seconds."""
        await self.backend.ping(timeout)

    async def close(self) -> None:
        """Finish pending writes and release the connections."""
        await self.backend.close()

    # ------------------------------------------------------------ copying (storage.copy)

    async def export_tables(
        self, tables: Sequence[Table] = TABLES, batch: int = 500
    ) -> AsyncIterator[Batch]:
        """Every row of ``tables`` in batches, as plain values (JSON decoded, flags
        as bool), all read in one snapshot."""
        async with self.backend.snapshot() as tx:
            for table in tables:
                select = Sql(
                    f"SELECT {', '.join(table.columns)} FROM {table.name} ORDER BY {table.key}"
                )
                async for rows in tx.batches(select, batch):
                    yield table, [self._plain(table, row) for row in rows]

    async def import_tables(self, batches: AsyncIterator[Batch]) -> dict[str, int]:
        """Insert the rows of an export into this empty store, in one transaction;
        the count per table (:class:`NotEmpty` if the store holds data)."""
        counts = {table.name: 0 for table in TABLES}
        async with self.backend.transaction() as tx:
            for table in TABLES:
                if await tx.fetch(Sql(f"SELECT 1 FROM {table.name} LIMIT 1")):
                    raise NotEmpty(f"the destination already has {table.name}")
            async for table, rows in batches:
                await tx.executemany(_insert(table), [self._stored(table, row) for row in rows])
                counts[table.name] = counts.get(table.name, 0) + len(rows)
            await self.backend.after_import(tx)
        return counts

    def _plain(self, table: Table, row: Row) -> tuple[Any, ...]:
        return tuple(
            self.backend.load_json(value) if column in table.json
            else bool(value) if column in table.flags and value is not None
            else value
            for column, value in zip(table.columns, row, strict=True)
        )

    def _stored(self, table: Table, row: tuple[Any, ...]) -> dict[str, Any]:
        return {
            column: self.backend.dump_json(value) if column in table.json else value
            for column, value in zip(table.columns, row, strict=True)
        }


def _insert(table: Table) -> Sql:
    return Sql(
        f"INSERT INTO {table.name} ({', '.join(table.columns)})"
        f" VALUES ({', '.join(f':{column}' for column in table.columns)})"
    )
