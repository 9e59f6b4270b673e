"""Koloda's storage: SQLite through aiosqlite (WAL, synchronous=FULL, migrations).

``Database`` owns the connections and transactions, ``storage.store`` holds
every SQL statement, ``replay`` rebuilds a match from its seed and move log.
"""

from storage.database import Database
from storage.records import (
    InviteRecord,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    TallyRow,
)
from storage.replay import replay
from storage.store import ChatBusy, StaleVersion
from storage.url import parse_database_url

__all__ = [
    "ChatBusy",
    "Database",
    "InviteRecord",
    "MessageRef",
    "MoveRecord",
    "ResultRecord",
    "SeatRecord",
    "SessionRecord",
    "StaleVersion",
    "TallyRow",
    "parse_database_url",
    "replay",
]
