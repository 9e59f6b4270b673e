"""The ``Store`` protocol's contract, run against SQLite and PostgreSQL alike.

Every test takes ``store`` (an opened, empty store of one backend) and checks
what ``storage/protocol.py`` promises; both backends must give the same answers.
PostgreSQL runs on the test server of tests/support/pg_server.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from storage import (
    Beat,
    ChatBusy,
    InviteRecord,
    InviteUse,
    InviteUsed,
    MessageRef,
    MoveRecord,
    PressRepeated,
    ResultRecord,
    SeatRecord,
    StaleVersion,
    Store,
    TallyRow,
    open_store,
)
from tests.support.store_records import ANN, BOB, CHAT, CY, DI, ED, T0, created, lobby


async def snapshot(store: Store, session_id: int) -> tuple[Any, ...]:
    """Everything the store tells about one session (to check that nothing changed)."""
    return (
        await store.load_session(session_id),
        await store.moves_of(session_id),
        await store.messages_of(session_id),
        await store.chat_tally(CHAT),
        await store.user_stats(ANN),
        await store.open_session_ids(),
        await store.ended_session_ids(0),
    )


# ---------------------------------------------------------------- create and load


async def test_every_field_round_trips(store: Store) -> None:
    state = {
        "format": 2,
        "hands": [["QS", "7H"], [], ["TH"]],
        "trick": {"lead": 1, "cards": [None, "KC", {"seat": 2}]},
        "scores": {3: 11, "x": [1.5, -2.25, 0.0]},
        "flags": [True, False, None],
        "text": "Ёлка «quotes» \"and\" \\ slash",
    }
    record = lobby(
        status="running",
        seats=[
            SeatRecord(ANN, "Ann", None, timeouts=2),
            SeatRecord(None, "Robot", "strong"),
            SeatRecord(ED, "Ed ✨", None),
        ],
        options={"target": 11, "nested": {"a": [1, 2]}},
        timer=60,
        seed=2**63 - 1,
        version=7,
        moves=4,
        state=state,
        deadline=T0 + 60.25,
        result={"scores": [3, 1.5, 0], "winners": [0]},
        due=T0 + 30.5,
        last_deal={"deal_no": 2, "scores": [1, 0, 2]},
        updated=T0 + 12.75,
    )
    session_id = await store.create_session(record)
    loaded = await store.load_session(session_id)
    # JSON object keys are strings: a number key comes back as its text, on both backends
    expected_state = {**state, "scores": {"3": 11, "x": [1.5, -2.25, 0.0]}}
    assert loaded == replace(record, id=session_id, state=expected_state)
    assert isinstance(loaded.deadline, float) and isinstance(loaded.version, int)
    assert await store.session_version(session_id) == 7


async def test_updated_defaults_to_created_and_nones_stay_none(store: Store) -> None:
    loaded = await created(store, lobby(chat_id=None, kind="private"))
    assert loaded.updated == T0
    assert (loaded.state, loaded.result, loaded.last_deal, loaded.due, loaded.deadline) == (
        None, None, None, None, None
    )
    assert loaded.chat_id is None


async def test_ids_are_new_and_record_id_is_ignored(store: Store) -> None:
    first = await store.create_session(lobby(id=999))
    second = await store.create_session(lobby(chat_id=-2, id=first))
    assert first != second and first != 999
    assert await store.load_session(999 if first != 999 else second + 1) is None
    assert await store.load_session(second + 1000) is None
    assert await store.session_version(second + 1000) is None


async def test_a_second_open_group_session_in_a_chat_is_busy(store: Store) -> None:
    first = await created(store)
    before = await snapshot(store, first.id)
    busy = lobby(seats=[SeatRecord(BOB, "Bob", None)])
    with pytest.raises(ChatBusy):
        await store.create_session(busy, invite=InviteRecord("busy", 0, BOB, T0, None))
    assert await snapshot(store, first.id) == before
    assert await store.load_invite("busy") is None
    # nothing of the refused session was kept: Bob's name is not remembered
    await store.save_session(
        replace(first, version=2, status="finished"), 1,
        results=[ResultRecord(BOB, 0, True, 1)],
    )
    assert [row.name for row in await store.chat_tally(CHAT)] == [""]
    # the chat is free again once its session ended, and other chats never were busy
    await store.create_session(busy)
    await store.create_session(lobby(chat_id=-77))
    with pytest.raises(ChatBusy):
        await store.create_session(lobby(status="running"))


async def test_private_sessions_are_never_busy(store: Store) -> None:
    await store.create_session(lobby())
    ids = [await store.create_session(lobby(kind="private", status=s)) for s in ("lobby",
                                                                                "running")]
    ids.append(await store.create_session(lobby(chat_id=None, kind="private")))
    assert len(set(ids)) == 3


async def test_create_stores_the_invite_for_the_new_id(store: Store) -> None:
    session_id = await store.create_session(
        lobby(kind="private"), invite=InviteRecord("c0de", 12345, ANN, T0 + 600, None)
    )
    assert await store.load_invite("c0de") == InviteRecord("c0de", session_id, ANN, T0 + 600, None)


async def test_seated_humans_names_are_remembered(store: Store) -> None:
    seats = [SeatRecord(ANN, "Ann", None), SeatRecord(None, "Robot", "easy"),
             SeatRecord(BOB, "Bob", None)]
    record = await created(store, lobby(seats=seats))
    await store.save_session(
        replace(record, version=2, status="finished"), 1,
        results=[ResultRecord(ANN, 0, True, 3), ResultRecord(BOB, 2, False, 1)],
    )
    assert {(row.user_id, row.name) for row in await store.chat_tally(CHAT)} == {
        (ANN, "Ann"), (BOB, "Bob")
    }


# ---------------------------------------------------------------- save


async def test_save_replaces_the_record_and_bumps_nothing_else(store: Store) -> None:
    record = await created(store)
    running = replace(
        record, version=2, status="running", state={"a": 1}, seed=42, due=T0 + 5,
        last_deal={"deal_no": 1, "scores": [0, 1]}, updated=T0 + 1,
    )
    await store.save_session(running, 1)
    assert await store.load_session(record.id) == running
    assert await store.session_version(record.id) == 2
    assert await store.moves_of(record.id) == []
    # a record without `updated` is stored as of its creation
    await store.save_session(replace(running, version=3, updated=None), 2)
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.updated == T0


async def test_stale_version_changes_nothing(store: Store) -> None:
    record = await created(store)
    await store.insert_invite(InviteRecord("inv", record.id, ANN, T0 + 60, None))
    await store.set_message(record.id, MessageRef("table", CHAT, 5, shown=1, wanted=1))
    before = await snapshot(store, record.id)
    changed = replace(
        record, version=9, status="finished", state={"x": 1},
        seats=[SeatRecord(BOB, "Bob", None)],
    )
    for based_on in (0, 2, 9):
        with pytest.raises(StaleVersion):
            await store.save_session(
                changed, based_on, seats=True, move=MoveRecord(1, 0, "QS", False, T0, 1),
                results=[ResultRecord(BOB, 0, True, 5)], invite=InviteUse("inv", BOB),
                wanted=["table"],
            )
    assert await snapshot(store, record.id) == before
    assert await store.load_invite("inv") == InviteRecord("inv", record.id, ANN, T0 + 60, None)
    assert await store.user_stats(BOB) == []


async def test_stale_version_wins_over_a_used_invite(store: Store) -> None:
    record = await created(store)
    await store.insert_invite(InviteRecord("inv", record.id, ANN, T0, BOB))
    with pytest.raises(StaleVersion):
        await store.save_session(replace(record, version=3), 2, invite=InviteUse("inv", CY))


async def test_seats_are_rewritten_only_when_asked(store: Store) -> None:
    record = await created(store)
    three = [SeatRecord(ANN, "Ann", None), SeatRecord(BOB, "Bobby", None),
             SeatRecord(None, "Robot", "normal", timeouts=1)]
    await store.save_session(replace(record, version=2, seats=three), 1)
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.seats == record.seats  # seats=False: kept
    await store.save_session(replace(record, version=3, seats=three), 2, seats=True)
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.seats == three
    assert await store.open_session_ids(user_id=BOB) == [record.id]
    one = [SeatRecord(CY, "Cy", None)]
    await store.save_session(replace(record, version=4, seats=one), 3, seats=True)
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.seats == one
    assert await store.open_session_ids(user_id=BOB) == []
    stood_in = [SeatRecord(CY, "Cy", None), SeatRecord(None, "Bobby", "normal", stands_in_for=BOB)]
    await store.save_session(replace(record, version=5, seats=stood_in), 4, seats=True)
    assert await store.open_session_ids(user_id=BOB) == [record.id]  # a computer plays for him
    await store.save_session(replace(record, version=6, seats=one), 5, seats=True)
    await store.save_session(
        replace(record, version=7, seats=one, status="finished"), 6,
        results=[ResultRecord(BOB, 0, False, 0), ResultRecord(CY, 1, True, 1)],
    )
    names = {row.user_id: row.name for row in await store.chat_tally(CHAT)}
    assert names == {BOB: "Bobby", CY: "Cy"}


async def test_moves_are_appended_and_found_by_version(store: Store) -> None:
    record = await created(store, lobby(status="running"))
    moves = [
        MoveRecord(1, 0, "QS", False, T0 + 1, 1),
        MoveRecord(2, 1, "bid:3", True, T0 + 2.5, 2),
        MoveRecord(3, 0, "meld:7H8H9H", False, T0 + 3, None),
    ]
    for number, move in enumerate(moves, start=1):
        await store.save_session(replace(record, version=number + 1, moves=number),
                                 number, move=move)
    assert await store.moves_of(record.id) == moves
    assert await store.move_at_version(record.id, 2) == moves[1]
    assert await store.move_at_version(record.id, 3) is None
    assert await store.move_at_version(record.id + 1, 1) is None
    assert await store.moves_of(record.id + 1) == []
    assert isinstance((await store.moves_of(record.id))[1].by_computer, bool)


async def test_results_make_the_tally_in_its_order(store: Store) -> None:
    # (user, won, points) per match, every match one session in CHAT
    matches: list[list[tuple[int, bool, float]]] = [
        [(ANN, True, 5), (BOB, False, 10)],
        [(ANN, True, 1), (CY, False, 2.5)],
        [(BOB, True, 0), (DI, False, 3)],
        [(CY, True, 2), (DI, True, 2)],
        [(ED, True, 5), (DI, False, 0)],
        [(ED, False, 0)],
    ]
    for number, shares in enumerate(matches):
        seats = [SeatRecord(user, f"u{user}", None) for user, _, _ in shares]
        record = await created(store, lobby(seats=seats, created=T0 + number))
        await store.save_session(
            replace(record, version=2, status="finished"), 1,
            results=[ResultRecord(user, seat, won, points, T0 + number)
                     for seat, (user, won, points) in enumerate(shares)],
        )
    # most wins; then points, more first; then fewer played; then the user id
    assert await store.chat_tally(CHAT) == [
        TallyRow(ANN, f"u{ANN}", "eleven", 2, 2, 6),
        TallyRow(BOB, f"u{BOB}", "eleven", 2, 1, 10),
        TallyRow(ED, f"u{ED}", "eleven", 2, 1, 5),
        TallyRow(DI, f"u{DI}", "eleven", 3, 1, 5),
        TallyRow(CY, f"u{CY}", "eleven", 2, 1, 4.5),
    ]
    assert await store.chat_tally(CHAT, "eleven") == await store.chat_tally(CHAT)
    assert await store.chat_tally(CHAT, "king") == []
    assert await store.chat_tally(CHAT + 1) == []
    assert await store.user_stats(CY) == [TallyRow(CY, f"u{CY}", "eleven", 2, 1, 4.5)]


async def test_played_breaks_a_tie_in_wins_and_points(store: Store) -> None:
    matches = [[(ANN, True, 3)], [(ANN, False, 0)], [(CY, True, 3)], [(BOB, True, 3)]]
    for number, shares in enumerate(matches):
        record = await created(store, lobby(seats=[SeatRecord(u, "n", None) for u, _, _ in shares],
                                            created=T0 + number))
        await store.save_session(
            replace(record, version=2, status="finished"), 1,
            results=[ResultRecord(u, 0, w, p) for u, w, p in shares],
        )
    # and a full tie goes by the user id
    assert [(r.user_id, r.played) for r in await store.chat_tally(CHAT)] == [
        (BOB, 1), (CY, 1), (ANN, 2)
    ]


async def test_user_stats_per_game_across_chats(store: Store) -> None:
    for number, (chat, game, won) in enumerate(
        [(CHAT, "king", True), (-5, "king", False), (-6, "eleven", True), (-7, "rummy", True)]
    ):
        record = await created(store, lobby(chat_id=chat, game=game, created=T0 + number))
        await store.save_session(
            replace(record, version=2, status="finished"), 1,
            results=[ResultRecord(ANN, 0, won, 2)],
        )
    assert await store.user_stats(ANN) == [
        TallyRow(ANN, "Ann", "king", 2, 1, 4),
        TallyRow(ANN, "Ann", "eleven", 1, 1, 2),  # a tie with rummy: by game id
        TallyRow(ANN, "Ann", "rummy", 1, 1, 2),
    ]
    assert await store.chat_tally(-5) == [TallyRow(ANN, "Ann", "king", 1, 0, 2)]
    assert await store.user_stats(BOB) == []


async def test_an_invite_is_used_once(store: Store) -> None:
    record = await created(store, lobby(kind="private"))
    await store.insert_invite(InviteRecord("once", record.id, ANN, T0 + 60, None))
    two = [SeatRecord(ANN, "Ann", None), SeatRecord(BOB, "Bob", None)]
    joined = replace(record, version=2, status="running", seats=two)
    await store.save_session(joined, 1, seats=True, invite=InviteUse("once", BOB))
    assert await store.load_invite("once") == InviteRecord("once", record.id, ANN, T0 + 60, BOB)
    assert await store.load_session(record.id) == joined
    before = await snapshot(store, record.id)
    for code in ("once", "unknown"):
        with pytest.raises(InviteUsed):
            await store.save_session(
                replace(joined, version=3, status="finished", seats=[SeatRecord(CY, "Cy", None)]),
                2, seats=True, move=MoveRecord(1, 0, "QS", False, T0, 2),
                results=[ResultRecord(CY, 0, True, 1)], invite=InviteUse(code, CY),
                wanted=["hand"],
            )
        assert await snapshot(store, record.id) == before
    assert await store.load_invite("once") == InviteRecord("once", record.id, ANN, T0 + 60, BOB)
    assert await store.user_stats(CY) == []


async def test_wanted_is_raised_never_lowered(store: Store) -> None:
    record = await created(store)
    await store.set_message(record.id, MessageRef("table", CHAT, 10, shown=1, wanted=5))
    await store.set_message(record.id, MessageRef("hand:1001", ANN, 11, shown=1, wanted=1))
    await store.set_message(record.id, MessageRef("lobby", CHAT, 12, shown=1, wanted=1))
    await store.save_session(replace(record, version=3), 1, wanted=["table", "hand:1001", "none"])
    assert {m.purpose: m.wanted for m in await store.messages_of(record.id)} == {
        "hand:1001": 3, "lobby": 1, "table": 5,
    }
    await store.save_session(replace(record, version=8), 3, wanted=["table"])
    assert {m.purpose: m.wanted for m in await store.messages_of(record.id)} == {
        "hand:1001": 3, "lobby": 1, "table": 8,
    }
    assert await store.behind_session_ids() == [record.id]


# ---------------------------------------------------------------- queries


async def test_open_ended_chat_and_finished_ids(store: Store) -> None:
    group = await store.create_session(lobby())
    private_here = await store.create_session(lobby(kind="private", status="running",
                                                    seats=[SeatRecord(BOB, "Bob", None)]))
    private_dm = await store.create_session(lobby(chat_id=ANN, kind="private"))
    other = await store.create_session(lobby(chat_id=-9, status="running",
                                             seats=[SeatRecord(BOB, "Bob", None)]))
    ended = []
    for number, status in enumerate(["finished", "cancelled", "finished", "finished"]):
        record = await created(store, lobby(chat_id=-3))
        await store.save_session(replace(record, version=2, status=status,
                                         updated=T0 + 100 + number), 1)
        ended.append(record.id)
    assert await store.open_session_ids() == [group, private_here, private_dm, other]
    assert await store.open_session_ids(chat_id=CHAT) == [group]
    assert await store.open_session_ids(user_id=BOB) == [private_here, other]
    assert await store.open_session_ids(user_id=ANN) == [group, private_dm]
    assert await store.open_session_ids(chat_id=-9, user_id=BOB) == [other]
    assert await store.open_session_ids(chat_id=CHAT, user_id=BOB) == []
    assert await store.chat_session_ids(CHAT) == [group, private_here]
    assert await store.chat_session_ids(-3) == []
    assert await store.ended_session_ids(T0 + 101) == ended[1:]
    assert await store.ended_session_ids(T0 + 104) == []
    assert await store.finished_session_ids(-3, 2) == [ended[3], ended[2]]
    assert await store.finished_session_ids(-3, 10) == [ended[3], ended[2], ended[0]]
    assert await store.finished_session_ids(CHAT, 10) == []


async def test_due_sessions_are_running_ones_due_by_now(store: Store) -> None:
    due = {}
    for name, status, when in [("late", "running", T0 + 5), ("early", "running", T0 + 1),
                               ("later", "running", T0 + 50), ("none", "running", None),
                               ("lobby", "lobby", T0), ("over", "finished", T0)]:
        due[name] = await store.create_session(
            lobby(chat_id=None, kind="private", status=status, due=when)
        )
    assert await store.due_session_ids(T0) == []
    assert await store.due_session_ids(T0 + 5) == [due["early"], due["late"]]
    assert await store.due_session_ids(T0 + 1000) == [due["early"], due["late"], due["later"]]


async def test_claim_is_a_lease(store: Store) -> None:
    session_id = await store.create_session(lobby(status="running"))
    assert await store.claim(session_id, 4, "w1", T0, T0 + 10)
    assert not await store.claim(session_id, 4, "w2", T0 + 5, T0 + 15)  # w1's is still valid
    assert not await store.claim(session_id, 4, "w2", T0 + 9.99, T0 + 15)
    assert await store.claim(session_id, 4, "w1", T0 + 6, T0 + 20)  # the owner renews it
    assert not await store.claim(session_id, 4, "w2", T0 + 15, T0 + 25)
    assert await store.claim(session_id, 4, "w2", T0 + 20, T0 + 30)  # expired: taken over
    assert not await store.claim(session_id, 4, "w1", T0 + 21, T0 + 31)
    assert await store.claim(session_id, 5, "w1", T0 + 22, T0 + 32)  # a newer version
    assert not await store.claim(session_id, 5, "w2", T0 + 23, T0 + 33)
    assert await store.claim(session_id, 5, "w1", T0 + 23, T0 + 33)
    other = await store.create_session(lobby(chat_id=-2, status="running"))
    assert await store.claim(other, 5, "w2", T0 + 23, T0 + 33)  # leases are per session


async def test_racing_claims_give_the_lease_once(store: Store) -> None:
    session_id = await store.create_session(lobby(status="running"))
    taken = await asyncio.gather(
        *(store.claim(session_id, 1, f"w{n}", T0, T0 + 10) for n in range(8))
    )
    assert sorted(taken) == [False] * 7 + [True]


# ---------------------------------------------------------------- messages


async def test_messages_set_replace_drop(store: Store) -> None:
    record = await created(store)
    assert await store.messages_of(record.id) == []
    table = MessageRef("table", CHAT, 10)
    inline = MessageRef("inline", None, None, "AgAAAB", shown=2, wanted=3)
    await store.set_message(record.id, table)
    await store.set_message(record.id, inline)
    assert await store.messages_of(record.id) == [inline, table]
    moved = MessageRef("table", CHAT, 99, shown=4, wanted=4)
    await store.set_message(record.id, moved)
    assert await store.messages_of(record.id) == [inline, moved]
    await store.drop_message(record.id, "inline")
    await store.drop_message(record.id, "never there")
    assert await store.messages_of(record.id) == [moved]
    # posted again showing version 3 while version 4 is wanted: it is still behind
    await store.set_message(record.id, MessageRef("table", CHAT, 100, shown=3, wanted=3))
    assert await store.messages_of(record.id) == [MessageRef("table", CHAT, 100, shown=3, wanted=4)]
    assert await store.behind_session_ids() == [record.id]


async def test_an_ephemeral_message_keeps_its_receiver(store: Store) -> None:
    record = await created(store)
    hand = MessageRef("eph:0", CHAT, 7, shown=2, wanted=2, receiver=ANN)
    await store.set_message(record.id, hand)
    assert await store.messages_of(record.id) == [hand]
    leased = await store.lease_message(record.id, "eph:0", CHAT, "w1", 10.0, 20.0)
    assert leased == hand
    await store.release_message(record.id, "eph:0", "w1", shown=3)
    assert await store.messages_of(record.id) == [replace(hand, shown=3, wanted=3)]
    # the purpose's message posted as an ordinary one: no receiver any more
    await store.lease_message(record.id, "eph:0", ANN, "w1", 10.0, 20.0)
    await store.release_message(record.id, "eph:0", "w1", shown=4, posted=(ANN, 50))
    assert await store.messages_of(record.id) == [MessageRef("eph:0", ANN, 50, None, 4, 4)]


async def test_shown_never_goes_back_and_behind_sessions(store: Store) -> None:
    first = await created(store)
    second = await created(store, lobby(chat_id=-2))
    await store.set_message(first.id, MessageRef("table", CHAT, 1, shown=2, wanted=5))
    await store.set_message(first.id, MessageRef("hand", ANN, 2, shown=5, wanted=5))
    await store.set_message(second.id, MessageRef("table", -2, 3, shown=1, wanted=2))
    assert await store.behind_session_ids() == [first.id, second.id]
    await store.mark_shown(first.id, "table", 4)
    await store.mark_shown(first.id, "table", 3)
    assert {m.purpose: m.shown for m in await store.messages_of(first.id)} == {
        "hand": 5, "table": 4,
    }
    await store.mark_shown(first.id, "table", 5)
    await store.mark_shown(first.id, "missing", 9)
    assert await store.behind_session_ids() == [second.id]
    await store.mark_shown(second.id, "table", 7)
    assert await store.behind_session_ids() == []
    assert [m.shown for m in await store.messages_of(second.id)] == [7]


async def test_one_owner_at_a_time_delivers_a_message(store: Store) -> None:
    record = await created(store)
    await store.set_message(record.id, MessageRef("table", CHAT, 10, shown=2, wanted=3))
    leased = await store.lease_message(record.id, "table", CHAT, "a", 100.0, 130.0)
    assert leased == MessageRef("table", CHAT, 10, shown=2, wanted=3)
    assert await store.lease_message(record.id, "table", CHAT, "b", 101.0, 131.0) is None
    # the holder may take it again (to renew it); another owner once it has run out
    assert await store.lease_message(record.id, "table", CHAT, "a", 102.0, 140.0) is not None
    assert await store.lease_message(record.id, "table", CHAT, "b", 139.0, 169.0) is None
    assert await store.lease_message(record.id, "table", CHAT, "b", 140.0, 170.0) is not None
    # a release by an owner whose lease ran out records what it showed, frees nothing
    await store.release_message(record.id, "table", "a", shown=3)
    assert await store.lease_message(record.id, "table", CHAT, "c", 141.0, 171.0) is None
    await store.release_message(record.id, "table", "b", shown=2)
    assert await store.messages_of(record.id) == [MessageRef("table", CHAT, 10, shown=3, wanted=3)]
    assert await store.lease_message(record.id, "table", CHAT, "c", 142.0, 172.0) is not None


async def test_a_message_about_to_be_posted_is_posted_once(store: Store) -> None:
    record = await created(store)
    placeholder = await store.lease_message(record.id, "hand:1", ANN, "a", 100.0, 130.0)
    assert placeholder == MessageRef("hand:1", ANN, None, shown=-1, wanted=-1)
    assert await store.lease_message(record.id, "hand:1", ANN, "b", 100.5, 130.5) is None
    await store.release_message(record.id, "hand:1", "a", shown=4, posted=(ANN, 77))
    assert await store.lease_message(record.id, "hand:1", ANN, "b", 101.0, 131.0) == MessageRef(
        "hand:1", ANN, 77, shown=4, wanted=4
    )
    await store.release_message(record.id, "hand:1", "b")
    assert await store.messages_of(record.id) == [MessageRef("hand:1", ANN, 77, shown=4, wanted=4)]


async def test_a_placeholder_that_got_no_message_is_forgotten(store: Store) -> None:
    record = await created(store)
    assert await store.lease_message(record.id, "hand:1", ANN, "a", 100.0, 130.0) is not None
    await store.release_message(record.id, "hand:1", "a")  # the post failed (403)
    assert await store.messages_of(record.id) == []
    assert await store.behind_session_ids() == []


# ---------------------------------------------------------------- users, chats, invites


async def test_users_and_languages(store: Store) -> None:
    assert await store.language("user", ANN) is None
    await store.remember_user(ANN, "Ann")
    assert await store.language("user", ANN) is None
    await store.set_language("user", ANN, "ru")
    await store.remember_user(ANN, "Anna")  # a new name keeps the language
    await store.set_language("chat", CHAT, "en")
    await store.set_language("chat", CHAT, "ru")
    await store.set_language("user", BOB, "en")  # a user not seen before
    assert await store.language("user", ANN) == "ru"
    assert await store.language("chat", CHAT) == "ru"
    assert await store.language("user", BOB) == "en"
    assert await store.language("chat", ANN) is None  # users and chats are apart
    assert await store.language("user", CHAT) is None
    for scope in ("users", "group", ""):
        with pytest.raises(ValueError, match="scope"):
            await store.set_language(scope, ANN, "en")
        with pytest.raises(ValueError, match="scope"):
            await store.language(scope, ANN)
    # the latest name is the one the tally shows
    record = await created(store, lobby(seats=[SeatRecord(ANN, "Ann", None)]))
    await store.remember_user(ANN, "Queen Ann")
    await store.save_session(replace(record, version=2, status="finished"), 1,
                             results=[ResultRecord(ANN, 0, True, 1)])
    assert [row.name for row in await store.user_stats(ANN)] == ["Queen Ann"]


async def test_reachable_unless_marked(store: Store) -> None:
    assert await store.reachable(ANN)
    await store.remember_user(ANN, "Ann")
    assert await store.reachable(ANN)
    await store.set_reachable(ANN, False)
    await store.set_reachable(BOB, False)  # not seen before
    await store.remember_user(BOB, "Bob")  # remembering a name keeps the mark
    assert not await store.reachable(ANN) and not await store.reachable(BOB)
    await store.set_reachable(ANN, True)
    assert await store.reachable(ANN) and not await store.reachable(BOB)


async def test_invites(store: Store) -> None:
    record = await created(store, lobby(kind="private"))
    invite = InviteRecord("AbC-_9", record.id, ANN, T0 + 0.5, None)
    await store.insert_invite(invite)
    await store.insert_invite(InviteRecord("used", record.id, ANN, T0, ED))
    assert await store.load_invite("AbC-_9") == invite
    assert await store.load_invite("abc-_9") is None  # codes are case-sensitive
    assert await store.load_invite("used") == InviteRecord("used", record.id, ANN, T0, ED)
    assert await store.load_invite("nothing") is None


async def test_used_and_expired_invites_are_purged(store: Store) -> None:
    record = await created(store, lobby(kind="private"))
    fresh = InviteRecord("fresh", record.id, ANN, T0 + 10, None)
    for invite in (fresh, InviteRecord("late", record.id, ANN, T0, None),
                   InviteRecord("used", record.id, ANN, T0 + 10, ED)):
        await store.insert_invite(invite)
    assert await store.purge_invites(T0) == 2
    assert await store.load_invite("fresh") == fresh
    assert await store.load_invite("late") is None and await store.load_invite("used") is None
    assert await store.purge_invites(T0) == 0


async def test_a_session_is_found_by_its_link_token(store: Store) -> None:
    one = await created(store, lobby(link="Tok_en-1"))
    await created(store, lobby(CHAT + 1, link="other"))
    assert one.link == "Tok_en-1"
    assert await store.session_by_link("Tok_en-1") == one.id
    assert await store.session_by_link("tok_en-1") is None  # tokens are case-sensitive
    assert await store.session_by_link(str(one.id)) is None


async def test_quiet_lobbies_are_those_unchanged_since(store: Store) -> None:
    quiet = await created(store, lobby(updated=T0))
    busy = await created(store, lobby(CHAT + 1, updated=T0 + 100))
    await created(store, lobby(CHAT + 2, status="running", updated=T0))
    assert await store.quiet_lobby_ids(T0 + 50) == [quiet.id]
    assert await store.quiet_lobby_ids(T0 + 101) == [quiet.id, busy.id]


# ---------------------------------------------------------------- concurrency


async def test_racing_saves_on_one_version_one_wins(store: Store) -> None:
    record = await created(store, lobby(status="running"))
    attempts = [
        store.save_session(replace(record, version=2, moves=1, state={"by": n}), 1,
                           move=MoveRecord(1, n, f"m{n}", False, T0, 1))
        for n in range(4)
    ]
    outcomes = await asyncio.gather(*attempts, return_exceptions=True)
    assert sum(outcome is None for outcome in outcomes) == 1
    assert all(isinstance(o, StaleVersion) for o in outcomes if o is not None)
    winner = outcomes.index(None)
    loaded = await store.load_session(record.id)
    assert loaded is not None and loaded.state == {"by": winner}
    assert [m.action for m in await store.moves_of(record.id)] == [f"m{winner}"]


async def test_racing_saves_from_two_stores_one_wins(store: Store, store_url: str) -> None:
    """Two workers (two stores: two pools on PostgreSQL, two connections on SQLite)."""
    record = await created(store, lobby(status="running"))
    other = await open_store(store_url)
    try:
        for round_ in range(1, 6):
            current = replace(record, version=round_)
            outcomes = await asyncio.gather(
                store.save_session(replace(current, version=round_ + 1, state={"by": "a"}),
                                   round_, move=MoveRecord(round_, 0, "a", False, T0)),
                other.save_session(replace(current, version=round_ + 1, state={"by": "b"}),
                                   round_, move=MoveRecord(round_, 1, "b", False, T0)),
                return_exceptions=True,
            )
            assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StaleVersion"]
            winner = "a" if outcomes[0] is None else "b"
            loaded = await other.load_session(record.id)
            assert loaded is not None and loaded.version == round_ + 1
            assert loaded.state == {"by": winner}
        assert len(await store.moves_of(record.id)) == 5
    finally:
        await other.close()


async def test_racing_creates_in_one_chat_one_wins(store: Store, store_url: str) -> None:
    other = await open_store(store_url)
    try:
        outcomes = await asyncio.gather(
            store.create_session(lobby()), other.create_session(lobby()),
            store.create_session(lobby()), return_exceptions=True,
        )
        assert sum(isinstance(o, int) for o in outcomes) == 1
        assert sum(isinstance(o, ChatBusy) for o in outcomes) == 2
        assert await store.open_session_ids(chat_id=CHAT) == [
            next(o for o in outcomes if isinstance(o, int))
        ]
    finally:
        await other.close()


async def test_racing_claims_from_two_stores_give_the_lease_once(
    store: Store, store_url: str
) -> None:
    session_id = await store.create_session(lobby(status="running"))
    other = await open_store(store_url)
    try:
        for version in range(1, 6):
            taken = await asyncio.gather(
                *(worker.claim(session_id, version, f"{name}{n}", T0, T0 + 10)
                  for n in range(3) for name, worker in (("a", store), ("b", other)))
            )
            assert sorted(taken) == [False] * 5 + [True]
    finally:
        await other.close()


# ---------------------------------------------------------------- the shared flood budget


async def test_send_slots_are_handed_out_one_interval_apart_per_key(store: Store) -> None:
    assert await store.reserve_send(-5, 3.0, 100.0, "a") == 100.0
    assert await store.reserve_send(-5, 3.0, 100.0, "b") == 103.0
    assert await store.reserve_send(-5, 3.0, 101.0, "a") == 106.0
    assert await store.reserve_send(0, 0.5, 101.0, "a") == 101.0  # another key: its own pace
    # a key whose pace has caught up starts again at now
    assert await store.reserve_send(-5, 3.0, 200.0, "b") == 200.0


async def test_send_slots_racing_from_two_stores_never_share_a_slot(store_url: str) -> None:
    first, second = await open_store(store_url), await open_store(store_url)
    try:
        slots = await asyncio.gather(
            *(s.reserve_send(7, 1.0, 50.0, name) for _ in range(10)
              for name, s in (("a", first), ("b", second)))
        )
    finally:
        await first.close()
        await second.close()
    assert sorted(slots) == [50.0 + n for n in range(20)]


async def test_a_dead_workers_unopened_slot_is_given_back_and_an_open_one_is_not(
    store: Store,
) -> None:
    """Worker a beats last at 100 s and books one group's slots at 100 and 103 and
    another group's at 101; b finds it dead at 102.5: the slot at 103 has not opened
    and goes to b's next booking; the one at 101 has (a may have sent in it), so the
    next there stays 3 s after it; b's own slots are b's."""
    assert await store.beat("a", 100.0, 2.5) == Beat(known=False)
    assert await store.beat("b", 100.0, 2.5) == Beat(known=False)
    assert await store.reserve_send(-5, 3.0, 100.0, "a") == 100.0
    assert await store.reserve_send(-5, 3.0, 100.0, "a") == 103.0
    assert await store.reserve_send(-7, 3.0, 101.0, "a") == 101.0
    assert await store.reserve_send(-6, 3.0, 100.0, "b") == 100.0
    assert await store.reserve_send(-6, 3.0, 100.0, "b") == 103.0
    assert await store.beat("b", 102.5, 2.0) == Beat(known=True, dead=("a",))
    assert await store.reserve_send(-5, 3.0, 102.5, "b") == 103.0  # a's, given back
    assert await store.reserve_send(-5, 3.0, 102.5, "b") == 106.0  # the pace goes on
    assert await store.reserve_send(-7, 3.0, 102.5, "b") == 104.0  # not a's opened one
    assert await store.reserve_send(-6, 3.0, 102.5, "b") == 106.0  # b's own stay taken
    # given back once: a second look finds nobody dead and moves nothing
    assert await store.beat("c", 102.6, 2.0) == Beat(known=False)
    assert await store.reserve_send(-5, 3.0, 102.6, "c") == 109.0


async def test_only_a_dead_workers_latest_booking_is_given_back(store: Store) -> None:
    """a booked the slot at 103, b the one after it at 106: moving the key back would
    put b's next one 3 s after b's own, so nothing moves; a's slot stays lost."""
    await store.beat("a", 100.0, 2.5)
    await store.beat("b", 100.0, 2.5)
    for name in ("b", "a", "b"):
        await store.reserve_send(-5, 3.0, 100.0, name)
    assert await store.beat("b", 102.6, 2.5) == Beat(known=True, dead=("a",))
    assert await store.reserve_send(-5, 3.0, 102.6, "b") == 109.0


