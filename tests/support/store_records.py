"""Records for the store tests: a few users, a chat, a lobby as the session layer makes it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from storage import SeatRecord, SessionRecord, Store

T0 = 1_800_000_000.0

CHAT = -1_001_234_567_890  # a supergroup id: wider than 32 bits

ANN, BOB, CY, DI, ED = 1001, 1002, 1003, 1004, 5_000_000_000


def lobby(
    chat_id: int | None = CHAT,
    *,
    kind: str = "group",
    status: str = "lobby",
    seats: list[SeatRecord] | None = None,
    **changes: Any,
) -> SessionRecord:
    """A session record as the session layer would create it."""
    record = SessionRecord(
        id=0,
        chat_id=chat_id,
        kind=kind,
        game="eleven",
        status=status,
        creator=ANN,
        options={"target": 5},
        timer=None,
        seed=None,
        version=1,
        moves=0,
        state=None,
        deadline=None,
        result=None,
        created=T0,
        seats=[SeatRecord(ANN, "Ann", None)] if seats is None else seats,
    )
    return replace(record, **changes)


async def created(store: Store, record: SessionRecord | None = None) -> SessionRecord:
    """``record`` (a lobby by default) created, as loaded back."""
    session_id = await store.create_session(record or lobby())
    loaded = await store.load_session(session_id)
    assert loaded is not None
    return loaded
