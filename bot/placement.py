"""Where a screen goes and how: the vocabulary of the presenter's routing.

A :class:`Placement` says which message shows a screen (:class:`Where`), what becomes
of it (:class:`How`) and when it goes if Telegram's budget is short (:class:`Pace`);
:func:`place` is the one place that turns a placement into
:class:`~bot.delivery.Delivery`'s calls. :func:`hand_placement` and
:func:`ephemeral_placement` place a player's own messages after a change.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.delivery import Delivery
from bot.render.common import Screen
from sessions import Session


class Where(Enum):
    """Which message shows the screen."""

    GROUP = "group"  # the table's message in its group
    PRIVATE = "private"  # a player's message in their private chat with the bot
    EPHEMERAL = "ephemeral"  # one only that player sees in the group (kept current only)


class How(Enum):
    """What becomes of the message."""

    KEEP = "keep"  # edited; posted if there is none yet
    REPOST = "repost"  # posted anew (the chat's newest), and that one kept from now on
    EDIT_ONLY = "edit-only"  # edited if there is one; never posted
    REDRAW = "redraw"  # edited even if it is the screen sent last (the message may differ)


class Pace(Enum):
    """When it goes, if Telegram's budget is short."""

    URGENT = "urgent"  # before everything else (a player's turn)
    # a running table: after the turns' hands until it has waited its group's interval,
    # then as urgent as they are, the older first (bot.queueing.TABLE)
    TABLE = "table"
    NORMAL = "normal"
    DEFERRED = "deferred"  # may wait for a newer screen, which then goes in one edit


#: The order in which the screens of one change ask for their chats' slots. A slot
#: that is free when they come (the player thought longer than her group's interval)
#: goes to the first that asks, so they ask as :mod:`bot.queueing` ranks them when they
#: queue: the turn's hand first, then the table, then the rest.
ASKING_ORDER = (Pace.URGENT, Pace.TABLE, Pace.NORMAL, Pace.DEFERRED)


@dataclass(frozen=True)
class Placement:
    """Where a screen goes and how; ``final``: the session is over, so the message is
    let go once it shows this."""

    where: Where
    how: How = How.KEEP
    pace: Pace = Pace.NORMAL
    final: bool = False


def place(
    delivery: Delivery,
    session_id: int,
    purpose: str,
    chat_id: int,
    screen: Screen,
    version: int,
    placement: Placement,
    thread: int = 0,
) -> None:
    """Hand ``screen`` (showing ``version``) to delivery for the session's message of
    ``purpose`` in ``chat_id`` — in its forum topic ``thread`` (0: none) — (an ephemeral
    one is found by its purpose alone; ``chat_id`` is its group)."""
    how, pace, final = placement.how, placement.pace, placement.final
    if placement.where is Where.EPHEMERAL:
        delivery.show_ephemeral(
            session_id, purpose, screen, version, final=final, force=how is How.REDRAW,
            deferred=pace is Pace.DEFERRED, urgent=pace is Pace.URGENT, chat_id=chat_id,
        )
        return
    delivery.show(
        session_id,
        purpose,
        chat_id,
        screen,
        version,
        repost=how is How.REPOST,
        edit_only=how is How.EDIT_ONLY,
        final=final,
        deferred=pace is Pace.DEFERRED,
        urgent=pace is Pace.URGENT,
        force=how is How.REDRAW,
        thread=thread if placement.where is Where.GROUP else 0,
        table=pace is Pace.TABLE,
    )


def ephemeral_placement(session: Session, seat: int, over: bool) -> Placement:
    """A player's ephemeral hand in the group after a change: it spends the group's
    budget, with the table. The player to move needs her turn's buttons first (the
    table's edit follows a slot later, :data:`bot.queueing.TABLE`); the others' changes
    (the card just played) may wait and go out with their next turn's buttons."""
    running = session.status == "running"
    return Placement(
        Where.EPHEMERAL,
        pace=Pace.NORMAL if not running else Pace.URGENT if session.to_move == seat
        else Pace.DEFERRED,
        final=over,
    )


def hand_placement(session: Session, seat: int, over: bool) -> Placement:
    """A player's private message after a change: a group table that ends only updates
    hand messages already there; only the player to move needs theirs at once — the
    others' changes (the card just played, one drawn meanwhile, a new deal) may wait
    and go out with their next turn's buttons, in one edit."""
    group = session.kind == "group"
    return Placement(
        Where.PRIVATE,
        How.EDIT_ONLY if group and session.status != "running" else How.KEEP,
        Pace.DEFERRED if group and session.status == "running" and session.to_move != seat
        else Pace.NORMAL,
        final=over,
    )
