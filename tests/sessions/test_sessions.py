"""SessionManager: lobby, play, refusals, computers, tally, invites, messages."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from games import REGISTRY
from games.base import View
from sessions import (
    INVITE_TTL,
    LOBBY_TTL,
    TABLE,
    Messages,
    Outcome,
    Player,
    Preferences,
    Refusal,
    Session,
    SessionManager,
)
from sessions.replay import replay
from tests.support.helpers_sessions import (
    Broken,
    FakeClock,
    FirstLegal,
    Illegal,
    RandomLegal,
    duel,
    open_manager,
    play_one,
    play_out,
)


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[SessionManager]:
    manager = await open_manager(tmp_path / "k.sqlite3")
    yield manager
    await manager.close()


async def refused(code: str, call: object) -> Refusal:
    """Await ``call`` and check it is refused with ``code``."""
    assert asyncio.iscoroutine(call)
    with pytest.raises(Refusal) as caught:
        await call
    assert caught.value.code == code, caught.value
    return caught.value


async def assert_replay_matches(manager: SessionManager, session: Session) -> None:
    """The stored state equals seed + options + move log replayed."""
    log = await manager.replay_log(session.id)
    assert session.seed is not None and session.game is not None
    assert [m.n for m in log] == list(range(1, session.moves + 1))
    rebuilt = replay(
        session.game_id,
        len(session.seats),
        session.options,
        session.seed,
        [(m.seat, m.action) for m in log],
    )
    assert rebuilt == session.game


# ------------------------------------------------------------------ lobby


async def test_lobby_to_finished_match(manager: SessionManager) -> None:
    lobby = await manager.create(-100, "group", 1, "Ann", "eleven")
    assert lobby.status == "lobby" and lobby.seats == [Player(1, "Ann", None)]
    assert lobby.creator_id == 1 and lobby.options == {"target": 5, "dealer_leads": False}
    joined = await manager.join(lobby.id, 2, "Bob")
    assert joined.seat_of(2) == 1 and joined.version == lobby.version + 1
    assert (await manager.set_option(lobby.id, 1, "target", 3)).options["target"] == 3
    assert (await manager.set_timer(lobby.id, 1, 300)).timer == 300
    started = await manager.start(lobby.id, 1)
    assert started.session.status == "running" and started.session.seed is not None
    assert await manager.open_in_chat(-100) == started.session
    finished = await play_out(manager, lobby.id)
    assert finished.status == "finished" and finished.deadline is None
    assert finished.result == finished.game.result if finished.game else False
    assert await manager.open_in_chat(-100) is None
    await assert_replay_matches(manager, finished)


async def test_every_lobby_refusal(manager: SessionManager) -> None:
    await refused("unknown_game", manager.create(-1, "group", 1, "Ann", "poker"))
    await refused("bad_option", manager.create(-1, "club", 1, "Ann", "eleven"))
    lobby = await manager.create(-1, "group", 1, "Ann", "eleven")
    await refused("chat_busy", manager.create(-1, "group", 2, "Bob", "eleven"))
    await refused("no_session", manager.join(999, 2, "Bob"))
    await refused("already_seated", manager.join(lobby.id, 1, "Ann"))
    await refused("too_few_players", manager.start(lobby.id, 1))
    await refused("not_creator", manager.add_computer(lobby.id, 2, "easy"))
    await refused("bad_level", manager.add_computer(lobby.id, 1, "godlike"))
    await refused("bad_option", manager.set_option(lobby.id, 1, "target", 99))
    await refused("bad_option", manager.set_option(lobby.id, 1, "trumps", "S"))
    await refused("bad_option", manager.set_timer(lobby.id, 1, 61))
    await manager.join(lobby.id, 2, "Bob")
    await refused("table_full", manager.join(lobby.id, 3, "Cid"))
    await refused("table_full", manager.add_computer(lobby.id, 1, "easy"))
    await refused("not_creator", manager.set_option(lobby.id, 2, "target", 3))
    await refused("not_creator", manager.set_timer(lobby.id, 2, 60))
    await refused("not_creator", manager.start(lobby.id, 2))
    await refused("not_creator", manager.cancel(lobby.id, 2))
    await refused("not_a_player", manager.leave(lobby.id, 3))
    await refused("not_running", manager.act(lobby.id, 1, 1, "AS"))
    unchanged = await manager.get(lobby.id)
    assert unchanged.options["target"] == 5 and unchanged.timer is None
    await manager.start(lobby.id, 1)
    await refused("not_in_lobby", manager.join(lobby.id, 3, "Cid"))
    await refused("not_in_lobby", manager.set_option(lobby.id, 1, "target", 3))
    await refused("not_in_lobby", manager.start(lobby.id, 1))
    await refused("not_finished", manager.rematch(lobby.id, 1))
    assert (await manager.get(lobby.id)).version == unchanged.version + 1


async def test_every_act_refusal_in_the_documented_order(manager: SessionManager) -> None:
    session = await duel(manager)
    seat = session.to_move
    assert seat is not None and session.game is not None
    mover = session.seats[seat].user_id
    waiter = session.seats[1 - seat].user_id
    assert mover is not None and waiter is not None
    await refused("no_session", manager.act(404, mover, session.version, "AS"))
    await refused("not_a_player", manager.act(session.id, 3, session.version, "AS"))
    await refused("stale", manager.act(session.id, waiter, session.version - 1, "AS"))
    await refused("not_your_turn", manager.act(session.id, waiter, session.version, "AS"))
    hand = set(session.view(seat)["hand"])
    foreign = next(c for c in session.game.deck_cards() if c not in hand)
    refusal = await refused("illegal", manager.act(session.id, mover, session.version, foreign))
    assert refusal.detail == "not_in_hand"
    assert await manager.get(session.id) == session
    assert await manager.replay_log(session.id) == []
    await manager.cancel(session.id, waiter, is_admin=True)
    await refused("not_running", manager.act(session.id, mover, session.version + 1, "AS"))
    await refused("not_running", manager.cancel(session.id, mover))


async def test_two_presses_with_one_version_one_wins(manager: SessionManager) -> None:
    session = await duel(manager)
    rng = random.Random(5)
    for _ in range(6):
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        legal = session.view(seat)["legal"]
        actions = [rng.choice(legal) for _ in range(2)]
        presses = [manager.act(session.id, user, session.version, action) for action in actions]
        answers = await asyncio.gather(*presses, return_exceptions=True)
        wins = [a for a in answers if isinstance(a, Outcome)]
        losses = [a for a in answers if isinstance(a, Refusal)]
        # the same button twice (a double tap) is one press: the second is "applied"
        expected = "applied" if actions[0] == actions[1] else "stale"
        assert len(wins) == 1 and [r.code for r in losses] == [expected]
        session = wins[0].session
    log = await manager.replay_log(session.id)
    assert [m.n for m in log] == [1, 2, 3, 4, 5, 6]
    await assert_replay_matches(manager, session)


async def test_leaving_a_lobby_and_creator_handover(manager: SessionManager) -> None:
    lobby = await manager.create(-5, "group", 1, "Ann", "eleven")
    await manager.join(lobby.id, 2, "Bob")
    after = (await manager.leave(lobby.id, 1)).session
    assert after.seats == [Player(2, "Bob", None)] and after.creator_id == 2
    gone = (await manager.leave(lobby.id, 2)).session
    assert gone.status == "cancelled"
    await refused("not_running", manager.leave(lobby.id, 2))
    assert (await manager.create(-5, "group", 3, "Cid", "eleven")).status == "lobby"


async def test_a_human_leaving_mid_game_is_replaced_by_a_computer(tmp_path: Path) -> None:
    computer = FirstLegal()
    manager = await open_manager(tmp_path / "l.sqlite3", computer)
    seen: list[Outcome] = []

    async def watch(outcome: Outcome) -> None:
        seen.append(outcome)

    manager.subscribe(watch)
    try:
        session = await duel(manager, users=(1, 2))
        left = await manager.leave(session.id, 2)
        after = left.session
        assert after.seats[1] == Player(None, "user2", "normal", stands_in_for=2)
        assert left.events == [{"type": "seat_handed_over", "seat": 1, "why": "left", "user_id": 2}]
        assert after.status == "running"
        rng = random.Random(1)
        while (current := await manager.get(session.id)).status == "running":
            await manager.idle()
            current = await manager.get(session.id)
            if current.status == "running" and current.to_move == 0:
                await play_one(manager, session.id, rng)
        assert seen and all(o.by_computer and o.actor == 1 for o in seen)
        assert {c[1] for c in computer.calls} == {"normal"}
        assert [r.user_id for r in await manager.chat_tally(-100)] == [1]
        await assert_replay_matches(manager, current)
    finally:
        await manager.close()


# ------------------------------------------------------------------ computers


@pytest.mark.parametrize("computer", [FirstLegal(), RandomLegal(), Illegal(), Broken()])
async def test_computers_play_to_the_end(tmp_path: Path, computer: object) -> None:
    manager = await open_manager(tmp_path / "c.sqlite3", computer)
    try:
        lobby = await manager.create(None, "private", 1, "Ann", "eleven")
        await manager.add_computer(lobby.id, 1, "strong")
        await manager.set_option(lobby.id, 1, "target", 1)
        human = random.Random(2)
        await manager.start(lobby.id, 1)
        while True:
            await manager.idle()
            session = await manager.get(lobby.id)
            if session.status != "running":
                break
            assert session.to_move == 0, "a computer seat must never be left waiting"
            await play_one(manager, lobby.id, human)
        assert session.status == "finished"
        log = await manager.replay_log(lobby.id)
        assert all(m.by_computer == (m.seat == 1) for m in log)
        await assert_replay_matches(manager, session)
    finally:
        await manager.close()


async def test_a_computer_turn_pending_at_shutdown_resumes_on_open(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"

    class Stuck:
        async def choose(self, game_id: str, view: View, level: str, seed: int) -> str:
            await asyncio.Event().wait()
            return ""

    manager = await open_manager(path, Stuck())
    lobby = await manager.create(None, "private", 1, "Ann", "eleven")
    await manager.add_computer(lobby.id, 1, "easy")
    session = (await manager.start(lobby.id, 1)).session
    while session.to_move != 1:
        session = await play_one(manager, lobby.id, random.Random(0))
    await manager.close()
    manager = await open_manager(path, FirstLegal())
    try:
        await manager.idle()
        assert (await manager.get(lobby.id)).moves > session.moves
    finally:
        await manager.close()


# ------------------------------------------------------------------ tally


async def test_tally_in_two_chats_and_user_stats(manager: SessionManager) -> None:
    expected: dict[tuple[int, int], list[float]] = {}
    for chat, users, seed in [(-1, (1, 2), 1), (-1, (1, 2), 2), (-2, (1, 3), 3)]:
        session = await play_out(manager, (await duel(manager, chat, users)).id, seed)
        assert session.result is not None
        for seat, user in enumerate(users):
            row = expected.setdefault((chat, user), [0, 0, 0])
            row[0] += 1
            row[1] += seat in session.result["winners"]
            row[2] += session.result["scores"][seat]
    tally = await manager.chat_tally(-1)
    assert {(r.user_id, r.played, r.wins, r.points) for r in tally} == {
        (u, *expected[(-1, u)]) for u in (1, 2)
    }
    assert [(r.wins, r.points) for r in tally] == sorted(
        [(r.wins, r.points) for r in tally], reverse=True
    )
    assert {r.name for r in tally} == {"user1", "user2"}
    assert await manager.chat_tally(-1, "king") == []
    assert [r.user_id for r in await manager.chat_tally(-2, "eleven")] in ([1, 3], [3, 1])
    (mine,) = await manager.user_stats(1)
    assert mine.game_id == "eleven" and mine.played == 3
    assert mine.wins == expected[(-1, 1)][1] + expected[(-2, 1)][1]
    assert await manager.user_stats(42) == []


async def test_rematch_keeps_seats_and_options(manager: SessionManager) -> None:
    first = await duel(manager, users=(1, 2), target=2)
    await refused("not_finished", manager.rematch(first.id, 1))
    await play_out(manager, first.id)
    await refused("not_a_player", manager.rematch(first.id, 9))
    again = (await manager.rematch(first.id, 2)).session
    assert again.id != first.id and again.status == "running"
    assert again.seats == first.seats and again.options == first.options
    assert again.chat_id == first.chat_id and again.creator_id == 2
    assert again.seed != first.seed and again.moves == 0
    # one rematch per match: a later press leads to it
    assert (await manager.rematch(first.id, 1)).session.id == again.id


# ------------------------------------------------------------------ bounds


async def test_a_quiet_lobby_expires_and_frees_the_group(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "q.sqlite3", clock=clock)
    told: list[Outcome] = []

    async def tell(outcome: Outcome) -> None:
        told.append(outcome)

    manager.subscribe(tell)
    try:
        quiet = await manager.create(-100, "group", 1, "Ann", "eleven")
        clock.advance(LOBBY_TTL / 2)
        busy = await manager.create(-200, "group", 2, "Bob", "eleven")
        clock.advance(LOBBY_TTL / 2 - 1)
        assert await manager.tidy() == 0
        await manager.join(busy.id, 3, "Cy")  # a change keeps a lobby alive
        clock.advance(2)
        assert await manager.tidy() == 1
        assert (await manager.get(quiet.id)).status == "cancelled"
        assert [o.session.id for o in told] == [quiet.id]
        assert await manager.open_in_chat(-100) is None
        assert (await manager.create(-100, "group", 1, "Ann", "eleven")).status == "lobby"
        assert (await manager.get(busy.id)).status == "lobby"
    finally:
        await manager.close()


async def test_used_and_expired_invites_are_purged(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "p.sqlite3", clock=clock)
    try:
        duel_ = await manager.create(1, "private", 1, "Ann", "eleven")
        used = await manager.create_invite(duel_.id, 1)
        await manager.accept_invite(used, 2, "Bob")
        lobby = await manager.create(1, "private", 1, "Ann", "eleven")
        late = await manager.create_invite(lobby.id, 1)
        clock.advance(INVITE_TTL / 2)
        fresh = await manager.create_invite(lobby.id, 1)
        clock.advance(INVITE_TTL / 2)
        await manager.tidy()
        assert await manager.store.load_invite(used) is None
        assert await manager.store.load_invite(late) is None
        assert await manager.store.load_invite(fresh) is not None
    finally:
        await manager.close()


async def test_a_new_private_lobby_replaces_the_oldest(manager: SessionManager) -> None:
    first = await manager.create(1, "private", 1, "Ann", "eleven")
    running = (await manager.play_computer(first.id, 1, "easy")).session
    lobbies = [await manager.create(1, "private", 1, "Ann", "eleven") for _ in range(4)]
    mine = await manager.sessions_of_user(1)
    assert [s.id for s in mine] == [running.id, lobbies[2].id, lobbies[3].id]
    assert (await manager.get(lobbies[0].id)).status == "cancelled"
    for waiting in mine[1:]:  # three running duels: no lobby left to replace
        await manager.play_computer(waiting.id, 1, "easy")
    await refused("too_many_tables", manager.create(1, "private", 1, "Ann", "eleven"))
    # a group table is not counted
    assert (await manager.create(-100, "group", 1, "Ann", "eleven")).status == "lobby"


async def test_play_computer_seats_only_computers(manager: SessionManager) -> None:
    lobby = await manager.create(1, "private", 1, "Ann", "eleven")
    await refused("invite_only", manager.join(lobby.id, 2, "Mallory"))
    dealt = (await manager.play_computer(lobby.id, 1, "easy")).session
    assert dealt.humans == [1] and [p.level for p in dealt.seats] == [None, "easy"]
    # a King lobby keeps the friend its invite seated; computers fill the rest
    king = await manager.create(1, "private", 1, "Ann", "king")
    await manager.accept_invite(await manager.create_invite(king.id, 1), 2, "Bob")
    await refused("invite_only", manager.join(king.id, 3, "Mallory"))
    dealt = (await manager.play_computer(king.id, 1, "easy")).session
    assert dealt.humans == [1, 2] and len(dealt.seats) == REGISTRY["king"].min_players
    assert all(p.level == "easy" for p in dealt.seats[2:])


# ------------------------------------------------------------------ invites


async def test_private_duel_by_invite(tmp_path: Path) -> None:
    clock = FakeClock()
    manager = await open_manager(tmp_path / "i.sqlite3", clock=clock)
    try:
        lobby = await manager.create(1, "private", 1, "Ann", "eleven")
        other = await manager.create(1, "private", 1, "Ann", "eleven")
        assert other.id != lobby.id, "private duels are not tied to one chat"
        await refused("not_creator", manager.create_invite(lobby.id, 2))
        code = await manager.create_invite(lobby.id, 1)
        await refused("invite_invalid", manager.accept_invite("nope", 2, "Bob"))
        await refused("invite_own", manager.accept_invite(code, 1, "Ann"))
        seated = (await manager.accept_invite(code, 2, "Bob")).session
        assert seated.seats[1] == Player(2, "Bob", None)
        assert seated.status == "running"  # the table is full: seated and dealt in one commit
        await refused("invite_invalid", manager.accept_invite(code, 3, "Cid"))
        await refused("not_in_lobby", manager.create_invite(lobby.id, 1))
        late = await manager.create_invite(other.id, 1)
        clock.advance(INVITE_TTL + 1)
        await refused("invite_expired", manager.accept_invite(late, 2, "Bob"))
        assert len((await manager.get(other.id)).seats) == 1
        await refused("not_in_lobby", manager.start(lobby.id, 1))
        assert {s.id for s in await manager.sessions_of_user(1)} == {lobby.id, other.id}
        assert [s.id for s in await manager.sessions_of_user(2)] == [lobby.id]
    finally:
        await manager.close()


async def test_a_used_invite_on_a_full_table_stays_unused(manager: SessionManager) -> None:
    lobby = await manager.create(1, "private", 1, "Ann", "eleven")
    code = await manager.create_invite(lobby.id, 1)
    await manager.add_computer(lobby.id, 1, "easy")
    await refused("table_full", manager.accept_invite(code, 2, "Bob"))
    await manager.leave(lobby.id, 1)
    await refused("not_in_lobby", manager.accept_invite(code, 2, "Bob"))


# ------------------------------------------------------------------ lookups and the rest


async def test_end_chat_and_active_sessions(manager: SessionManager) -> None:
    playing = await duel(manager, chat_id=-7)
    waiting = await manager.create(-8, "group", 5, "Eve", "eleven")
    assert {s.id for s in await manager.active_sessions()} == {playing.id, waiting.id}
    ended = await manager.end_chat(-7)
    assert [s.status for s in ended] == ["cancelled"]
    assert [s.id for s in await manager.active_sessions()] == [waiting.id]
    assert await manager.end_chat(-7) == []


async def test_message_references_and_the_versions_they_show(manager: SessionManager) -> None:
    messages = Messages(manager.store)
    session = await manager.create(-1, "group", 1, "Ann", "eleven")
    await messages.posted(session.id, TABLE, -1, 10, session.version)
    await messages.posted(session.id, "hand:0", 1, 12, session.version)
    await messages.posted(session.id, TABLE, -1, 11, session.version)
    refs = await messages.of(session.id)
    assert [(r.purpose, r.message_id) for r in refs] == [("hand:0", 12), (TABLE, 11)]
    assert [s async for s in manager.behind()] == []
    joined = await manager.join(session.id, 2, "Bob")  # the lobby changes: the table is behind
    assert [s.id async for s, _ in manager.behind()] == [session.id]
    await messages.shown(session.id, TABLE, joined.version)
    assert [s async for s in manager.behind()] == []
    await messages.forget(session.id, "hand:0")
    assert [r.purpose for r in await messages.of(session.id)] == [TABLE]


async def test_languages_and_reachability(manager: SessionManager) -> None:
    prefs = Preferences(manager.store)
    assert await prefs.language("user", 1) is None
    await prefs.set_language("user", 1, "ru")
    await prefs.set_language("chat", -1, "en")
    await prefs.set_language("user", 1, "en")
    assert await prefs.language("user", 1) == "en"
    assert await prefs.language("chat", -1) == "en"
    await refused("bad_option", prefs.set_language("user", 1, "de"))
    await refused("bad_option", prefs.set_language("planet", 1, "ru"))
    assert await prefs.reachable(1)
    await prefs.set_reachable(1, False)
    assert not await Preferences(manager.store).reachable(1)  # stored, not only cached
    assert await prefs.language("user", 1) == "en"
    await prefs.set_reachable(1, True)
    assert await prefs.reachable(1)


async def test_the_cache_is_bounded_and_the_database_is_the_truth(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "lru.sqlite3", cache_size=3)
    try:
        sessions = [await duel(manager, chat_id=-i) for i in range(1, 6)]
        assert manager.cached == 3
        oldest = sessions[0]
        assert await manager.get(oldest.id) == oldest
        moved = await play_one(manager, oldest.id, random.Random(0))
        assert (await manager.get(oldest.id)).version == moved.version
    finally:
        await manager.close()


async def test_a_returned_session_is_a_snapshot(manager: SessionManager) -> None:
    before = await duel(manager)
    assert before.game is not None
    snapshot = before.game.to_dict()
    await play_one(manager, before.id, random.Random(0))
    assert before.game.to_dict() == snapshot


async def test_stored_rows_match_the_session(manager: SessionManager) -> None:
    session = await play_one(manager, (await duel(manager)).id, random.Random(0))
    record = await manager.store.load_session(session.id)
    assert record is not None and record.version == session.version
    assert session.game is not None and record.state == session.game.to_dict()


async def test_two_lobbies_racing_for_one_group_chat(manager: SessionManager) -> None:
    answers = await asyncio.gather(
        manager.create(-9, "group", 1, "Ann", "eleven"),
        manager.create(-9, "group", 2, "Bob", "eleven"),
        return_exceptions=True,
    )
    assert sorted(type(a).__name__ for a in answers) == ["Refusal", "Session"]
    assert [a.code for a in answers if isinstance(a, Refusal)] == ["chat_busy"]
    assert len(await manager.active_sessions()) == 1


async def test_a_press_committed_already_is_refused_as_applied_not_as_stale(
    manager: SessionManager,
) -> None:
    session = await duel(manager)
    seat = session.to_move
    assert seat is not None
    mover, other = session.seats[seat].user_id, session.seats[1 - seat].user_id
    assert mover is not None and other is not None
    action = session.view(seat)["legal"][0]
    moved = (await manager.act(session.id, mover, session.version, action)).session
    # Telegram delivers the same press again (the bot crashed before confirming it)
    await refused("applied", manager.act(session.id, mover, session.version, action))
    # anything else at that old version is stale: another card, another player
    other_action = next((a for a in session.view(seat)["legal"] if a != action), None)
    if other_action is not None:
        await refused("stale", manager.act(session.id, mover, session.version, other_action))
    await refused("stale", manager.act(session.id, other, session.version, action))
    assert await manager.get(session.id) == moved
    log = await manager.replay_log(session.id)
    assert [(m.seat, m.action, m.version) for m in log] == [(seat, action, session.version)]


async def test_the_press_that_ended_the_game_is_applied_not_not_running(
    manager: SessionManager,
) -> None:
    session = await duel(manager)
    while session.status == "running":
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        last = (user, session.version, session.view(seat)["legal"][0])
        session = (await manager.act(session.id, *last)).session
    await refused("applied", manager.act(session.id, *last))


# ------------------------------------------------------------------ one step, one commit


class _CountingStore:
    """Wraps a Store and counts its writing calls (each is one transaction)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.writes: list[str] = []

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name in ("create_session", "save_session", "insert_invite"):

            async def counted(*args: Any, **kwargs: Any) -> Any:
                self.writes.append(name)
                return await found(*args, **kwargs)

            return counted
        return found


