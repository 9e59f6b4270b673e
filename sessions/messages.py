"""The Telegram messages that show each session, by purpose — kept for the front end.

A purpose names what a message is for: ``table`` (the group's table, lobby or
result), ``hand:<seat>`` (that seat's message in the player's private chat).
Each stored message records the session version it shows, so a restart draws
only what is behind. Ephemeral hands (``eph:<seat>``) and the creator's menu in a
group are stored too, with the one user who sees them (``receiver``): any worker,
and a restarted one, keeps them current by editing them (Telegram cannot post
them again, and they vanish when the client closes them).

Lookups of one session made while a read of its messages is under way share
that read (a move draws the table and every hand at once); a write for the
session ends the sharing, so nobody is handed a read older than their own call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from storage import MessageRef, MessageStore

T = TypeVar("T")

TABLE = "table"


def hand_purpose(seat: int) -> str:
    """The purpose of a seat's private hand message."""
    return f"hand:{seat}"


def ephemeral_purpose(seat: int) -> str:
    """The purpose of a seat's ephemeral hand in a group."""
    return f"eph:{seat}"


class Messages:
    """Where each session is shown, over the store's messages role."""

    def __init__(self, store: MessageStore) -> None:
        self._store = store
        self._reading: dict[int, asyncio.Future[list[MessageRef]]] = {}

    async def of(self, session_id: int) -> list[MessageRef]:
        """Every stored message of the session."""
        reading = self._reading.get(session_id)
        if reading is None:
            reading = asyncio.ensure_future(self._store.messages_of(session_id))
            self._reading[session_id] = reading
            reading.add_done_callback(lambda done: self._read(session_id, done))
        return list(await asyncio.shield(reading))

    def _read(self, session_id: int, done: asyncio.Future[list[MessageRef]]) -> None:
        if self._reading.get(session_id) is done:
            del self._reading[session_id]
        if not done.cancelled():
            done.exception()  # retrieved: the callers that waited have it raised

    async def _write(self, session_id: int, write: Awaitable[T]) -> T:
        # a read begun before the write commits is not shared with later callers
        self._reading.pop(session_id, None)
        try:
            return await write
        finally:
            self._reading.pop(session_id, None)

    async def posted(
        self,
        session_id: int,
        purpose: str,
        chat_id: int,
        message_id: int,
        version: int,
        *,
        receiver: int | None = None,
    ) -> None:
        """A message was (re)posted for ``purpose``, showing ``version`` (``receiver``:
        an ephemeral message only that user sees, ``message_id`` its ephemeral id)."""
        ref = MessageRef(purpose, chat_id, message_id, None, version, version, receiver)
        await self._write(session_id, self._store.set_message(session_id, ref))

    async def stored(self, session_id: int, purpose: str) -> MessageRef | None:
        """The stored message of ``purpose``, if there is one."""
        for ref in await self.of(session_id):
            if ref.purpose == purpose:
                return ref
        return None

    async def shown(self, session_id: int, purpose: str, version: int) -> None:
        """The message of ``purpose`` now shows ``version``."""
        await self._write(session_id, self._store.mark_shown(session_id, purpose, version))

    async def lease(
        self, session_id: int, purpose: str, chat_id: int, owner: str, seconds: float,
        *, now: float,
    ) -> MessageRef | None:
        """``owner``'s lease on delivering the message of ``purpose`` for ``seconds`` from
        ``now`` (a wall-clock time; see :meth:`storage.Store.lease_message`): the message
        as stored, or None while another owner holds it."""
        lease = self._store.lease_message(session_id, purpose, chat_id, owner, now, now + seconds)
        return await self._write(session_id, lease)

    async def release(
        self,
        session_id: int,
        purpose: str,
        owner: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give ``owner``'s delivery lease back, recording what the message now shows."""
        release = self._store.release_message(
            session_id, purpose, owner, shown=shown, posted=posted
        )
        await self._write(session_id, release)

    async def forget(self, session_id: int, purpose: str) -> None:
        """The message of ``purpose`` is no longer ours to update."""
        await self._write(session_id, self._store.drop_message(session_id, purpose))