async def test_a_worker_found_dead_learns_it_at_its_next_beat(store: Store) -> None:
    """A stalled worker found dead beats again: the store tells it that it was
    forgotten (its unopened slots may have gone to another), then knows it again."""
    assert await store.beat("a", 100.0, 2.5) == Beat(known=False)
    assert await store.beat("a", 100.5, 2.5) == Beat(known=True)
    assert await store.beat("b", 104.0, 2.5) == Beat(known=False, dead=("a",))
    assert await store.beat("a", 104.2, 2.5) == Beat(known=False)
    assert await store.beat("a", 104.7, 2.5) == Beat(known=True)


# ---------------------------------------------------------------- the workers' heartbeats


async def test_a_worker_silent_too_long_is_found_dead_once(store: Store) -> None:
    assert await store.beat("a", 100.0, 4.0) == Beat(known=False)
    assert await store.beat("b", 101.0, 4.0) == Beat(known=False)
    assert await store.beat("b", 104.0, 4.0) == Beat(known=True)  # a beat 4 s ago: not yet
    assert await store.beat("b", 104.5, 4.0) == Beat(True, ("a",))  # silent 4.5 s: dead
    assert await store.beat("b", 110.0, 4.0) == Beat(known=True)  # forgotten: found once
    assert await store.beat("a", 111.0, 4.0) == Beat(known=False)  # started again: anew
    assert await store.beat("a", 116.0, 4.0) == Beat(True, ("b",))


