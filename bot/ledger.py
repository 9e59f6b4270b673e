"""The :class:`~bot.delivery.Ledger` over the session layer: where messages are, who
cannot be written to, and what to do when a group is gone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.config import DEFAULT_LEASE_SECONDS
from sessions import Messages, Preferences
from storage import MessageRef


class SessionLedger:
    """Message ids and shown versions in the store; 403s marked in the preferences.

    ``owner`` names this worker in the delivery leases (several workers), which
    stand ``lease`` seconds: how long a worker killed mid-send keeps the others
    from its message (``KOLODA_LEASE_SECONDS``, like its background work's).
    """

    def __init__(
        self,
        messages: Messages,
        prefs: Preferences,
        on_chat_gone: Callable[[int], Awaitable[None]] | None = None,
        owner: str = "",
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        self._messages = messages
        self._prefs = prefs
        self.on_chat_gone = on_chat_gone
        self.owner = owner
        self.lease_seconds = lease

    async def message_id(self, session_id: int, purpose: str, chat_id: int) -> int | None:
        """The stored id of the session's message for ``purpose`` in ``chat_id``."""
        for ref in await self._messages.of(session_id):
            if ref.purpose == purpose and ref.chat_id == chat_id:
                return ref.message_id
        return None

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
        """Remember a newly posted message (``receiver``: an ephemeral one's)."""
        await self._messages.posted(
            session_id, purpose, chat_id, message_id, version, receiver=receiver
        )

    async def stored(self, session_id: int, purpose: str) -> MessageRef | None:
        """The stored message of ``purpose``, if there is one."""
        return await self._messages.stored(session_id, purpose)

    async def forget(self, session_id: int, purpose: str) -> None:
        """The message of ``purpose`` is gone (an ephemeral one closed or deleted)."""
        await self._messages.forget(session_id, purpose)

    async def shown(self, session_id: int, purpose: str, version: int) -> None:
        """Record the version a message now shows."""
        await self._messages.shown(session_id, purpose, version)

    async def stored_message(
        self, session_id: int, purpose: str, chat_id: int
    ) -> tuple[int, int, int] | None:
        """The stored id of the message of ``purpose`` in ``chat_id``, the version it
        shows and the version it should show, if there is one."""
        for ref in await self._messages.of(session_id):
            if ref.purpose == purpose and ref.chat_id == chat_id and ref.message_id is not None:
                return ref.message_id, ref.shown, ref.wanted
        return None

    async def lease(self, session_id: int, purpose: str, chat_id: int) -> MessageRef | None:
        """This worker's lease on delivering the message (None: another worker's)."""
        return await self._messages.lease(
            session_id, purpose, chat_id, self.owner, self.lease_seconds
        )

    async def release(
        self,
        session_id: int,
        purpose: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give the lease back, recording what the message now shows."""
        await self._messages.release(session_id, purpose, self.owner, shown=shown, posted=posted)

    async def unreachable(self, user_id: int) -> None:
        """Mark a user's private chat closed to the bot."""
        await self._prefs.set_reachable(user_id, False)

    async def chat_gone(self, chat_id: int) -> None:
        """End the games of a group the bot is no longer in."""
        if self.on_chat_gone is not None:
            await self.on_chat_gone(chat_id)
