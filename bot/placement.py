"""Where a screen goes and how, as one value: :class:`Placement`.

The presenter decides a placement for every screen it draws; :func:`place` is
the one place that turns it into :class:`~bot.delivery.Delivery`'s calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bot.delivery import Delivery
from bot.render.common import Screen


class Where(Enum):
    """Which message shows the screen."""

    #: the table's message in its group
    GROUP = "group"
    #: a player's message in their private chat with the bot
    PRIVATE = "private"
    #: a message in the group only one player sees (kept current; never posted here)
    EPHEMERAL = "ephemeral"


class How(Enum):
    """What becomes of the message."""

    #: edited; posted if there is none yet
    KEEP = "keep"
    #: posted anew (the chat's newest), and that one is kept from now on
    REPOST = "repost"
    #: edited if there is one; never posted
    EDIT_ONLY = "edit-only"
    #: edited even if the screen is the one sent last (the message may not show it)
    REDRAW = "redraw"


class Pace(Enum):
    """When it goes, if Telegram's budget is short."""

    #: before everything else (the table of a running game; a player's turn)
    URGENT = "urgent"
    NORMAL = "normal"
    #: may wait a while for a newer screen, which then goes instead in one edit
    DEFERRED = "deferred"


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
) -> None:
    """Hand ``screen`` (showing ``version``) to delivery for the session's message of
    ``purpose`` in ``chat_id`` (an ephemeral one is found by its purpose alone)."""
    how, pace, final = placement.how, placement.pace, placement.final
    if placement.where is Where.EPHEMERAL:
        delivery.show_ephemeral(
            session_id, purpose, screen, version, final=final, force=how is How.REDRAW
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
    )
