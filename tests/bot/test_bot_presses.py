"""A press Telegram delivers again (the bot crashed before confirming it, or a webhook
answer timed out) changes nothing a second time; a new press of the same button does."""

from __future__ import annotations

from tests.support.fake_telegram import FakeTelegram, FakeUser, StoredMessage
from tests.support.harness import Harness
from tests.support.tables import labels, moves, play_out


def answers_of(fake: FakeTelegram, query: str) -> list[str | None]:
    """The pop-up texts the bot answered the callback query ``query`` with."""
    return [
        call.params.get("text")
        for call in fake.calls_of("answerCallbackQuery")
        if str(call.params["callback_query_id"]) == query
    ]


async def press_twice(harness: Harness, user: FakeUser, message: StoredMessage, data: str) -> str:
    """Press ``data`` on ``message`` and, once it is handled, deliver the same callback
    query again, as Telegram does; the query id."""
    fake = harness.fake
    query = fake.push_callback(user, fake.chats[message.chat_id], message.message_id, data)
    await fake.answer(query)
    await harness.settle()
    fake.push_again(query)
    await harness.settle()
    assert len(answers_of(fake, query)) == 2  # the repeat was handled
    return query


async def duel_lobby(harness: Harness, name: str, game: str) -> tuple[FakeUser, StoredMessage]:
    """A private lobby of ``game`` opened by a new user, with the level menu shown."""
    fake = harness.fake
    user = fake.user(name)
    await harness.command(user, fake.private(user).id, f"/new {game}")
    lobby = fake.last_message(user.id)
    assert lobby is not None
    await harness.press(user, lobby, "vs:1")
    return user, lobby


async def test_a_computer_added_by_a_press_delivered_twice_sits_once(harness: Harness) -> None:
    fake = harness.fake
    ann = fake.user("Ann")
    _, lobby = await harness.open_lobby("king", (ann,), "Twice")
    await harness.press(ann, lobby, "comps:1")
    query = await press_twice(harness, ann, lobby, "comp:1:easy")
    session = await harness.kol.manager.get(1)
    assert [p.level for p in session.seats] == [None, "easy"]
    assert lobby.text.count("Computer") == 1
    assert answers_of(fake, query) == [None, None]  # done, no pop-up either time
    # a new press of the same button adds another one
    await harness.press(ann, lobby, "comps:1")
    await harness.press(ann, lobby, "comp:1:easy")
    assert [p.level for p in (await harness.kol.manager.get(1)).seats] == [None, "easy", "easy"]


async def test_a_take_back_delivered_twice_undoes_one_move(harness: Harness) -> None:
    vera, lobby = await duel_lobby(harness, "Vera", "eleven")
    await harness.press(vera, lobby, "comp:1:easy")
    first = moves(lobby)  # her turn (the computer has led, if it was its lead)
    await harness.press(vera, lobby, first[0])
    second = moves(lobby)
    session = await harness.kol.manager.get(1)
    deal = session.game.deal_no if session.game is not None else None
    await harness.press(vera, lobby, second[0])
    session = await harness.kol.manager.get(1)
    assert session.game is not None and session.game.deal_no == deal  # the same deal
    assert "↩️ Take back" in labels(lobby)
    await press_twice(harness, vera, lobby, "undo:1")
    log = await harness.kol.manager.replay_log(1)
    assert len([m for m in log if m.action.startswith("takeback:")]) == 1
    cards = [data.split(":", 2)[2] for data in moves(lobby)]
    assert cards == [data.split(":", 2)[2] for data in second]  # back before her second move
    # a new press takes back the move before
    await harness.press(vera, lobby, "undo:1")
    assert [data.split(":", 2)[2] for data in moves(lobby)] == [
        data.split(":", 2)[2] for data in first
    ]


async def test_play_again_delivered_twice_starts_one_match(harness: Harness) -> None:
    vera, lobby = await duel_lobby(harness, "Vera", "fifteen")
    await harness.press(vera, lobby, "comp:1:easy")
    await play_out(harness, 1, {vera.id: vera})
    assert "game over" in lobby.text
    await press_twice(harness, vera, lobby, "again:1")
    running = await harness.kol.manager.sessions_of_user(vera.id)
    assert [s.status for s in running] == ["running"]


async def test_play_again_delivered_again_while_it_is_handled_starts_one_match(
    harness: Harness,
) -> None:
    """A webhook answer that timed out: the repeat comes while the first is running."""
    fake = harness.fake
    vera, lobby = await duel_lobby(harness, "Vera", "fifteen")
    await harness.press(vera, lobby, "comp:1:easy")
    await play_out(harness, 1, {vera.id: vera})
    query = fake.push_callback(vera, fake.private(vera), lobby.message_id, "again:1")
    fake.push_again(query)  # in the same batch: both handled at once
    await harness.settle()
    assert len(answers_of(fake, query)) == 2
    running = await harness.kol.manager.sessions_of_user(vera.id)
    assert [s.status for s in running] == ["running"]
