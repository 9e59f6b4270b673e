"""Message refs and their delivery leases, preferences, and the send budget: one
implementation for both backends."""

from __future__ import annotations

from storage.records import Beat, MessageRef
from storage.sql import Backend, Sql, Tx
from storage.store_sessions import REMEMBER_USER

_MESSAGE_COLUMNS = "purpose, chat_id, message_id, inline_message_id, shown, wanted, receiver"
_SET_MESSAGE = Sql(
    "INSERT INTO messages (session, purpose, chat_id, message_id, inline_message_id,"
    " shown, wanted, receiver) VALUES (:session, :purpose, :chat_id, :message_id,"
    " :inline_message_id, :shown, :wanted, :receiver) ON CONFLICT (session, purpose) DO UPDATE"
    " SET chat_id = excluded.chat_id, message_id = excluded.message_id,"
    " inline_message_id = excluded.inline_message_id, shown = excluded.shown,"
    " wanted = {greatest}(messages.wanted, excluded.wanted), receiver = excluded.receiver,"
    " lease_owner = NULL, lease_until = NULL"
)
_DROP_MESSAGE = Sql("DELETE FROM messages WHERE session = :session AND purpose = :purpose")
_MESSAGES = Sql(
    f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session = :session ORDER BY purpose"
)
_MARK_SHOWN = Sql(
    "UPDATE messages SET shown = {greatest}(shown, :version)"
    " WHERE session = :session AND purpose = :purpose"
)
_BEHIND = Sql("SELECT DISTINCT session FROM messages WHERE shown < wanted ORDER BY session")
_LEASE = Sql(
    "INSERT INTO messages (session, purpose, chat_id, shown, wanted, lease_owner, lease_until)"
    " VALUES (:session, :purpose, :chat, -1, -1, :owner, :until)"
    " ON CONFLICT (session, purpose) DO UPDATE"
    " SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until"
    " WHERE messages.lease_owner IS NULL OR messages.lease_owner = excluded.lease_owner"
    " OR messages.lease_until <= :now"
    f" RETURNING {_MESSAGE_COLUMNS}"
)
_RELEASE = Sql(
    "UPDATE messages SET"
    " lease_owner = CASE WHEN lease_owner = :owner THEN NULL ELSE lease_owner END,"
    " lease_until = CASE WHEN lease_owner = :owner THEN NULL ELSE lease_until END,"
    " shown = {greatest}(shown, COALESCE(:shown, shown)),"
    " wanted = {greatest}(wanted, COALESCE(:shown, wanted)),"
    " chat_id = COALESCE(:chat, chat_id), message_id = COALESCE(:message, message_id),"
    " receiver = CASE WHEN CAST(:chat AS BIGINT) IS NULL THEN receiver END"
    " WHERE session = :session AND purpose = :purpose"
)
_DROP_PLACEHOLDER = Sql(
    "DELETE FROM messages WHERE session = :session AND purpose = :purpose"
    " AND message_id IS NULL AND inline_message_id IS NULL AND lease_owner IS NULL"
)
#: per scope of set_language / language: its table
_SCOPES = {"user": "users", "chat": "chats"}
_SET_LANGUAGE = {
    scope: Sql(
        f"INSERT INTO {table} (id, language) VALUES (:id, :language)"
        " ON CONFLICT (id) DO UPDATE SET language = excluded.language"
    )
    for scope, table in _SCOPES.items()
}
_LANGUAGE = {
    scope: Sql(f"SELECT language FROM {table} WHERE id = :id") for scope, table in _SCOPES.items()
}
_SET_REACHABLE = Sql(
    "INSERT INTO users (id, reachable) VALUES (:id, :reachable)"
    " ON CONFLICT (id) DO UPDATE SET reachable = excluded.reachable"
)
_REACHABLE = Sql("SELECT reachable FROM users WHERE id = :id")
_RESERVE_SEND = Sql(
    "INSERT INTO send_slots (key, next, owner, slot)"
    " VALUES (:key, CAST(:now AS DOUBLE PRECISION) + CAST(:interval AS DOUBLE PRECISION),"
    " :worker, :now)"
    " ON CONFLICT (key) DO UPDATE SET next = {greatest}(send_slots.next,"
    " CAST(:now AS DOUBLE PRECISION)) + CAST(:interval AS DOUBLE PRECISION),"
    " slot = {greatest}(send_slots.next, CAST(:now AS DOUBLE PRECISION)),"
    " owner = excluded.owner"
    " RETURNING slot"
)
#: a dead worker's latest booking of a key that has not opened: the next one gets it
_GIVE_BACK = Sql(
    "UPDATE send_slots SET next = slot, owner = NULL WHERE owner = :worker AND slot > :now"
)

_BEAT = Sql("UPDATE workers SET beat = :now WHERE id = :worker")
_FIRST_BEAT = Sql(
    "INSERT INTO workers (id, beat) VALUES (:worker, :now)"
    " ON CONFLICT (id) DO UPDATE SET beat = excluded.beat"
)
_SILENT = Sql("DELETE FROM workers WHERE beat < :before RETURNING id")
_FORGET_PAGES = Sql("DELETE FROM open_pages WHERE worker = :worker")