async def test_a_dead_worker_is_found_by_one_of_two_looking_at_once(store_url: str) -> None:
    first, second = await open_store(store_url), await open_store(store_url)
    try:
        await first.beat("gone", 100.0, 4.0)
        await first.reserve_send(-5, 3.0, 105.0, "gone")
        await first.reserve_send(-5, 3.0, 105.0, "gone")  # 108: given back once, by one
        found = await asyncio.gather(
            *(s.beat(name, 106.0, 4.0) for _ in range(5) for name, s in (("a", first),
                                                                         ("b", second)))
        )
        slots = [await first.reserve_send(-5, 3.0, 106.0, "a") for _ in range(2)]
    finally:
        await first.close()
        await second.close()
    assert sorted(beat.dead for beat in found) == [()] * 9 + [("gone",)]
    assert slots == [108.0, 111.0]


# ---------------------------------------------------------------- the Mini App's open pages


async def test_open_pages_stand_till_their_time_and_close_with_their_worker(
    store: Store,
) -> None:
    await store.keep_pages("a", [(5, ANN), (5, BOB), (6, ANN)], 106.0)
    await store.keep_pages("b", [(5, BOB)], 104.0)
    assert await store.page_users(5, 100.0) == [ANN, BOB]  # Bob's on two workers: once
    assert await store.page_users(6, 100.0) == [ANN]
    assert await store.page_users(7, 100.0) == []
    await store.keep_pages("a", [(5, ANN)], 108.0)  # Bob's and Ann's page of 6 closed on a
    assert await store.page_users(5, 103.0) == [ANN, BOB]  # b still shows Bob's
    assert await store.page_users(6, 103.0) == []
    assert await store.page_users(5, 104.0) == [ANN]  # b did not refresh it: it lapsed
    await store.keep_pages("a", [], 110.0)  # a's last page closed
    assert await store.page_users(5, 103.0) == [BOB]  # b's alone