async def test_playing_the_computer_fills_and_deals_in_one_commit(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "c.sqlite3")
    try:
        lobby = await manager.create(1, "private", 1, "Ann", "king")
        counting = _CountingStore(manager.store)
        manager.store = counting
        outcome = await manager.play_computer(lobby.id, 1, "easy")
        assert counting.writes == ["save_session"]
        assert outcome.session.status == "running"
        assert len(outcome.session.seats) == REGISTRY["king"].min_players
        assert outcome.session.version == lobby.version + 1
        await refused("not_in_lobby", manager.play_computer(lobby.id, 1, "easy"))
        await refused("bad_level", manager.play_computer(lobby.id, 1, "grandmaster"))
        manager.store = counting._store
    finally:
        await manager.close()


async def test_a_failed_duel_start_leaves_the_lobby_as_it_was(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "f.sqlite3")
    try:
        lobby = await manager.create(1, "private", 1, "Ann", "oh_hell")

        class Crash(Exception):
            pass

        real = manager.store.save_session

        async def crash(*args: Any, **kwargs: Any) -> None:
            raise Crash  # the process dies before the commit

        manager.store.save_session = crash  # type: ignore[method-assign]
        with pytest.raises(Crash):
            await manager.play_computer(lobby.id, 1, "normal")
        manager.store.save_session = real  # type: ignore[method-assign]
        manager._cache.clear()
        stored = await manager.get(lobby.id)
        assert stored.status == "lobby" and len(stored.seats) == 1  # nothing half-made
    finally:
        await manager.close()