class SqlMessages:
    """The messages-and-leases role of the store (:class:`storage.protocol.MessageStore`)."""

    backend: Backend

    async def set_message(self, session_id: int, ref: MessageRef) -> None:
        """Remember (or replace) the message of ``ref.purpose``."""
        await self.backend.execute(
            _SET_MESSAGE, session=session_id, purpose=ref.purpose, chat_id=ref.chat_id,
            message_id=ref.message_id, inline_message_id=ref.inline_message_id,
            shown=ref.shown, wanted=ref.wanted, receiver=ref.receiver,
        )

    async def drop_message(self, session_id: int, purpose: str) -> None:
        """Forget the message of ``purpose``."""
        await self.backend.execute(_DROP_MESSAGE, session=session_id, purpose=purpose)

    async def messages_of(self, session_id: int) -> list[MessageRef]:
        """Every remembered message of a session, by purpose."""
        return [MessageRef(*row) for row in await self.backend.fetch(_MESSAGES, session=session_id)]

    async def mark_shown(self, session_id: int, purpose: str, version: int) -> None:
        """The message of ``purpose`` now shows ``version`` (never an older one)."""
        await self.backend.execute(
            _MARK_SHOWN, version=version, session=session_id, purpose=purpose
        )

    async def behind_session_ids(self) -> list[int]:
        """Sessions with a message that shows an older version than it should."""
        return [int(row[0]) for row in await self.backend.fetch(_BEHIND)]

    async def lease_message(
        self, session_id: int, purpose: str, chat_id: int, owner: str, now: float, until: float
    ) -> MessageRef | None:
        """Take the delivery lease on a message (one upsert)."""
        rows = await self.backend.returning(
            _LEASE, session=session_id, purpose=purpose, chat=chat_id, owner=owner,
            until=float(until), now=float(now),
        )
        return MessageRef(*rows[0]) if rows else None

    async def release_message(
        self,
        session_id: int,
        purpose: str,
        owner: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give a delivery lease back (one transaction)."""
        chat_id, message_id = posted if posted is not None else (None, None)

        async def work(tx: Tx) -> None:
            await tx.execute(
                _RELEASE, owner=owner, shown=shown, chat=chat_id, message=message_id,
                session=session_id, purpose=purpose,
            )
            await tx.execute(_DROP_PLACEHOLDER, session=session_id, purpose=purpose)

        await self.backend.write(work)


class SqlPreferences:
    """Users' names, languages and reachability (:class:`storage.protocol.PreferenceStore`)."""

    backend: Backend

    async def remember_user(self, user_id: int, name: str) -> None:
        """Record a user's current display name."""
        await self.backend.execute(REMEMBER_USER, id=user_id, name=name)

    async def set_language(self, scope: str, key: int, language: str) -> None:
        """Store the language of a user or chat."""
        await self.backend.execute(_SET_LANGUAGE[_scope(scope)], id=key, language=language)

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a user or chat, or None."""
        rows = await self.backend.fetch(_LANGUAGE[_scope(scope)], id=key)
        return rows[0][0] if rows else None

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark whether the bot can write to the user's private chat."""
        await self.backend.execute(_SET_REACHABLE, id=user_id, reachable=reachable)

    async def reachable(self, user_id: int) -> bool:
        """False only if the user was marked unreachable."""
        rows = await self.backend.fetch(_REACHABLE, id=user_id)
        return not rows or bool(rows[0][0])


class SqlSendBudget:
    """The flood budget every worker shares (:class:`storage.protocol.SendBudget`)."""

    backend: Backend

    async def reserve_send(self, key: int, interval: float, now: float, worker: str) -> float:
        """Take ``key``'s next send slot for ``worker`` (one atomic upsert: the row lock,
        or the single writer, orders callers)."""
        rows = await self.backend.returning(
            _RESERVE_SEND, key=key, now=float(now), interval=float(interval), worker=worker
        )
        return float(rows[0][0])


def _scope(scope: str) -> str:
    if scope not in _SCOPES:
        raise ValueError(f"scope must be 'user' or 'chat', not {scope!r}")
    return scope


class SqlLiveness:
    """The workers' heartbeats (:class:`storage.protocol.Liveness`)."""

    backend: Backend

    async def beat(self, worker: str, now: float, silent: float) -> Beat:
        """Note ``worker``'s beat (whether the store still knew it: one update, and an
        insert if not), then forget (and return) the workers silent since ``now -
        silent``, give back their unopened latest send slots and forget their open
        Mini App pages, in one transaction (the row locks, or the single writer, give
        each dead worker to one caller). The give-back scans ``send_slots`` (no index on
        ``owner``: every send would pay for one), the pages ``open_pages``; it runs only
        when a worker is found dead."""
        known = await self.backend.execute(_BEAT, worker=worker, now=float(now)) > 0
        if not known:
            await self.backend.execute(_FIRST_BEAT, worker=worker, now=float(now))

        async def bury(tx: Tx) -> tuple[str, ...]:
            dead = sorted(str(row[0]) for row in await tx.fetch(_SILENT, before=now - silent))
            for name in dead:
                await tx.execute(_GIVE_BACK, worker=name, now=float(now))
                await tx.execute(_FORGET_PAGES, worker=name)
            return tuple(dead)

        return Beat(known, await self.backend.write(bury))
