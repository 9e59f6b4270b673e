"""Koloda's storage: the :class:`Store` protocol and its implementations.

``open_store(url)`` picks the backend from ``DATABASE_URL``: ``sqlite:///…``
(the default; :mod:`storage.sqlite` over :mod:`storage.database`) or
``postgresql://…`` (:mod:`storage.postgres`); both run the one store of
:mod:`storage.store` on the schema of :mod:`storage.schema`. Storage keeps data only: the rating
maths and rules replay are the session layer's (:mod:`sessions.ratings`,
:mod:`sessions.replay`).
"""

from storage.open import open_store
from storage.protocol import (
    ChatBusy,
    DailyPlayed,
    DatabaseUnusable,
    InviteUsed,
    Liveness,
    MessageStore,
    OpenPages,
    PreferenceStore,
    PressRepeated,
    SendBudget,
    SessionStore,
    StaleVersion,
    Store,
)
from storage.protocol_results import DailyStore, SeasonStore, TallyStore
from storage.ratings import (
    OVERALL,
    Rating,
    RatingChange,
    RatingRow,
    RatingUpdate,
    RebuildRatings,
    StoredMatch,
)
from storage.records import (
    Beat,
    DailyPlay,
    DailyResult,
    DailyRow,
    DailyScore,
    InviteRecord,
    InviteUse,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    TallyRow,
)
from storage.url import parse_database_url

__all__ = [
    "OVERALL",
    "Beat",
    "ChatBusy",
    "DailyPlay",
    "DailyPlayed",
    "DailyResult",
    "DailyRow",
    "DailyScore",
    "DailyStore",
    "DatabaseUnusable",
    "InviteRecord",
    "InviteUse",
    "InviteUsed",
    "Liveness",
    "MessageRef",
    "MessageStore",
    "MoveRecord",
    "OpenPages",
    "PreferenceStore",
    "PressRepeated",
    "Rating",
    "RatingChange",
    "RatingRow",
    "RatingUpdate",
    "RebuildRatings",
    "ResultRecord",
    "SeasonStore",
    "SeatRecord",
    "SendBudget",
    "SessionRecord",
    "SessionStore",
    "StaleVersion",
    "Store",
    "StoredMatch",
    "TallyRow",
    "TallyStore",
    "open_store",
    "parse_database_url",
]
