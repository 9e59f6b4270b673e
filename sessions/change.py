"""What one step does to a table, as one value: a :class:`Change`.

Every operation (a join, a deal, a move, a timeout …) loads a session, works out
the state it leads to and builds one :class:`Change` with everything that goes
with it: the move-log row, the finished match's results and rating, the invite
it uses up, the messages that must show the new version. The repository
(:mod:`sessions.repository`) commits a change in one transaction, or not at all.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace

from games import Game
from sessions.messages import TABLE, ephemeral_purpose, hand_purpose
from sessions.model import Player, Session
from sessions.ratings import RatedMatch
from storage import DailyPlay, DailyScore, InviteUse, MoveRecord, ResultRecord

#: Random bytes of a session's deep-link token (16 URL-safe characters).
LINK_BYTES = 12


@dataclass(frozen=True)
class Change:
    """``after`` committed over ``before`` (None: a new session), with what goes with it.

    ``after`` is complete: its version is one on, its deadline stands only while a
    human is to move, and ``after.changed`` names the messages that must show it.
    Build one with :meth:`of` or :meth:`new`.
    """

    before: Session | None
    after: Session
    move: MoveRecord | None = None
    results: tuple[ResultRecord, ...] = ()
    rated: RatedMatch | None = None
    invite: InviteUse | None = None
    #: a new daily deal's table: the player's one play of the day
    daily_play: DailyPlay | None = None
    #: a daily deal finished: its score for the board
    daily_score: DailyScore | None = None

    @classmethod
    def of(
        cls,
        before: Session,
        state: Session,
        *,
        move: MoveRecord | None = None,
        results: Sequence[ResultRecord] = (),
        rated: RatedMatch | None = None,
        invite: InviteUse | None = None,
        daily_score: DailyScore | None = None,
    ) -> Change:
        """The change from ``before`` to ``state`` (``before`` with what the operation
        altered), with the move row, results, rating, invite use and daily score that
        go with it."""
        after = replace(
            state,
            version=before.version + 1,
            deadline=kept_deadline(state),
            changed=changed_messages(before, state),
        )
        return cls(before, after, move, tuple(results), rated, invite, daily_score=daily_score)

    @classmethod
    def new(cls, session: Session, *, daily: DailyPlay | None = None) -> Change:
        """A new session (its id comes with the commit), with a fresh deep-link token:
        the table and every seated human's hand are to be drawn; ``daily``: it is that
        player's one play of a day's deal."""
        everyone = [hand_purpose(seat) for seat, p in enumerate(session.seats) if p.user_id]
        after = replace(
            session,
            deadline=kept_deadline(session),
            changed=(TABLE, *everyone),
            link=secrets.token_urlsafe(LINK_BYTES),
        )
        return cls(None, after, daily_play=daily)

    @property
    def seats_changed(self) -> bool:
        """Whether the seat rows are to be written (and seated humans' names remembered)."""
        return self.before is None or self.before.seats != self.after.seats

    @property
    def finishes(self) -> bool:
        """Whether this change ends the match."""
        before = None if self.before is None else self.before.status
        return self.after.status == "finished" and before != "finished"


def computer_to_move(session: Session) -> int | None:
    """The computer seat whose move is awaited, or None (none while the table waits)."""
    if session.paused:
        return None
    seat = session.to_move
    return seat if seat is not None and session.seats[seat].is_computer else None


def kept_deadline(session: Session) -> float | None:
    """A deadline only while a human is to move in a running game."""
    if session.status == "running" and computer_to_move(session) is None:
        return session.deadline
    return None


def turn_deadline(game: Game, seats: list[Player], timer: int | None, now: float) -> float | None:
    """When the turn now starting expires: only a human's turn, only with a timer."""
    seat = game.to_move
    if timer is None or seat is None or seats[seat].is_computer:
        return None
    return now + timer


def changed_messages(old: Session, new: Session) -> tuple[str, ...]:
    """The messages ``new`` must be shown in: the table always; a player's own hand
    message when their cards or moves changed, and the hand of whoever is to move
    (its buttons carry the version), with her ephemeral hand in a group (if she
    has one open: only stored messages are marked behind); every hand in a
    private duel, whose hand message is the table."""
    purposes = [TABLE]
    for seat, player in enumerate(new.seats):
        before = old.seats[seat] if seat < len(old.seats) else None
        if player.user_id is None and (before is None or before.user_id is None):
            continue
        if (
            new.kind != "group"
            or old.status != new.status
            or before != player
            or new.to_move == seat
            or old.hand_key(seat) != new.hand_key(seat)
        ):
            purposes.append(hand_purpose(seat))
            if new.kind == "group":
                purposes.append(ephemeral_purpose(seat))
    return tuple(purposes)
