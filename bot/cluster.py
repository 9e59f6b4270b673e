"""What a worker does for the whole cluster when the store may be shared (PostgreSQL).

Started at start-up whenever the database is PostgreSQL, whatever the
transport (webhook workers, or a poller next to other processes on the same
database): nothing tells one process that it is alone on a shared store.

Each worker takes up, once a second, the background work that is due in the
store but not in hand anywhere alive: a turn timer or a computer's turn
scheduled by a worker that died (its lease on the work runs out, then
``SessionManager.run_due_work`` claims it here; ``Store.claim`` gives each
piece of work to one worker).

It also draws what a dead worker left undelivered: a session with a message
behind what is stored. A message is normally behind for a while (its worker
waits for the chat's flood limit, or lets a hand wait for its player's next
turn), and the worker that committed a change delivers it; so a message behind
is drawn here only

- at once when a worker has died: each worker beats in the store every :data:`BEAT`
  seconds (``Store.beat``, apart from the looks, so a slow look never holds a beat
  back), and one silent for :data:`SILENT` seconds is found dead by one of the others,
  which then draws every message behind (a turn the dead worker committed reaches
  its player within seconds, not after two looks);
- or when it stays behind, with the same shown and wanted versions, from one look
  to the next (a lease period apart): nobody delivered anything to it meanwhile.

A dead worker's send slots are given back by the beat that finds it dead
(``Store.beat``): a chat's next slot it booked and never used goes to the
survivor's next send, not one interval after it. A worker that only stalled (its
event loop, or its link to the store, held up for :data:`SILENT` seconds) may be
found dead meanwhile, so a worker uses a booked slot only while its own beats stand
(:class:`Pulse`); else it books another.

If the message's worker is alive but slow, it finds the message drawn when its
turn comes and sends nothing: each send or edit takes the message's delivery
lease and reads what the message shows first (``Delivery``); and a chat's turn it
took meanwhile draws the session's turn (its player's ephemeral hand, if that is
behind: :func:`turn_hands`) or else the newest screen instead (:func:`newest_screens`),
so a turn booked in the shared budget is not lost, nor spent on a screen that may wait
while the player to move waits for her buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Generic, Protocol, TypeVar

from bot.clock import Clock, LoopClock, sleep_unless
from bot.delivery.leases import Newest, TurnHand
from bot.periodic import Periodic
from bot.present import Presenter
from bot.render.common import Screen
from sessions import Refusal, SessionManager, ephemeral_purpose
from storage import Beat, MessageRef
from storage.outage import unavailable

log = logging.getLogger(__name__)

#: Seconds between two looks for due work.
EVERY = 1.0
#: Seconds a message must stay behind, with the same shown and wanted versions, to be drawn
#: again by whichever worker sees it.
STUCK = 10.0
#: Seconds between a worker's beats (on their own, so slow duties never hold one back).
BEAT = 0.5
#: Seconds without a beat after which a worker is taken for dead: five beats missed, not
#: one slow one (each beat is one small upsert; drawing runs elsewhere).
SILENT = 2.5


class Pulse:
    """This worker's own beats as the store answered them: whether a send slot it
    booked can still be its own when it opens (:class:`bot.limiter.FloodLimiter`).

    A slot is given back only when the worker is found dead, which takes a beat
    older than ``silent`` seconds by then (the store knew the worker at that beat), or
    a later beat that found the store no longer knew it. So a slot opening at ``at``
    is the worker's own if its latest known beat is less than ``silent`` seconds
    before ``at`` and no beat since the booking found it forgotten; a worker that has
    never beaten is in no one's list of the dead."""

    def __init__(self, silent: float = SILENT) -> None:
        self.silent = silent
        self._stored: float | None = None  # when its latest stored beat was made
        self._forgotten = 0  # beats that found this worker forgotten (found dead)
        self._next = asyncio.Event()  # set by the next beat stored

    def beaten(self, at: float, known: bool) -> None:
        """A beat made at ``at`` (wall clock) was stored; ``known``: the store still
        knew this worker (its first beat is the one unknown one that is not news)."""
        if not known and self._stored is not None:
            self._forgotten += 1
            log.warning("this worker was taken for dead (its beats stalled); it beats again")
        self._stored = at
        stored, self._next = self._next, asyncio.Event()
        stored.set()

    async def next_beat(self) -> None:
        """Return once another beat is stored."""
        await self._next.wait()

    def mark(self) -> int:
        """Taken before a slot is booked and handed back to :meth:`holds`."""
        return self._forgotten

    def holds(self, mark: int, at: float) -> bool:
        """Whether a slot booked at :meth:`mark` ``mark`` and opening at ``at`` (wall
        clock) can have been given back by no one: use it only then."""
        if self._stored is None:
            return True
        return mark == self._forgotten and at < self._stored + self.silent


class Behind(Protocol):
    """What the duties read of a session with a message behind: its id."""

    @property
    def id(self) -> int: ...


S = TypeVar("S", bound=Behind)
S_co = TypeVar("S_co", bound=Behind, covariant=True)
S_contra = TypeVar("S_contra", bound=Behind, contravariant=True)


