"""What operations check before they change a table, and the seats they fill.

Each check raises a :class:`~sessions.model.Refusal` with its code from
``docs/sessions-api.md``; nothing here reads or writes the store.
"""

from __future__ import annotations

from dataclasses import replace

from games import REGISTRY, Game
from games.ai import LEVELS
from sessions.model import Player, Refusal, Session

#: The level of a computer that stands in for an absent or departed human.
STAND_IN_LEVEL = "normal"
OPEN = ("lobby", "running")


def game_class(game_id: str) -> type[Game]:
    """The rules of ``game_id`` (Refusal ``unknown_game``)."""
    found = REGISTRY.get(game_id)
    if found is None:
        raise Refusal("unknown_game", str(game_id))
    return found


def check_level(level: str) -> None:
    """Refusal ``bad_level`` unless ``level`` is a computer's level."""
    if level not in LEVELS:
        raise Refusal("bad_level", str(level))


def require_lobby(session: Session) -> None:
    """Refusal ``not_in_lobby`` once the game has started (or ended)."""
    if session.status != "lobby":
        raise Refusal("not_in_lobby", session.status)


def require_running(session: Session) -> Game:
    """The game in play (Refusal ``not_running`` outside play)."""
    if session.status != "running" or session.game is None:
        raise Refusal("not_running", session.status)
    return session.game


def require_creator(session: Session, user_id: int) -> None:
    """Refusal ``not_creator`` unless ``user_id`` created the table."""
    if user_id != session.creator_id:
        raise Refusal("not_creator")


def require_seat(session: Session, user_id: int) -> int:
    """The seat of ``user_id`` (Refusal ``not_a_player``)."""
    seat = session.seat_of(user_id)
    if seat is None:
        raise Refusal("not_a_player")
    return seat


def takeback_allowed(session: Session) -> bool:
    """Take-backs are for a table of one person and computers (never two humans, nor a
    computer standing in for a human who may come back), and never at a daily deal."""
    if session.daily is not None:
        return False
    humans = [p for p in session.seats if p.user_id is not None or p.stands_in_for is not None]
    return len(humans) == 1


def seats_allowed(session: Session) -> int:
    """How many seats the table may have with its options."""
    return game_class(session.game_id).players_allowed(session.options)


def require_free_seat(session: Session) -> None:
    """Refusal ``table_full`` when every seat the options allow is taken."""
    if len(session.seats) >= seats_allowed(session):
        raise Refusal("table_full")


def with_seat(session: Session, player: Player) -> Session:
    """The lobby with ``player`` in the next free seat."""
    require_lobby(session)
    if player.user_id is not None and session.seat_of(player.user_id) is not None:
        raise Refusal("already_seated")
    require_free_seat(session)
    return replace(session, seats=[*session.seats, player])


def computer(level: str) -> Player:
    """A computer player of ``level``, named after it."""
    return Player(None, f"Computer ({level})", level)


def stand_in(player: Player) -> Player:
    """The computer that takes over a human's seat (it keeps the human's name and id)."""
    return Player(None, player.name, STAND_IN_LEVEL, stands_in_for=player.user_id)
