"""The tables both backends keep, column by column: what ``storage.copy`` moves.

Both schemas name the same columns; only the types differ (SQLite keeps JSON
as text and flags as 0/1, PostgreSQL jsonb and booleans). A copied row travels
as plain Python values: JSON decoded, flags as bool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Table:
    """One table to copy: its columns, its key (the copy order), its typed columns."""

    name: str
    columns: tuple[str, ...]
    key: str
    json: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()


#: Every table the stores keep, parents before children (foreign keys). The
#: claims, send_slots and presses tables are left out: a lease or a flood-limit
#: slot is only good for seconds, a press while Telegram may deliver it again.
TABLES: tuple[Table, ...] = (
    Table(
        "sessions",
        ("id", "chat_id", "kind", "game", "status", "creator", "options", "timer", "seed",
         "version", "moves", "state", "deadline", "result", "created", "updated", "due",
         "last_deal", "hints", "link"),
        "id",
        json=frozenset({"options", "state", "result", "last_deal"}),
        flags=frozenset({"hints"}),
    ),
    Table(
        "seats",
        ("session", "seat", "user_id", "name", "level", "timeouts", "stands_in_for"),
        "session, seat",
    ),
    Table(
        "moves",
        ("session", "n", "seat", "action", "by_computer", "time", "version"),
        "session, n",
        flags=frozenset({"by_computer"}),
    ),
    Table(
        "messages",
        ("session", "purpose", "chat_id", "message_id", "inline_message_id", "shown", "wanted",
         "receiver"),
        "session, purpose",
    ),
    Table(
        "results",
        ("session", "user_id", "chat_id", "game", "seat", "won", "points", "time", "seq"),
        "session, user_id",
        flags=frozenset({"won"}),
    ),
    Table("users", ("id", "name", "language", "reachable"), "id", flags=frozenset({"reachable"})),
    Table("chats", ("id", "language"), "id"),
    Table("invites", ("code", "session", "creator", "expires", "used_by"), "code"),
    Table(
        "ratings", ("scope", "game", "user_id", "mu", "sigma", "played", "wins"),
        "scope, game, user_id",
    ),
    Table(
        "rating_changes",
        ("session", "scope", "user_id", "game", "mu_before", "sigma_before", "played_before",
         "wins_before", "mu", "sigma", "played", "wins"),
        "session, scope, user_id",
    ),
    Table("hint_uses", ("session", "seat", "used"), "session, seat"),
)


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