class Duties(Protocol[S_co]):
    """The session layer's side of the duties (a :class:`SessionManager`)."""

    async def run_due_work(self) -> object: ...

    async def beat(self, now: float, silent: float) -> Beat: ...

    def behind(self) -> AsyncIterator[tuple[S_co, list[MessageRef]]]: ...


class Redraws(Protocol[S_contra]):
    """What draws a session's messages again (a :class:`Presenter`)."""

    async def refresh(self, session: S_contra, *, only: set[str]) -> None: ...


class Cluster(Periodic, Generic[S]):
    """The periodic cluster duties of one worker (started whenever the store is shared)."""

    def __init__(
        self,
        manager: Duties[S],
        presenter: Redraws[S],
        every: float = EVERY,
        stuck: float = STUCK,
        clock: Clock | None = None,
        silent: float = SILENT,
        beat: float = BEAT,
        pulse: Pulse | None = None,
    ) -> None:
        self.manager = manager
        self.pulse = pulse or Pulse(silent)
        self.clock = clock or LoopClock()
        self.presenter = presenter
        self.every = every
        self.stuck = stuck
        self.silent = silent
        self.beat = beat
        self._dead: list[str] = []  # workers found dead by a beat, not yet drawn for
        self._found = asyncio.Event()  # set when a beat finds one: the look comes at once
        self._behind: dict[int, frozenset[tuple[str, int, int]]] = {}

    async def _run(self) -> None:
        beating = asyncio.get_running_loop().create_task(self._beats())
        try:
            await self._looks()
        finally:
            beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beating

    async def _beats(self) -> None:
        """Beat every :attr:`beat` seconds; a worker found dead wakes the look."""
        while True:
            at = self.clock.wall()
            try:
                beat = await self.manager.beat(at, self.silent)
            except Exception as error:  # the look says what is wrong with the store
                if not unavailable(error):
                    log.warning("a beat failed: %s", error)
                beat = None
            if beat is not None:
                self.pulse.beaten(at, beat.known)
                if beat.dead:
                    self._dead += beat.dead
                    self._found.set()
            await self.clock.sleep(self.beat)

    async def _looks(self) -> None:
        last_look = self.clock.now()
        out = False  # the store was unavailable at the last look
        while True:
            await sleep_unless(self.clock, self._found, self.every)
            try:
                await self.manager.run_due_work()
                if self._found.is_set():
                    dead, self._dead = self._dead, []
                    self._found.clear()
                    log.info("worker %s stopped beating; drawing what is behind", ", ".join(dead))
                    last_look = self.clock.now()
                    await self.redraw_behind()
                elif self.clock.now() - last_look >= self.stuck:
                    last_look = self.clock.now()
                    await self.redraw_stuck()
                out = False
            except Exception as error:
                if not unavailable(error):
                    log.exception("cluster duties failed; trying again in %.0f s", self.every)
                elif not out:  # an outage is said once, not once a second
                    log.warning("cluster duties wait for the store: %s", error)
                out = unavailable(error)

    async def redraw_stuck(self) -> int:
        """Draw the sessions whose messages stayed behind since the last look; how many."""
        return await self._redraw(stuck=True)

    async def redraw_behind(self) -> int:
        """Draw every session with a message behind now (a worker died with them in
        hand); how many."""
        return await self._redraw(stuck=False)

    async def _redraw(self, *, stuck: bool) -> int:
        seen: dict[int, frozenset[tuple[str, int, int]]] = {}
        drawn = 0
        async for session, refs in self.manager.behind():
            behind = frozenset(
                (r.purpose, r.shown, r.wanted) for r in refs if r.shown < r.wanted
            )
            seen[session.id] = behind
            if behind and (not stuck or self._behind.get(session.id) == behind):
                log.info("session %s is behind; drawing it here", session.id)
                await self.presenter.refresh(session, only={p for p, _, _ in behind})
                drawn += 1
        self._behind = seen
        return drawn


def newest_screens(manager: SessionManager, presenter: Presenter) -> Newest:
    """What delivery draws in a chat's turn it took for a screen another worker's newer
    commit superseded meanwhile: the message's screen of the session as stored now,
    and its version."""

    async def newest(session_id: int, purpose: str) -> tuple[Screen, int] | None:
        try:
            session = await manager.get(session_id)
        except Refusal:  # deleted meanwhile
            return None
        shown = await presenter.newest(session, purpose)
        return None if shown is None else (shown, session.version)

    return newest


def turn_hands(manager: SessionManager, presenter: Presenter) -> TurnHand:
    """What delivery draws first in a chat's turn it took for a screen another worker's
    newer commit superseded meanwhile: the ephemeral hand of the player to move, its
    screen as stored now, and the version (delivery draws it only if that message is
    behind)."""

    async def turn(session_id: int) -> tuple[str, Screen, int] | None:
        try:
            session = await manager.get(session_id)
        except Refusal:  # deleted meanwhile
            return None
        if session.status != "running" or session.to_move is None:
            return None
        purpose = ephemeral_purpose(session.to_move)
        shown = await presenter.newest(session, purpose)
        return None if shown is None else (purpose, shown, session.version)

    return turn
