"""Koloda's storage: the :class:`Store` protocol and its implementations.

``open_store(url)`` picks the backend from ``DATABASE_URL``: ``sqlite:///…``
(the default; :mod:`storage.sqlite` over :mod:`storage.database`) or
``postgresql://…`` (:mod:`storage.postgres`). ``replay`` rebuilds a match from
its seed and move log.
"""

from storage.open import open_store
from storage.protocol import (
    ChatBusy,
    DatabaseUnusable,
    InviteUsed,
    PressRepeated,
    StaleVersion,
    Store,
)
from storage.ratings import OVERALL, RatedMatch, Rating, RatingChange, RatingRow, rated_match
from storage.records import (
    InviteRecord,
    InviteUse,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    TallyRow,
)
from storage.replay import TAKE_BACK, in_effect, replay
from storage.url import parse_database_url

__all__ = [
    "OVERALL",
    "TAKE_BACK",
    "ChatBusy",
    "DatabaseUnusable",
    "InviteRecord",
    "InviteUse",
    "InviteUsed",
    "MessageRef",
    "MoveRecord",
    "PressRepeated",
    "RatedMatch",
    "Rating",
    "RatingChange",
    "RatingRow",
    "ResultRecord",
    "SeatRecord",
    "SessionRecord",
    "StaleVersion",
    "Store",
    "TallyRow",
    "in_effect",
    "open_store",
    "parse_database_url",
    "rated_match",
    "replay",
]