async def test_a_dead_workers_pages_are_forgotten_by_the_beat_that_finds_it(
    store: Store,
) -> None:
    await store.beat("gone", 100.0, 4.0)
    await store.keep_pages("gone", [(5, ANN)], 1000.0)
    await store.keep_pages("alive", [(5, BOB)], 1000.0)
    assert await store.beat("alive", 105.0, 4.0) == Beat(False, ("gone",))
    assert await store.page_users(5, 105.0) == [BOB]


# ---------------------------------------------------------------- presses


async def test_a_press_changes_a_session_once(store: Store) -> None:
    record = await created(store)
    await store.save_session(replace(record, version=2, updated=T0 + 1), 1, press="cq:7")
    assert await store.pressed("cq:7") and not await store.pressed("cq:8")
    before = await snapshot(store, record.id)
    # delivered again: refused in the transaction, whatever else it carries
    with pytest.raises(PressRepeated):
        await store.save_session(
            replace(record, version=3, status="running", seats=[SeatRecord(BOB, "Bob", None)]),
            2, seats=True, move=MoveRecord(1, 0, "QS", False, T0, 2), press="cq:7",
        )
    with pytest.raises(PressRepeated):
        await store.create_session(lobby(kind="private", chat_id=ANN), press="cq:7")
    assert await snapshot(store, record.id) == before
    assert await store.open_session_ids() == [record.id]
    # a new press applies
    await store.save_session(replace(record, version=3), 2, press="cq:8")
    assert await store.session_version(record.id) == 3


