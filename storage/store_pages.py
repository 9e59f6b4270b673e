"""The Mini App's pages open on each worker (:class:`storage.protocol.OpenPages`)."""

from __future__ import annotations

from collections.abc import Sequence

from storage.sql import Backend, Sql, Tx

_KEEP = Sql(
    "INSERT INTO open_pages (session, user_id, worker, until)"
    " VALUES (:session, :user, :worker, :until)"
    " ON CONFLICT (session, user_id, worker) DO UPDATE SET until = excluded.until"
)
#: the worker's pages not just kept: closed since its last call
_CLOSED = Sql("DELETE FROM open_pages WHERE worker = :worker AND until <> :until")
_USERS = Sql(
    "SELECT DISTINCT user_id FROM open_pages WHERE session = :session AND until > :now"
    " ORDER BY user_id"
)


class SqlOpenPages:
    """The open pages of every worker sharing the store."""

    backend: Backend

    async def keep_pages(
        self, worker: str, pages: Sequence[tuple[int, int]], until: float
    ) -> None:
        """Upsert the worker's open pages with ``until``, then delete its rows that
        were not (only the worker's own rows: no lock is shared with another's call)."""
        rows = [
            {"session": session, "user": user, "worker": worker, "until": float(until)}
            for session, user in sorted(pages)
        ]

        async def keep(tx: Tx) -> None:
            if rows:
                await tx.executemany(_KEEP, rows)
            await tx.execute(_CLOSED, worker=worker, until=float(until))

        await self.backend.write(keep)

    async def page_users(self, session_id: int, now: float) -> list[int]:
        """The users with a page of the session standing at ``now`` (the key's prefix)."""
        rows = await self.backend.fetch(_USERS, session=session_id, now=float(now))
        return [int(row[0]) for row in rows]
