"""Delivery on a fake clock against a bot that only records: for tests of pacing,
coalescing and deferral that need no Bot API server.

``recording_delivery()`` gives a :class:`bot.delivery.Delivery`, the
:class:`RecordingBot` behind it and the :class:`~tests.support.fake_clock.FakeClock`
both read; :func:`crowded` fills the token's queue with other chats' requests (a busy
bot).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bot.delivery import MAX_SLOTS, Delivery
from bot.flood_limits import Limits
from bot.limiter import FloodLimiter
from storage import MessageRef
from tests.support.fake_clock import FakeClock, settled

#: A priority below every one delivery uses: a crowd's requests go after the test's own.
BEHIND_ALL = 9


class Sent:
    """What ``send_message`` returns: the new message's id."""

    def __init__(self, message_id: int) -> None:
        self.message_id = message_id


class RecordingBot:
    """Stands in for PTB's Bot: records sends and edits (and when they went)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.sent: list[tuple[int, str]] = []
        self.edits: list[tuple[int, int, str]] = []
        self.times: list[float] = []
        self.at: dict[str, float] = {}  # text → when it last went

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Sent:
        """Record a send."""
        self.sent.append((chat_id, text))
        self._went(text)
        return Sent(len(self.sent))

    async def edit_message_text(
        self, text: str, *, chat_id: int, message_id: int, **_: Any
    ) -> bool:
        """Record an edit."""
        self.edits.append((chat_id, message_id, text))
        self._went(text)
        return True

    def _went(self, text: str) -> None:
        self.times.append(self.clock.now())
        self.at[text] = self.clock.now()


class StoredRefs:
    """Stands in for the session layer's message store."""

    def __init__(self) -> None:
        self.refs: dict[tuple[int, str], MessageRef] = {}

    async def stored(self, session_id: int, purpose: str) -> MessageRef | None:
        """The stored message of the purpose."""
        return self.refs.get((session_id, purpose))

    async def posted(
        self, session_id: int, purpose: str, chat_id: int, message_id: int, version: int,
        *, receiver: int | None = None,
    ) -> None:
        """Remember a posted message."""
        self.refs[(session_id, purpose)] = MessageRef(
            purpose, chat_id, message_id, None, version, version, receiver
        )

    async def shown(self, session_id: int, purpose: str, version: int) -> None:
        """Nothing to record."""


def recording_delivery(
    limits: Limits | None = None, defer: float = 0.0, max_slots: int = MAX_SLOTS
) -> tuple[Delivery, RecordingBot, FakeClock]:
    """A delivery paced by ``limits`` (none: unlimited) on a fake clock."""
    clock = FakeClock()
    sender = RecordingBot(clock)
    limiter = FloodLimiter(limits or Limits.off(), clock=clock)
    io = Delivery(
        sender, limiter, StoredRefs(), defer=defer, clock=clock, max_slots=max_slots,  # type: ignore[arg-type]
    )
    return io, sender, clock


@contextlib.asynccontextmanager
async def crowded(limiter: FloodLimiter, count: int) -> AsyncIterator[None]:
    """While inside: ``count`` requests of other chats wait for the token's pace, behind
    every request of the test's own (a busy bot)."""
    loop = asyncio.get_running_loop()
    waiting = [
        loop.create_task(limiter.wait_turn(1_000_000 + n, BEHIND_ALL)) for n in range(count)
    ]
    await settled()
    try:
        yield
    finally:
        for task in waiting:
            task.cancel()
