"""The tables both backends keep, column by column: what ``storage.copy`` moves.

Read off :mod:`storage.schema`: both backends name the same columns; only the
types differ (SQLite keeps JSON as text and flags as 0/1, PostgreSQL jsonb and
booleans). A copied row travels as plain Python values: JSON decoded, flags as
bool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import sqlalchemy as sa

from storage.schema import METADATA, Flag, Json


@dataclass(frozen=True)
class Table:
    """One table to copy: its columns, its key (the copy order), its typed columns."""

    name: str
    columns: tuple[str, ...]
    key: str
    json: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()


#: Not copied: a lease, a flood-limit slot, a worker's heartbeat or an open page is only
#: good for seconds, a press while Telegram may deliver it again.
_LEFT_OUT = frozenset({"claims", "send_slots", "presses", "workers", "open_pages"})
_LEFT_OUT_COLUMNS = frozenset({"lease_owner", "lease_until"})
#: The copy order: parents before children (foreign keys).
_ORDER = (
    "sessions", "seats", "moves", "messages", "results", "users", "chats", "invites",
    "ratings", "rating_changes", "hint_uses", "daily_deals", "daily_plays", "daily_posts",
    "season_ratings", "season_posts",
)


def _table(table: sa.Table) -> Table:
    return Table(
        table.name,
        tuple(column.name for column in table.columns if column.name not in _LEFT_OUT_COLUMNS),
        ", ".join(column.name for column in table.primary_key.columns),
        json=frozenset(column.name for column in table.columns if column.type is Json),
        flags=frozenset(column.name for column in table.columns if column.type is Flag),
    )


#: Every table the stores keep but the short-lived ones, parents before children.
TABLES: tuple[Table, ...] = tuple(_table(METADATA.tables[name]) for name in _ORDER)
if set(_ORDER) | _LEFT_OUT != set(METADATA.tables):
    raise RuntimeError("storage.tables: a table is neither copied nor left out")


class NotEmpty(Exception):
    """The destination of a copy already holds data."""


#: A batch of an export: rows of one table, in its column order.
Batch = tuple[Table, list[tuple[Any, ...]]]


@runtime_checkable
class Copyable(Protocol):
    """What both stores offer ``storage.copy`` beside the ``Store`` protocol."""

    def export_tables(
        self, tables: Sequence[Table] = ..., batch: int = ...
    ) -> AsyncIterator[Batch]:
        """Every row of ``tables`` in batches, from one snapshot."""
        ...

    async def import_tables(self, batches: AsyncIterator[Batch]) -> dict[str, int]:
        """Insert an export into this empty store in one transaction; counts per table."""
        ...
