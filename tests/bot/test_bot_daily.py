"""The daily deal through the bot: /daily, its seal, one play a day with a localized
refusal showing the result, the standing after finishing, /daily top in a group
(its members only), the streak in /stats; the boards' close posted once per group,
across a restart and with two workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.daily import DailyBoards
from bot.i18n import t
from bot.present import Presenter
from games.verify import short_hash
from sessions import Session, SessionManager
from sessions.daily import DAY, day_of
from storage import ResultRecord, SeatRecord
from storage.records import SessionRecord
from tests.support.fake_telegram import FakeTelegram, FakeUser
from tests.support.harness import Harness
from tests.support.helpers_sessions import FakeClock, FirstLegal
from tests.support.posts import RecordedPosts, posted_once_by_two_workers
from tests.support.tables import forged_everywhere, pop_up


async def finish(
    manager: SessionManager, session: Session, user: int, drawn: Presenter | None = None
) -> None:
    """Play the human's first legal move until the daily table is over (each move drawn
    by ``drawn``, as the move button's handler does)."""
    for _ in range(5000):
        await manager.idle()
        session = await manager.get(session.id)
        if session.status != "running":
            return
        seat = session.seat_of(user)
        if session.to_move == seat and seat is not None:
            action = session.view(seat)["legal"][0]
            outcome = await manager.act(session.id, user, session.version, action)
            if drawn is not None:
                await drawn.on_outcome(outcome)
    raise AssertionError("the daily deal never ended")


async def play_daily(harness: Harness, user: FakeUser, game: str) -> Session:
    """``user`` starts the bot, plays today's deal of ``game`` to its end (as drawn)."""
    chat = harness.fake.private(user).id
    await harness.command(user, chat, "/start")
    await harness.command(user, chat, f"/daily {game}")
    (session,) = await harness.kol.manager.sessions_of_user(user.id)
    await finish(harness.kol.manager, session, user.id, harness.kol.presenter)
    await harness.settle()
    return session


async def make_member(manager: SessionManager, chat: int, *users: tuple[int, str]) -> None:
    """A finished group match in ``chat`` with ``users``: the bot has seen them there."""
    store = manager.store
    seats = [SeatRecord(user, name, None) for user, name in users]
    record = SessionRecord(0, chat, "group", "eleven", "running", users[0][0], {}, None, None,
                           1, 0, None, None, None, 0.0, seats)
    session = await store.create_session(record)
    await store.save_session(
        SessionRecord(session, chat, "group", "eleven", "finished", users[0][0], {}, None,
                      None, 2, 0, None, None, None, 0.0, seats),
        1, results=[ResultRecord(u, s, s == 0, 1.0) for s, (u, _) in enumerate(users)],
    )


async def test_daily_in_a_private_chat(harness: Harness, fake: FakeTelegram) -> None:
    ann = fake.user("Ann")
    private = fake.private(ann).id
    await harness.command(ann, private, "/start")
    await harness.command(ann, private, "/daily")
    menu = fake.last_message(private)
    assert menu is not None and "Daily deal" in menu.text
    assert "daily:0:eleven" in [b["callback_data"] for b in menu.buttons()]

    await harness.command(ann, private, "/daily eleven")
    manager = harness.kol.manager
    (session,) = await manager.sessions_of_user(ann.id)
    assert session.daily == manager.daily.today() and session.seed is not None
    seal = short_hash(session.seed)
    start = fake.last_message(private, "The same cards for everybody")
    assert start is not None and seal in start.text
    table = fake.last_message(private, "Seed hash")
    assert table is not None and table.message_id > start.message_id and seal in table.text

    await harness.command(ann, private, "/daily eleven")  # while it is played
    again = fake.last_message(private)
    assert again is not None and "played today's deal already" in again.text
    assert "no score yet" in again.text

    await finish(manager, session, ann.id, harness.kol.presenter)
    await harness.settle()
    standing = fake.last_message(private, "Your score:")
    assert standing is not None and "Place: <b>1</b> of 1" in standing.text
    result = fake.last_message(private, "game over")
    assert result is not None
    labels = [b.get("callback_data", "") for b in result.buttons()]
    assert not any(label.startswith("again:") for label in labels)  # played once
    deal = next(label for label in labels if label.startswith("deal:"))
    await harness.press(ann, result, deal)  # 📜 Deal: the seed stays sealed today
    record = fake.last_message(private, "this is a daily deal")
    assert record is not None and seal in record.text and str(session.seed) not in record.text

    await harness.command(ann, private, "/daily eleven")
    refused = fake.last_message(private)
    assert refused is not None and "played today's deal already" in refused.text
    assert "Your score" in refused.text and "The next deal comes in" in refused.text
    assert len(await manager.sessions_of_user(ann.id)) == 0  # nothing new was dealt

    await harness.command(ann, private, "/stats")
    stats = fake.last_message(private)
    assert stats is not None and "Daily deal streak: 1 day (best 1)" in stats.text


async def test_daily_top_in_a_group_lists_its_members(
    harness: Harness, fake: FakeTelegram
) -> None:
    ann, bob, cy = fake.user("Ann"), fake.user("Bob"), fake.user("Cy")
    group = fake.group("Friends")
    manager = harness.kol.manager
    await make_member(manager, group.id, (ann.id, "Ann"), (bob.id, "Bob"))
    for user in (ann, cy):
        await play_daily(harness, user, "king")
    standing = fake.last_message(fake.private(ann).id, "Your score:")
    assert standing is not None and "In your groups: 1 of 1" in standing.text

    await harness.command(bob, group.id, "/daily")
    told = fake.last_message(group.id)
    assert told is not None and "private chat" in told.text
    assert told.buttons()[0]["url"].endswith("?start=daily")

    await harness.command(bob, group.id, "/daily top")
    board = fake.last_message(group.id)
    assert board is not None and "this group's players" in board.text
    assert "King" in board.text and "Ann" in board.text and "Cy" not in board.text
    await harness.command(ann, fake.private(ann).id, "/daily top king")
    everybody = fake.last_message(fake.private(ann).id)
    assert everybody is not None and "Ann" in everybody.text and "Cy" in everybody.text



