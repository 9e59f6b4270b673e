"""The posts a group gets once per period: a day's closed daily boards, a month's
season champions.

One table per kind of post (``daily_posts`` keyed by day, ``season_posts`` by
month), one row per period and group, written once by whoever looks first; a
post is taken by one atomic update before it is sent, so of any number of
workers, restarted or not, one sends it, once.
"""

from __future__ import annotations

from collections.abc import Iterable

from storage.sql import Backend, Sql


class PostRows:
    """The statements of one table of posts (``period``: its key column beside the chat)."""

    def __init__(self, table: str, period: str) -> None:
        self.open = Sql(
            f"INSERT INTO {table} ({period}, chat_id) VALUES (:period, :chat)"
            " ON CONFLICT DO NOTHING"
        )
        self.known = Sql(f"SELECT chat_id FROM {table} WHERE {period} = :period")
        self.waiting = Sql(
            f"SELECT chat_id FROM {table} WHERE {period} = :period AND posted IS NULL"
            " ORDER BY chat_id"
        )
        self.take = Sql(
            f"UPDATE {table} SET owner = :owner, posted = :now"
            f" WHERE {period} = :period AND chat_id = :chat AND posted IS NULL"
        )

    async def opened(self, backend: Backend, period: int, chats: Iterable[int]) -> list[int]:
        """A post row for each of ``chats`` in ``period`` (once: rows already there are
        kept), and the groups whose post is not taken yet. Reads first: it writes only
        rows that are missing (the insert ignores those another worker made meanwhile)."""
        known = {int(row[0]) for row in await backend.fetch(self.known, period=period)}
        missing = sorted(set(chats) - known)
        if missing:
            await backend.write(lambda tx: tx.executemany(
                self.open, [{"period": period, "chat": chat} for chat in missing]
            ))
        return [int(row[0]) for row in await backend.fetch(self.waiting, period=period)]

    async def taken(
        self, backend: Backend, period: int, chat_id: int, owner: str, now: float
    ) -> bool:
        """Take the group's post of ``period`` for ``owner`` (True for one caller, ever)."""
        changed = await backend.execute(
            self.take, period=period, chat=chat_id, owner=owner, now=float(now)
        )
        return changed == 1
