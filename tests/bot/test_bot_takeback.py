"""↩️ Take back through the bot: against the computer only, in both languages."""

from __future__ import annotations

from sessions import OVERALL
from sessions.ratings import rebuild
from tests.support.fake_telegram import FakeUser, StoredMessage
from tests.support.harness import Harness
from tests.support.tables import labels, mover, moves, open_table, play_out, pop_up


async def duel_against_easy(harness: Harness, user: FakeUser) -> tuple[StoredMessage, int]:
    """A private Eleven duel of ``user`` against the easy computer, dealt: (its message,
    the session id)."""
    fake = harness.fake
    await harness.command(user, fake.private(user).id, "/new eleven")
    lobby = fake.last_message(user.id)
    assert lobby is not None
    sid = int(session_of(lobby))
    await harness.press(user, lobby, f"vs:{sid}")
    await harness.press(user, lobby, f"comp:{sid}:easy")
    await harness.settle()
    return lobby, sid


async def test_taking_back_a_move_against_the_computer(harness: Harness) -> None:
    fake = harness.fake
    for lang, name, label in (("en", "Vera", "↩️ Take back"), ("ru", "Вера", "↩️ Вернуть ход")):
        user = fake.user(name, lang)
        lobby, sid = await duel_against_easy(harness, user)
        before = moves(lobby)  # her turn (the computer has led, if it was its lead)
        table_before = lobby.text
        assert before
        await harness.press(user, lobby, before[0])
        await harness.settle()
        assert label in labels(lobby)
        await harness.press(user, lobby, label)
        await harness.settle()
        after = moves(lobby)
        # the same cards to play as before her move (a new version in the buttons)
        assert [d.split(":", 2)[2] for d in after] == [d.split(":", 2)[2] for d in before]
        assert lobby.text == table_before
        log = await harness.kol.manager.replay_log(sid)
        assert log[-1].action.startswith("takeback:")


def session_of(lobby: StoredMessage) -> str:
    """The session id named by the lobby's buttons."""
    for button in lobby.buttons():
        data = button.get("callback_data") or ""
        if data.startswith("vs:"):
            return data.split(":")[1]
    raise AssertionError("no duel lobby")


async def test_no_take_back_at_a_table_of_two_people(harness: Harness) -> None:
    table = await open_table(harness)
    first, _, _ = await mover(harness, table)
    hand = harness.fake.last_message(first.id, containing="🃏")
    assert hand is not None and "↩️ Take back" not in labels(hand)
    text = await pop_up(harness, first, harness.fake.private(first), hand.message_id,
                        f"undo:{table.session_id}")
    assert text == "Take-backs are only for games against the computer."


async def test_a_duel_with_a_take_back_is_not_rated(harness: Harness) -> None:
    fake = harness.fake
    for lang, name, note in (
        ("en", "Vera", "so this match is not rated"),
        ("ru", "Вера", "не идёт в рейтинг"),
    ):
        user = fake.user(name, lang)
        lobby, sid = await duel_against_easy(harness, user)
        await harness.press(user, lobby, moves(lobby)[0])
        await harness.settle()
        await harness.press(user, lobby, f"undo:{sid}")
        await harness.settle()
        await play_out(harness, sid, {user.id: user})
        session = await harness.kol.manager.get(sid)
        assert session.status == "finished"
        assert session.ratings == ()
        assert note in lobby.text
        assert await harness.kol.manager.user_ratings(user.id, OVERALL) == []
    assert await harness.kol.manager.leaderboard(OVERALL) == []
    assert await harness.kol.manager.store.rerate(rebuild) == 0  # a re-rating leaves it unrated too