async def test_a_press_creates_a_session_once(store: Store) -> None:
    first = await store.create_session(lobby(kind="private", chat_id=ANN), press="cq:1")
    with pytest.raises(PressRepeated):
        await store.create_session(lobby(kind="private", chat_id=ANN), press="cq:1")
    assert await store.open_session_ids() == [first]
    assert await store.pressed("cq:1")


async def test_a_stale_change_records_no_press(store: Store) -> None:
    record = await created(store)
    with pytest.raises(StaleVersion):
        await store.save_session(replace(record, version=3), 2, press="cq:5")
    assert not await store.pressed("cq:5")
    await store.save_session(replace(record, version=2), 1, press="cq:5")  # made again
    assert await store.pressed("cq:5")


async def test_racing_repeats_of_a_press_from_two_stores_apply_once(
    store: Store, store_url: str
) -> None:
    """The same press handled by two workers at once, on two sessions: one change."""
    one = await created(store, lobby(kind="private", chat_id=ANN))
    two = await created(store, lobby(kind="private", chat_id=BOB))
    other = await open_store(store_url)
    try:
        for round_ in range(1, 6):
            key = f"cq:{round_}"
            outcomes = await asyncio.gather(
                store.save_session(replace(one, version=round_ + 1), round_, press=key),
                other.save_session(replace(two, version=round_ + 1), round_, press=key),
                return_exceptions=True,
            )
            assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "PressRepeated"]
            if outcomes[0] is None:
                await other.save_session(replace(two, version=round_ + 1), round_)
            else:
                await store.save_session(replace(one, version=round_ + 1), round_)
        assert await store.session_version(one.id) == await store.session_version(two.id) == 6
    finally:
        await other.close()


