"""Ratings through the bot: the result's rating changes, /top, /stats, restarts."""

from __future__ import annotations

from pathlib import Path

from sessions import OVERALL
from sessions.ratings import ordinal, rebuild, shown
from storage import RatingChange
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import FakeTelegram, FakeUser
from tests.support.harness import Harness, start_harness
from tests.support.tables import Table, finish_fifteen, moves, open_table, pop_up


async def one_deal_fifteen(harness: Harness, title: str) -> Table:
    """Alice and Bob at a one-deal Fifteen table in a new group, started."""
    table = await open_table(harness, "fifteen", started=False, title=title)
    sid = table.session_id
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deals:1")
    await harness.press(table.alice, table.message, f"back:{sid}")
    await harness.press(table.alice, table.message, f"start:{sid}")
    await harness.settle()
    return table


async def test_the_result_shows_rating_changes_and_top_and_stats_rank(harness: Harness) -> None:
    fake = harness.fake
    table = await one_deal_fifteen(harness, "Club")
    await finish_fifteen(harness, table)
    session = await harness.kol.manager.get(table.session_id)
    assert session.status == "finished"
    chat = {c.user_id: c for c in session.ratings if c.scope == table.group.id}
    alice, bob = chat[table.alice.id], chat[table.bob.id]
    assert "📈 Ratings:" in table.message.text
    assert f"Alice 1,500 → {shown(alice.after):,}" in table.message.text
    assert f"Bob 1,500 → {shown(bob.after):,}" in table.message.text
    assert shown(alice.after) != shown(bob.after) or alice.after.wins == bob.after.wins

    await harness.command(table.alice, table.group.id, "/top")
    top = fake.last_message(table.group.id, containing="Leaderboard in this chat")
    assert top is not None and "<b>Fifteen</b>" in top.text
    assert "Fifteen" in top.text and "1 match" in top.text
    best, second = sorted((alice, bob), key=lambda c: -(c.after.mu - 3 * c.after.sigma))
    names = {table.alice.id: "Alice", table.bob.id: "Bob"}
    assert top.text.index(names[best.user_id]) < top.text.index(names[second.user_id])
    await harness.command(table.alice, table.group.id, "/top king")
    king = fake.last_message(table.group.id, containing="Leaderboard in this chat: King")
    assert king is not None and "No rated games yet." in king.text
    await harness.command(table.alice, table.group.id, "/top nonsense")
    assert fake.last_message(table.group.id, containing="I don't know that game") is not None

    # in a private chat: the overall leaderboard, and /stats with rating and rank
    await harness.command(table.bob, fake.private(table.bob).id, "/top fifteen")
    overall = fake.last_message(table.bob.id, containing="Leaderboard of all chats: Fifteen")
    assert overall is not None and "Alice" in overall.text and "Bob" in overall.text
    await harness.command(table.bob, fake.private(table.bob).id, "/stats")
    stats = fake.last_message(table.bob.id, containing="Your games")
    assert stats is not None
    # ranks as RANK() gives them: a drawn deal leaves both players equal, both #1
    def skill(change: RatingChange) -> float:
        return ordinal(change.after.mu, change.after.sigma)

    rank = 1 + sum(skill(other) > skill(bob) for other in (alice, bob))
    assert f"Fifteen — {shown(bob.after):,}, #{rank} of 2" in stats.text


async def test_russian_duel_against_the_computer_rates_overall(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    await harness.command(vera, fake.private(vera).id, "/new fifteen")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:strong")
    await harness.settle()
    for _ in range(500):
        session = await harness.kol.manager.get(1)
        if session.status != "running":
            break
        hand = fake.last_message(vera.id, containing="🃏")
        assert hand is not None
        data = moves(hand)
        stand = [d for d in data if d.endswith(":stand")]
        await harness.press(vera, hand, (stand or data)[0])
    session = await harness.kol.manager.get(1)
    assert session.status == "finished"
    [change] = session.ratings  # a private duel counts overall only; the computer is fixed
    assert change.scope == OVERALL and change.user_id == vera.id
    after = f"{shown(change.after):,}".replace(",", "\xa0")
    assert "📈 Рейтинг:" in lobby.text and f"Вера 1\xa0500 → {after}" in lobby.text
    await harness.command(vera, fake.private(vera).id, "/top")
    top = fake.last_message(vera.id, containing="Рейтинг по всем чатам")
    assert top is not None and "1 матч" in top.text
    await harness.command(vera, fake.private(vera).id, "/stats")
    stats = fake.last_message(vera.id, containing="Рейтинг")
    assert stats is not None and "1-е место из 1" in stats.text


async def final_move(harness: Harness, table: Table) -> tuple[FakeUser, str]:
    """Play the table up to its last move; who makes it and its button data."""
    for _ in range(60):
        session = await harness.kol.manager.get(table.session_id)
        seat = session.to_move
        assert seat is not None and session.game is not None
        user = table.alice if session.seats[seat].user_id == table.alice.id else table.bob
        hand = harness.fake.last_message(user.id, containing="🃏")
        assert hand is not None
        data = moves(hand)
        for choice in data:
            trial = session.game.clone()
            trial.apply(seat, choice.split(":", 2)[2])
            if trial.finished:
                return user, choice
        stand = [d for d in data if d.endswith(":stand")]
        await harness.press(user, hand, (stand or data)[0])
    raise AssertionError("no final move found")


async def test_a_restart_between_the_final_move_and_its_delivery_rates_once(
    fake: FakeTelegram, db_dir: Path
) -> None:
    database = db_dir / "restart.sqlite3"
    first = await start_harness(fake, database, RandomComputer())
    try:
        table = await one_deal_fifteen(first, "Crash")
        user, data = await final_move(first, table)
        hand = fake.last_message(user.id, containing="🃏")
        assert hand is not None
        _, version, action = data.split(":", 2)
        # the final move is committed, then the bot dies before anything is delivered
        await first.kol.manager.act(table.session_id, user.id, int(version), action)
        assert "📈" not in table.message.text
    finally:
        await first.stop()
    again = await start_harness(fake, database, RandomComputer())
    try:
        await again.settle()  # start-up drew what was behind: the result, with the ratings
        assert "📈 Ratings:" in table.message.text
        # Telegram delivers the final press once more: it counted already
        await pop_up(again, user, fake.private(user), hand.message_id, data)
        session = await again.kol.manager.get(table.session_id)
        assert len(session.ratings) == 4  # two humans, in the chat and overall, once each
        board = await again.kol.manager.leaderboard(table.group.id, "fifteen")
        assert [row.rating.played for row in board] == [1, 1]
        assert table.message.text.count("→") == 2
        # and the ratings recomputed from the results are the same
        await again.kol.manager.store.rerate(rebuild)
        assert await again.kol.manager.leaderboard(table.group.id, "fifteen") == board
    finally:
        await again.stop()