async def test_the_daily_menu_forwarded_to_a_group_sends_its_pressers_to_the_private_chat(
    harness: Harness, fake: FakeTelegram
) -> None:
    """Ann forwards her /daily menu to a group; Bob presses a game there. Nothing is
    dealt in the group, and the pop-up says where the daily deal is played (not
    "Unknown game"), in his language."""
    ann, bob = fake.user("Ann"), fake.user("Боб", language_code="ru")
    group = fake.group("Friends")
    await harness.command(ann, fake.private(ann).id, "/start")
    await harness.command(ann, fake.private(ann).id, "/daily")
    menu = fake.last_message(fake.private(ann).id)
    assert menu is not None
    forwarded = fake.seed_message(group.id, menu.text, menu.reply_markup)
    text = await pop_up(harness, bob, group, forwarded.message_id, "daily:0:king")
    assert text == t("ru", "daily-in-group")
    assert await harness.kol.manager.sessions_of_user(bob.id) == []

async def test_daily_in_russian(harness: Harness, fake: FakeTelegram) -> None:
    ann = fake.user("Аня", language_code="ru")
    private = fake.private(ann).id
    await harness.command(ann, private, "/start")
    await harness.command(ann, private, "/lang")
    menu = fake.last_message(private)
    assert menu is not None
    await harness.press(ann, menu, "lang:0:ru")
    await harness.command(ann, private, "/daily мау-мау")
    start = fake.last_message(private, "Сдача дня")
    assert start is not None and "Хеш сида" in start.text


async def test_a_daily_record_stays_with_its_player_while_the_day_lasts(
    harness: Harness, fake: FakeTelegram
) -> None:
    """Session ids are small numbers: a stranger who forges 📜 Deal or 📄 Match record on
    someone's finished daily deal must not see its hands (everyone else still plays
    them today) — neither in a private chat nor in a group."""
    ann, cy = fake.user("Ann"), fake.user("Cy")
    group = fake.group("Friends")
    await harness.command(cy, fake.private(cy).id, "/start")
    session = await play_daily(harness, ann, "eleven")
    texts = await forged_everywhere(
        harness, cy, group, [f"deal:{session.id}:0", f"rec:{session.id}"])
    shown = [c for c in fake.calls if "Hands as dealt" in str(c.params)]
    assert [c.chat_id for c in shown if c.chat_id != fake.private(ann).id] == []
    assert not fake.calls_of("sendDocument")
    sealed, elsewhere = t("en", "refusal-daily_sealed"), t("en", "refusal-other_chat")
    assert texts == [sealed] * 2 + [elsewhere] * 2 + [sealed] * 2  # private, group, none
    assert "daily deal" in sealed and "its player" in sealed

    ru = fake.user("Ива", language_code="ru")
    await harness.command(ru, fake.private(ru).id, "/start")
    text = await pop_up(harness, ru, fake.private(ru), None, f"deal:{session.id}:0")
    assert "сдач" in text and "день" in text

    ann_sees = await pop_up(harness, ann, fake.private(ann), None, f"deal:{session.id}:0")
    assert ann_sees == ""  # her own record she still gets
    assert fake.last_message(fake.private(ann).id, "Hands") is not None


# ---------------------------------------------------------------- closing the boards


GROUP, OTHER, QUIET = -1001, -1002, -1003


def boards(manager: SessionManager, posts: RecordedPosts) -> DailyBoards:
    return DailyBoards(manager, posts)


async def a_day_played(manager: SessionManager) -> None:
    """Ann (in GROUP and OTHER) and Bob (in GROUP) finish today's Eleven; QUIET's member
    does not play."""
    await make_member(manager, GROUP, (1, "Ann"), (2, "Bob"))
    await make_member(manager, OTHER, (1, "Ann"))
    await make_member(manager, QUIET, (3, "Cy"))
    for user, name in ((1, "Ann"), (2, "Bob")):
        session = (await manager.daily.start(user, user, name, "eleven")).session
        await finish(manager, session, user)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(day_of(1_800_000_000.0) * DAY + 80_000.0)


async def test_the_boards_close_once_across_a_restart(tmp_path: Path, clock: FakeClock) -> None:
    url = f"sqlite:///{tmp_path / 'daily.sqlite3'}"
    manager = await SessionManager.open(url, FirstLegal(), clock)
    posts = RecordedPosts()
    await a_day_played(manager)
    assert await boards(manager, posts).close() == 0  # the day is not over
    clock.advance(DAY)
    assert await boards(manager, posts).close() == 2
    await manager.close()
    manager = await SessionManager.open(url, FirstLegal(), clock)  # a restart
    assert await boards(manager, posts).close() == 0
    clock.advance(DAY)  # the next day: yesterday's boards are not posted again
    assert await boards(manager, posts).close() == 0
    await manager.close()
    assert sorted(chat for chat, _ in posts.sent) == sorted([GROUP, OTHER])
    text = dict(posts.sent)[GROUP].text
    assert "the board is closed" in text and "Eleven: 🏆 " in text and "2 players" in text


async def test_the_boards_close_once_with_two_workers(
    pg_database: str, clock: FakeClock
) -> None:
    chats = await posted_once_by_two_workers(pg_database, clock, a_day_played, DAY, boards)
    assert chats == sorted([GROUP, OTHER])