async def test_old_presses_are_forgotten(store: Store) -> None:
    record = await created(store)
    await store.save_session(replace(record, version=2, updated=T0), 1, press="cq:old")
    await store.save_session(replace(record, version=3, updated=T0 + 60), 2, press="cq:new")
    assert await store.forget_presses(T0 + 30) == 1
    assert not await store.pressed("cq:old") and await store.pressed("cq:new")
    assert await store.forget_presses(T0 + 30) == 0
async def _ratings(store: Store, rows: list[tuple[int, str, int, float, float, int]]) -> None:
    """Ratings (scope, game, user, mu, sigma, played) as a copy brings them in."""
    from storage.tables import TABLES, Copyable

    assert isinstance(store, Copyable)
    users, ratings = (next(t for t in TABLES if t.name == name) for name in ("users", "ratings"))

    async def batches() -> AsyncIterator[tuple[Any, list[tuple[Any, ...]]]]:
        yield users, [(user, f"U{user}", None, True) for user in sorted({r[2] for r in rows})]
        yield ratings, [(*row, 0) for row in rows]

    await store.import_tables(batches())


async def test_the_leaderboard_reads_the_best_few_with_their_ranks(store: Store) -> None:
    # ordinals (mu − 3·sigma): 20, 14, 14, 8, 2; Ed has played most of the two tied
    await _ratings(store, [
        (CHAT, "king", ANN, 23.0, 1.0, 5), (CHAT, "king", BOB, 17.0, 1.0, 3),
        (CHAT, "king", ED, 20.0, 2.0, 9), (CHAT, "king", CY, 11.0, 1.0, 1),
        (CHAT, "king", DI, 5.0, 1.0, 1), (CHAT, "eleven", BOB, 30.0, 2.0, 1),
        (0, "king", DI, 40.0, 1.0, 1),
    ])
    top = await store.leaderboard(CHAT, "king", limit=3)
    assert [(r.user_id, r.rank, r.of) for r in top] == [(ANN, 1, 5), (ED, 2, 5), (BOB, 2, 5)]
    every = await store.leaderboard(CHAT, limit=1)
    assert [(r.game_id, r.user_id, r.rank, r.of) for r in every] == [
        ("eleven", BOB, 1, 1), ("king", ANN, 1, 5)
    ]
    mine = await store.user_ratings(CY, CHAT)
    assert [(r.game_id, r.rank, r.of, r.name) for r in mine] == [("king", 4, 5, f"U{CY}")]
    assert [(r.game_id, r.rank) for r in await store.user_ratings(BOB, CHAT)] == [
        ("eleven", 1), ("king", 2)
    ]
