"""Who goes next: the priorities of Bot API requests and how the waiting ones are ranked.

When requests queue for a chat's next slot or for the bot's overall pace
(:mod:`bot.limiter` hands the slots out), the one that takes a slot is chosen
here, at the time the slot opens:

- the most urgent goes first (lower :data:`URGENT` … :data:`REPLY` first), then
  the oldest; a waiting request whose message changed meanwhile (:class:`Urgency`)
  is ranked by what it carries now: more urgent if it now carries its player's turn,
  less if the turn has passed (its slot then draws the newest screen, which no longer
  has the turn's buttons, so a turn that came since must not wait behind it);
- a running table's screen (:data:`TABLE`) ages: until it has waited :data:`RIPE`
  of its group's intervals it is young, and ranks after the turns' hands — for the
  overall pace after every ``NORMAL`` screen (the private hands), in its group's
  own queue after the ``URGENT`` ones only (the ephemeral hand that carries its
  player's turn; a young table still goes before other screens and replies) —
  then ripe, as ``URGENT`` as a turn (the older of the two first). The player who
  must act gets her buttons first, the table's edit meanwhile covers every move
  made while it waits, and it still shows a move within about an interval. A group
  whose hands are private has no ``URGENT`` request in its queue, so there its
  table goes first as before;
- in a chat's queue a request that has waited :data:`AGED` intervals (a reply)
  takes the slot from those ahead of it only while none of them has waited more
  than :data:`FRESH` of an interval (:meth:`Lane.take`), so a screen passed over
  still goes within 4/3 of an interval (~4.2 s in a group), and replies go
  whenever the chat's screens leave such a gap.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

#: Priorities: lower goes first when requests queue for a chat's or the overall pace.
#: ``REPLY`` (a one-off answer to a command) goes after every screen of its chat, but
#: for the overall pace as urgently as a turn: someone waits for it, and its chat's
#: own pace already bounds how many there are.
URGENT, NORMAL, LATER, REPLY = 0, 1, 2, 3
#: A running table's screen: until it has waited :data:`RIPE` of its chat's intervals,
#: after every ``NORMAL`` request (the turns' hands) for the overall pace and after the
#: ``URGENT`` ones (a turn's ephemeral hand) in its chat's queue; ``URGENT`` from then on.
TABLE = 4

#: A request that has waited this many of its chat's intervals takes the chat's next
#: slot from the requests ahead of it (a reply behind a table's screens) ...
AGED = 2
#: ... if none of them has waited more than this share of an interval: each then still
#: goes within ``1 + FRESH`` intervals of asking: a group's table edit within ~4.2 s, so a
#: move shows within 5 s with the time to commit it and the bot's overall pace to spare.
FRESH = 1 / 3

#: A table's screen that has waited this many of its group's intervals is as urgent as a
#: turn's hand (:data:`TABLE`), in its group's queue and for the overall pace: a table
#: edit a pace's slot apart takes no more of the group's budget, and covers the moves
#: made while it waited.
RIPE = 1.0


class Urgency(Protocol):
    """What a waiting request carries may change while it waits (a delivery slot's
    newest screen): its ``priority`` is read each time a slot is handed out."""

    priority: int


@dataclass
class Waiting:
    """One request waiting for a slot; ``turn`` is resolved when it takes one."""

    priority: int
    order: int
    since: float  # the clock's now() when it began to wait
    turn: asyncio.Future[None]
    urgency: Urgency | None = None
    #: seconds after ``since`` from which a :data:`TABLE` screen ranks ``URGENT``
    ripe: float = 0.0
    #: what a young :data:`TABLE` screen ranks after: ``NORMAL`` for the overall pace (the
    #: turns' hands), ``URGENT`` in its chat's queue (a turn's ephemeral hand)
    young: int = NORMAL

    def rank(self, now: float) -> tuple[int, int, int]:
        """(priority at ``now``, after its peers, order): the most urgent first, then the
        oldest; a request with an :class:`Urgency` by what it carries now."""
        priority = self.priority if self.urgency is None else self.urgency.priority
        return (*self._level(priority, now), self.order)

    def _level(self, priority: int, now: float) -> tuple[int, int]:
        """(priority, 1 if it goes after the others of that priority): a young table's
        screen goes after the requests of priority ``young`` (the turns' hands)."""
        if priority != TABLE:
            return (priority, 0)
        return (URGENT, 0) if now - self.since >= self.ripe else (self.young, 1)


def first(queue: list[Waiting], now: float) -> Waiting:
    """The request a slot opening ``now`` goes to, taken out of ``queue``: the most
    urgent, then the oldest (a linear look, not a heap: a waiting request's urgency
    may have changed)."""
    best = min(queue, key=lambda w: w.rank(now))
    queue.remove(best)
    return best


@dataclass
class Lane:
    """One chat's requests waiting for its next slot."""

    queue: list[Waiting] = field(default_factory=list)
    pump: asyncio.Task[None] | None = None

    def take(self, aged: float, fresh: float, now: float) -> Waiting:
        """The request the slot opening ``now`` goes to: the most urgent (then the
        oldest), or the oldest if it has waited ``aged`` seconds and none of those it
        passes has waited more than ``fresh``: a request is passed over at most once,
        and only early in its wait."""
        urgent = min(self.queue, key=lambda w: w.rank(now))
        oldest = min(self.queue, key=lambda w: w.order)
        ahead = [w for w in self.queue if w.rank(now) < oldest.rank(now) and not w.turn.done()]
        jump = now - oldest.since >= aged and all(now - w.since <= fresh for w in ahead)
        best = oldest if jump else urgent
        self.queue.remove(best)
        return best

    def drop_done(self) -> None:
        """Forget the requests whose callers stopped waiting (cancelled)."""
        self.queue = [w for w in self.queue if not w.turn.done()]

    def waiting(self) -> int:
        """How many requests still wait."""
        return sum(not w.turn.done() for w in self.queue)
