"""With several workers: each message is sent or edited under its delivery lease.

Every worker delivers the messages of the sessions it changed, and two may draw
the same message at once. The lease (``Store.lease_message``, through
:class:`sessions.Messages`) lets one worker at a time send or edit a message, so
an older screen never lands over a newer one and a brand-new message is posted
once; and a screen is not sent at all when the stored message already shows it
or a newer one, or a newer one was committed (the worker that committed it
delivers it).

A chat's turn booked for a screen that another worker's commit superseded while it
waited is not lost, though: it draws the message's newest screen from the store
(:data:`Newest`), or the session's turn (the ephemeral hand of the player to move,
:data:`TurnHand`) if that is behind in the chat — first if the turn was taken for
another player's hand, else if the message it was taken for needs nothing. The
committing worker, its own turn come, finds it shown. (A turn booked for Ann's hand
while it carried her turn's buttons, which the other worker drew meanwhile, would
otherwise show her only the card she played since, or nothing, while Ben's turn
waits a slot or two in the other worker.)
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.clock import Clock
from bot.delivery.slots import Draw, Drawn, Slot
from bot.render.common import Screen
from sessions import Messages
from storage import MessageRef

log = logging.getLogger(__name__)

#: Seconds between two looks at a message whose delivery lease another worker holds
#: (it is sending or editing it right now).
LEASE_POLL = 0.1

#: ``newest(session_id, purpose)``: the screen the session's message should show now,
#: drawn from the store, and its version (None if it shows nothing any more).
Newest = Callable[[int, str], Awaitable[tuple[Screen, int] | None]]
#: ``turn(session_id)``: the purpose of the session's message that carries its player's
#: turn now (her ephemeral hand), that message's screen, and the version (None if none).
TurnHand = Callable[[int], Awaitable[tuple[str, Screen, int] | None]]


class Leases:
    """This worker's delivery leases: ``owner`` names it, a lease stands ``seconds``
    (how long a worker killed mid-send keeps the others from its message), read on
    ``clock``'s wall time (every worker's reads the same)."""

    def __init__(self, messages: Messages, clock: Clock, owner: str, seconds: float) -> None:
        self._messages = messages
        self._clock = clock
        self.owner = owner
        self.seconds = seconds
        #: draws the newest screen of a message (None: a superseded screen sends nothing)
        self.newest: Newest | None = None
        #: draws the turn's hand instead, if that is behind (None: only the newest)
        self.turn: TurnHand | None = None

    async def superseded(self, slot: Slot, version: int) -> bool:
        """Before waiting for the chat's turn: True if another worker already drew
        ``version`` or a newer one into the message, or committed a newer one that the
        message must show (that worker delivers it): this screen is then not sent, and
        costs none of the chat's budget."""
        ref = await self._messages.stored(slot.session_id, slot.purpose)
        if ref is None or ref.chat_id != slot.chat_id or ref.message_id is None:
            return False
        return superseded(slot, ref.shown, ref.wanted, version)

    async def deliver(
        self, slot: Slot, screen: Screen, version: int, draw: Draw
    ) -> Drawn | None:
        """Deliver (the turn in the limiter taken) under the message's lease, so no other
        worker sends or edits it meanwhile, and only if the message does not already
        show this version or a newer one: what was drawn, None if nothing was sent."""
        while (ref := await self._lease(slot.session_id, slot.purpose, slot.chat_id)) is None:
            await self._clock.sleep(LEASE_POLL)  # another worker is sending it right now
        if slot.pending is not None and slot.pending_version > version:
            # a newer screen came while we waited: it goes in this turn instead
            screen, version, slot.pending = slot.pending, slot.pending_version, None
        drawn: Drawn | None = None
        try:
            if not slot.repost and superseded(slot, ref.shown, ref.wanted, version):
                # the chat's turn is ours: a hand gives it to the player to move first,
                # a table to its newest screen first
                hand = slot.ephemeral_for is not None
                if hand and await self._turn_instead(slot, draw):
                    return Drawn.DRAWN  # this message was not drawn: its lease goes back
                newer = await self._newer(slot, ref, version)
                if newer is None:
                    turn = not hand and await self._turn_instead(slot, draw)
                    return Drawn.DRAWN if turn else None
                screen, version = newer
            slot.message_id = ref.message_id if ref.chat_id == slot.chat_id else None
            if slot.ephemeral_for is not None:
                if slot.message_id is None or ref.receiver is None:
                    return None  # none is stored any more (closed, deleted): nothing to edit
                slot.ephemeral_for = ref.receiver
            drawn = await draw(slot, screen)
            return drawn
        finally:
            new_id = slot.message_id if drawn is Drawn.POSTED else None
            await self._messages.release(
                slot.session_id, slot.purpose, self.owner,
                shown=version if drawn in (Drawn.DRAWN, Drawn.POSTED) else None,
                posted=None if new_id is None else (slot.chat_id, new_id),
            )

    async def _newer(
        self, slot: Slot, ref: MessageRef, version: int
    ) -> tuple[Screen, int] | None:
        """The newest screen for a message that another worker's commit left behind
        while this worker waited for the chat's turn (None if it is not behind)."""
        if self.newest is None or ref.shown >= ref.wanted:
            return None
        newer = await self.newest(slot.session_id, slot.purpose)
        if newer is None or newer[1] <= ref.shown:
            return None
        log.info("%s/%s: version %s drawn in the turn taken for %s", slot.session_id,
                 slot.purpose, newer[1], version)
        return newer

    async def _turn_instead(self, slot: Slot, draw: Draw) -> bool:
        """Draw the session's turn (its player's ephemeral hand) in a chat's turn taken
        for another message that needs nothing now, if the turn's message is in this
        chat and behind, and no other worker is drawing it this moment: whether it was
        drawn. (A turn taken for a table draws the newest table first, if that is
        behind: a busy group's table goes only in such turns once the hands take the
        others.)"""
        if self.turn is None or slot.chat_id > 0:  # ephemeral hands are in groups
            return False
        found = await self.turn(slot.session_id)
        if found is None or found[0] == slot.purpose:
            return False
        purpose, screen, version = found
        stored = await self._messages.stored(slot.session_id, purpose)
        if not _behind_in(stored, slot.chat_id, version):
            return False
        ref = await self._lease(slot.session_id, purpose, slot.chat_id)
        if ref is None:
            return False  # another worker draws it right now
        drawn: Drawn | None = None
        try:
            if not _behind_in(ref, slot.chat_id, version):
                return False  # another worker drew it meanwhile
            assert ref.message_id is not None
            hand = Slot(slot.session_id, purpose, slot.chat_id, slot.thread,
                        ephemeral_for=ref.receiver, message_id=ref.message_id, loaded=True)
            log.info("%s/%s: version %s drawn in the turn taken for %s", slot.session_id,
                     purpose, version, slot.purpose)
            drawn = await draw(hand, screen)
            return drawn is Drawn.DRAWN
        finally:
            await self._messages.release(
                slot.session_id, purpose, self.owner,
                shown=version if drawn is Drawn.DRAWN else None,
            )

    async def _lease(self, session_id: int, purpose: str, chat_id: int) -> MessageRef | None:
        return await self._messages.lease(
            session_id, purpose, chat_id, self.owner, self.seconds, now=self._clock.wall()
        )


def _behind_in(ref: MessageRef | None, chat_id: int, version: int) -> bool:
    """Whether ``ref`` is an ephemeral message in ``chat_id`` that shows an older version
    than ``version``."""
    return (
        ref is not None and ref.chat_id == chat_id and ref.message_id is not None
        and ref.receiver is not None and ref.shown < version
    )


def superseded(slot: Slot, shown: int, wanted: int, version: int) -> bool:
    """True if a message that shows ``shown`` and should show ``wanted`` needs nothing of
    ``version``: it shows that or newer, or a newer version was committed (whose worker
    delivers it)."""
    if shown < version and wanted <= version:
        return False
    log.debug("%s/%s shows %s and wants %s; %s not sent", slot.session_id, slot.purpose,
              shown, wanted, version)
    return True
