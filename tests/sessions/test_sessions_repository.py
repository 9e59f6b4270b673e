"""The repository commits a ``Change`` whole or not at all (``sessions.repository``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from sessions import TABLE, Player, Refusal, Session, ephemeral_purpose, hand_purpose
from sessions.background import Background
from sessions.change import Change
from sessions.checks import with_seat
from sessions.presses import pressing
from sessions.repository import Repository
from storage import InviteRecord, InviteUse, MoveRecord, Store

NOW = 1_800_000_000.0


def _clock() -> float:
    return NOW


class _Committed:
    """What the repository reported as committed, in order."""

    def __init__(self) -> None:
        self.sessions: list[Session] = []

    def __call__(self, session: Session) -> None:
        self.sessions.append(session)


@pytest.fixture
def committed() -> _Committed:
    """The repository's record of its commits."""
    return _Committed()


@pytest.fixture
async def repo(store: Store, committed: _Committed) -> AsyncIterator[Repository]:
    """A repository over ``store`` with its own background tasks."""
    background = Background(_clock, lambda session_id, version: None)
    yield Repository(store, _clock, background, committed)
    await background.close()


def _lobby(creator: int = 1) -> Session:
    return Session(
        id=0, chat_id=-100, kind="group", game_id="eleven", status="lobby",
        creator_id=creator, seats=[Player(creator, "Ann", None)],
        options={"target": 5}, timer=None, version=1, deadline=None, game=None,
        result=None, created_at=NOW,
    )


async def test_a_change_on_a_stale_version_stores_nothing_and_records_no_press(
    repo: Repository, store: Store, committed: _Committed
) -> None:
    lobby = await repo.commit(Change.new(_lobby()))
    joined = await repo.commit(Change.of(lobby, with_seat(lobby, Player(2, "Bob", None))))
    assert joined.version == 2
    late = Change.of(
        lobby,
        replace(lobby, timer=60),
        move=MoveRecord(1, 0, "noted", False, NOW, lobby.version),
    )
    with pressing("cq:late"):
        with pytest.raises(Refusal) as caught:
            await repo.commit(late)
        assert caught.value.code == "stale"
        assert lobby.id not in repo.cache  # the next load reads the store
        assert not await store.pressed("cq:late")
        stored = await repo.load(lobby.id)
        assert (stored.version, stored.timer) == (2, None)
        assert [p.name for p in stored.seats] == ["Ann", "Bob"]
        assert await store.moves_of(lobby.id) == []
        again = await repo.commit(Change.of(stored, replace(stored, timer=60)))
        assert await store.pressed("cq:late")  # the try that commits records the press
    assert [s.version for s in committed.sessions] == [1, 2, 3]
    assert (await repo.load(lobby.id)).timer == again.timer == 60


async def test_an_invite_used_already_keeps_the_whole_change_out(
    repo: Repository, store: Store, committed: _Committed
) -> None:
    lobby = await repo.commit(Change.new(_lobby()))
    await store.insert_invite(InviteRecord("code", lobby.id, 1, NOW + 60, None))
    seated = with_seat(lobby, Player(2, "Bob", None))
    move = MoveRecord(1, 0, "noted", False, NOW, lobby.version)
    used = await repo.commit(Change.of(lobby, seated, invite=InviteUse("code", 2)))
    twice = Change.of(used, replace(used, timer=60), move=move, invite=InviteUse("code", 3))
    with pytest.raises(Refusal) as caught:
        await repo.commit(twice)
    assert caught.value.code == "invite_invalid"
    repo.forget(lobby.id)
    stored = await repo.load(lobby.id)
    assert (stored.version, stored.timer, len(stored.seats)) == (used.version, None, 2)
    assert await store.moves_of(lobby.id) == []
    assert [s.version for s in committed.sessions] == [1, 2]


async def test_a_failed_commit_drops_the_cached_session(
    repo: Repository, store: Store
) -> None:
    lobby = await repo.commit(Change.new(_lobby()))
    assert repo.cache[lobby.id] is lobby

    class Crash(Exception):
        pass

    async def crash(*args: Any, **kwargs: Any) -> None:
        raise Crash

    real = store.save_session
    store.save_session = crash  # type: ignore[method-assign]
    with pytest.raises(Crash):
        await repo.commit(Change.of(lobby, replace(lobby, timer=60)))
    store.save_session = real  # type: ignore[method-assign]
    assert lobby.id not in repo.cache
    assert (await repo.load(lobby.id)).timer is None


async def test_seat_rows_go_with_a_change_only_when_the_seats_changed(
    repo: Repository, store: Store
) -> None:
    lobby = await repo.commit(Change.new(_lobby()))
    seen: list[bool] = []
    real = store.save_session

    async def spy(*args: Any, seats: bool = False, **kwargs: Any) -> None:
        seen.append(seats)
        await real(*args, seats=seats, **kwargs)

    store.save_session = spy  # type: ignore[method-assign]
    timed = await repo.commit(Change.of(lobby, replace(lobby, timer=60)))
    joined = await repo.commit(Change.of(timed, with_seat(timed, Player(2, "Bob", None))))
    store.save_session = real  # type: ignore[method-assign]
    assert seen == [False, True]
    repo.forget(lobby.id)
    assert (await repo.load(lobby.id)).seats == joined.seats


def test_a_change_is_one_version_on_and_names_the_messages_to_redraw() -> None:
    lobby = replace(_lobby(), id=7, deadline=NOW + 60)  # a lobby keeps no deadline
    change = Change.of(lobby, with_seat(lobby, Player(2, "Bob", None)))
    assert change.after.version == lobby.version + 1
    assert change.after.deadline is None
    # a group seat: her private hand and, if she has one open, her ephemeral hand
    assert change.after.changed == (TABLE, hand_purpose(1), ephemeral_purpose(1))
    assert change.seats_changed and not change.finishes
    new = Change.new(_lobby())
    assert new.after.changed == (TABLE, hand_purpose(0)) and new.after.link
    assert new.before is None and new.seats_changed
