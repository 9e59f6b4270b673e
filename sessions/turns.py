"""Background turns: computer seats to move and expired turn timers.

After every commit (:meth:`Turns.after_change`) the turn timer is armed for a
human to move, and a task is started for a computer to move — one task per
session, which plays every computer seat in a row, one committed move at a
time. Before a timer fires or a computer moves, this worker takes a lease on
that session version in the store (``Store.claim``), so with several workers
each fires once. Work the store could not take (an outage) is tried again after
a pause that doubles up to a cap. The computers think outside the session's
lock, with :data:`~sessions.model.TURN_OWNER` naming the table's chat so a
queueing computer player shares its time among chats.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from sessions.background import Background
from sessions.change import computer_to_move
from sessions.checks import STAND_IN_LEVEL, stand_in
from sessions.model import TURN_OWNER, Computer, Outcome, Refusal, Session
from sessions.play import Play
from sessions.repository import Repository
from sessions.timers import Clock
from storage.outage import unavailable

log = logging.getLogger(__name__)

#: Consecutive timeouts after which the computer keeps the seat.
TIMEOUTS_TO_HAND_OVER = 3
#: Seconds before background work (a computer's turn, an expired timer) that the
#: store could not take is tried again, doubled each time up to the cap.
OUTAGE_PAUSE = 1.0
OUTAGE_PAUSE_CAP = 30.0


class Turns:
    """The computer turns and turn timers of one :class:`~sessions.SessionManager`.

    ``worker_id`` holds its leases, each for ``lease`` seconds; ``outage_pause``
    is the first pause after an outage.
    """

    def __init__(
        self,
        repo: Repository,
        play: Play,
        background: Background,
        computer: Computer,
        clock: Clock,
        *,
        worker_id: str,
        lease: float,
        outage_pause: float = OUTAGE_PAUSE,
    ) -> None:
        self.repo = repo
        self._play = play
        self._background = background
        self._computer = computer
        self._clock = clock
        self._worker_id = worker_id
        self._lease = lease
        self._outage_pause = outage_pause
        self._computer_turns: dict[int, asyncio.Task[None]] = {}

    def after_change(self, session: Session) -> None:
        """Arm the turn timer and wake the computer seat that is to move."""
        if session.status == "running" and session.deadline is not None:
            self._background.timers.arm(session.id, session.version, session.deadline)
        else:
            self._background.timers.disarm(session.id)
        if computer_to_move(session) is not None and session.id not in self._computer_turns:
            task = self._background.spawn(self._through_outages(session.id))
            self._computer_turns[session.id] = task

    async def restore(self) -> None:
        """Re-arm every stored deadline and resume computer seats that are to move."""
        for session_id in await self.repo.sessions.due_session_ids(float("inf")):
            async with self.repo.lock(session_id):
                self.after_change(await self.repo.load(session_id))

    async def run_due_work(self) -> int:
        """Take up work due in the store but not in hand here; how many sessions were
        looked at."""
        due = await self.repo.sessions.due_session_ids(self._clock())
        for session_id in due:
            if session_id in self._computer_turns:
                continue
            async with self.repo.lock(session_id):
                self.repo.forget(session_id)
                session = await self.repo.load_or_none(session_id)
                if session is not None:
                    self.after_change(session)
        return len(due)

    # ------------------------------------------------------------ timers

    def on_expiry(self, session_id: int, version: int) -> None:
        """A turn timer rang: expire that version in the background."""

        async def expire() -> None:
            await self.expire(session_id, version)

        self._background.spawn(self._retried(expire, f"turn timer of session {session_id}"))

    async def expire(self, session_id: int, version: int) -> Outcome | None:
        """What a turn timer does: the computer moves for the absent human.

        Does nothing (returns None) unless ``version`` is still current and its
        deadline has passed, or another worker holds the lease on it. The third
        timeout in a row hands the seat to the computer for good (events
        ``timeout`` and ``seat_handed_over`` with reason ``timeouts``).
        """
        async with self.repo.lock(session_id):
            session = await self.repo.load_or_none(session_id)
            if session is None or session.version != version or session.deadline is None:
                return None
            if session.status != "running" or session.to_move is None:
                return None
            if session.deadline > self._clock():
                self._background.timers.arm(session_id, version, session.deadline)
                return None
            if not await self._claim(session):
                return None
            seat = session.to_move
        action = await self._choose(session, seat, STAND_IN_LEVEL)
        async with self.repo.lock(session_id):
            current = await self.repo.load(session_id)
            if current.version != version:
                return None
            seats = list(current.seats)
            timeouts = seats[seat].timeouts + 1
            events: list[dict[str, Any]] = [{"type": "timeout", "seat": seat}]
            if timeouts >= TIMEOUTS_TO_HAND_OVER:
                events.append({"type": "seat_handed_over", "seat": seat, "why": "timeouts",
                               "user_id": seats[seat].user_id})
                seats[seat] = stand_in(seats[seat])
            else:
                seats[seat] = replace(seats[seat], timeouts=timeouts)
            try:
                outcome = await self._play.computer_move(current, seat, action, seats)
            except Refusal:
                return None  # another worker committed first
        outcome = replace(outcome, events=events + outcome.events)
        await self._background.notify(outcome)
        return outcome

    # ------------------------------------------------------------ computer turns

    async def _through_outages(self, session_id: int) -> None:
        """Play the computer seats to move; after a store outage, again, unless another
        task took them up meanwhile."""

        async def play() -> None:
            await self._play_computers(session_id)

        def still_mine() -> bool:
            task = asyncio.current_task()
            assert task is not None
            return self._computer_turns.setdefault(session_id, task) is task

        await self._retried(play, f"computer turn of session {session_id}", still_mine)

    async def _retried(
        self,
        work: Callable[[], Awaitable[None]],
        what: str,
        again: Callable[[], bool] = lambda: True,
    ) -> None:
        """``work``, done again after each store outage (pauses of 1, 2, 4 … s up to the
        cap) while ``again()`` says so."""
        pause = self._outage_pause
        while True:
            try:
                await work()
                return
            except Exception as error:
                if not unavailable(error):
                    raise
                log.warning("%s waits for the database: %s", what, error)
            await asyncio.sleep(pause)
            pause = min(pause * 2, OUTAGE_PAUSE_CAP)
            if not again():
                return

    async def _play_computers(self, session_id: int) -> None:
        """Play every computer seat to move, one committed move at a time."""
        try:
            while True:
                async with self.repo.lock(session_id):
                    session = await self.repo.load_or_none(session_id)
                    seat = None if session is None else computer_to_move(session)
                    if session is None or seat is None or not await self._claim(session):
                        # Leaving under the lock: a change committed after this
                        # sees no task and starts a new one.
                        self._computer_turns.pop(session_id, None)
                        return
                level = session.seats[seat].level or STAND_IN_LEVEL
                action = await self._choose(session, seat, level)
                async with self.repo.lock(session_id):
                    current = await self.repo.load(session_id)
                    if current.version != session.version:
                        continue
                    try:
                        outcome = await self._play.computer_move(current, seat, action,
                                                                 current.seats)
                    except Refusal:  # stale in the database: the cache was dropped, reload
                        continue
                await self._background.notify(outcome)
        finally:
            if self._computer_turns.get(session_id) is asyncio.current_task():
                del self._computer_turns[session_id]

    async def _claim(self, session: Session) -> bool:
        """This worker's lease on the session's background work at its version."""
        now = self._clock()
        return await self.repo.sessions.claim(
            session.id, session.version, self._worker_id, now, now + self._lease
        )

    async def _choose(self, session: Session, seat: int, level: str) -> str | None:
        """The computer's choice for ``seat``, or None if it failed."""
        seed = ((session.seed or 0) ^ (session.version * 0x9E3779B97F4A7C15)) % (1 << 63)
        owner = TURN_OWNER.set(session.chat_id if session.chat_id is not None else session.id)
        try:
            return await self._computer.choose(session.game_id, session.view(seat), level, seed)
        except Exception:
            log.exception("computer failed in session %s; playing the first legal", session.id)
            return None
        finally:
            TURN_OWNER.reset(owner)
