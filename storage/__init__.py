"""Koloda's storage: the :class:`Store` protocol and its implementations.

``open_store(url)`` picks the backend from ``DATABASE_URL``: ``sqlite:///…``
(the default; :mod:`storage.sqlite` over :mod:`storage.database`) or
``postgresql://…`` (:mod:`storage.postgres`); both run the one store of
:mod:`storage.store` on the schema of :mod:`storage.schema`. ``replay`` rebuilds a match from
its seed and move log.
"""

from storage.open import open_store
from storage.protocol import (
    ChatBusy,
    DatabaseUnusable,
    InviteUsed,
    MessageStore,
    PreferenceStore,
    PressRepeated,
    SendBudget,
    SessionStore,
    StaleVersion,
    Store,
    TallyStore,
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
    "MessageStore",
    "MoveRecord",
    "PreferenceStore",
    "PressRepeated",
    "RatedMatch",
    "Rating",
    "RatingChange",
    "RatingRow",
    "ResultRecord",
    "SeatRecord",
    "SendBudget",
    "SessionRecord",
    "SessionStore",
    "StaleVersion",
    "Store",
    "TallyRow",
    "TallyStore",
    "in_effect",
    "open_store",
    "parse_database_url",
    "rated_match",
    "replay",
]
