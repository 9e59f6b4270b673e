"""The session layer: tables, seats, turns, timers, computer players — no Telegram.

:class:`SessionManager` is the one entry point to the tables (a facade over the
lobby, play, turns, queries and the repository), :class:`Preferences` keeps
languages and reachability, :class:`Messages` the Telegram messages that show
each session (by purpose, with the versions they show). All of it persists
through the :class:`storage.Store` protocol. The contract is
``docs/sessions-api.md``.
"""

from sessions.manager import (
    INVITE_TTL,
    LEVELS,
    LOBBY_TTL,
    PRIVATE_TABLES,
    TIMER_RANGE,
    TIMERS,
    SessionManager,
    seats_allowed,
    takeback_allowed,
)
from sessions.messages import TABLE, Messages, ephemeral_purpose, hand_purpose
from sessions.model import Computer, Outcome, Player, Refusal, Session, Subscriber
from sessions.preferences import LANGUAGES, Preferences
from storage import OVERALL, MessageRef, RatingChange, RatingRow, TallyRow

__all__ = [
    "INVITE_TTL",
    "LANGUAGES",
    "LEVELS",
    "LOBBY_TTL",
    "OVERALL",
    "PRIVATE_TABLES",
    "TABLE",
    "TIMERS",
    "TIMER_RANGE",
    "Computer",
    "MessageRef",
    "Messages",
    "Outcome",
    "Player",
    "Preferences",
    "RatingChange",
    "RatingRow",
    "Refusal",
    "Session",
    "SessionManager",
    "Subscriber",
    "TallyRow",
    "ephemeral_purpose",
    "hand_purpose",
    "seats_allowed",
    "takeback_allowed",
]