async def test_an_accepted_invite_seats_and_deals_in_one_commit(tmp_path: Path) -> None:
    manager = await open_manager(tmp_path / "a.sqlite3")
    try:
        lobby = await manager.create(1, "private", 1, "Ann", "eleven")
        code = await manager.create_invite(lobby.id, 1)
        counting = _CountingStore(manager.store)
        manager.store = counting
        outcome = await manager.accept_invite(code, 2, "Bob")
        assert counting.writes == ["save_session"]
        assert outcome.session.status == "running"
        manager.store = counting._store
        invite = await manager.store.load_invite(code)
        assert invite is not None and invite.used_by == 2
    finally:
        await manager.close()


async def test_the_tally_ranks_fewer_points_first_where_the_lowest_total_wins(
    manager: SessionManager,
) -> None:
    # pairs of new players: each match gives one more player one win and one none, so
    # players with as many wins are bound to meet in the tally
    for pair in range(6):
        first, second = 10 + 2 * pair, 11 + 2 * pair
        session = await manager.create(-7, "group", first, f"user{first}", "mau_mau")
        await manager.join(session.id, second, f"user{second}")
        await manager.set_option(session.id, first, "limit", 10)
        await manager.start(session.id, first)
        await play_out(manager, session.id, pair)
        rows = await manager.chat_tally(-7, "mau_mau")
        assert [(r.wins, r.points) for r in rows] == sorted(
            [(r.wins, r.points) for r in rows], key=lambda row: (-row[0], row[1])
        )
        losers = {r.points for r in rows if r.wins == 0}
        if len(losers) > 1:  # two with no win and different totals: fewer points first
            return
    raise AssertionError("every player without a win had the same total")
