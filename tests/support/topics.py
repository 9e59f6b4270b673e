"""Tables in forum topics, driven through the harness: a forum with players who have
started the bot, and a two-player table opened in one of its topics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tests.support.fake_telegram import MESSAGE_METHODS, Call, FakeChat, FakeUser, StoredMessage
from tests.support.harness import Harness

if TYPE_CHECKING:
    from sessions import Session


@dataclass
class TopicTable:
    """A two-player table in topic ``thread`` of ``forum`` (0: its General topic)."""

    forum: FakeChat
    thread: int
    first: FakeUser
    second: FakeUser
    message: StoredMessage
    session_id: int

    @property
    def users(self) -> dict[int, FakeUser]:
        """Its players by user id (for ``tables.play_out``)."""
        return {self.first.id: self.first, self.second.id: self.second}


def mover_hand(
    harness: Harness, table: TopicTable, session: Session
) -> tuple[FakeUser, StoredMessage]:
    """The player to move at ``session`` and their private hand message."""
    seat = session.to_move
    assert seat is not None
    mover = table.users[session.seats[seat].user_id or 0]
    hand = harness.fake.last_message(mover.id, containing="🃏")
    assert hand is not None
    return mover, hand


async def players(harness: Harness, *names: str) -> list[FakeUser]:
    """New users who have each opened their private chat with the bot."""
    users = [harness.fake.user(name) for name in names]
    for user in users:
        await harness.command(user, harness.fake.private(user).id, "/start")
    return users


async def command_in(
    harness: Harness, user: FakeUser, chat: FakeChat, thread: int, text: str
) -> None:
    """A command sent in topic ``thread`` (0: the General topic, or no topics), handled."""
    harness.fake.push_command(user, chat, text, thread=thread or None)
    await harness.settle()


async def topic_table(
    harness: Harness,
    forum: FakeChat,
    thread: int,
    first: FakeUser,
    second: FakeUser,
    game: str = "fifteen",
    started: bool = True,
) -> TopicTable:
    """``first`` opens ``game`` with /new in the topic, ``second`` joins with the button,
    and (``started``) ``first`` deals."""
    await command_in(harness, first, forum, thread, f"/new {game}")
    session = await harness.kol.manager.open_in_chat(forum.id, thread)
    assert session is not None, "no lobby was opened in the topic"
    message = next(
        m for m in reversed(harness.fake.chat_messages(forum.id))
        if any(b.get("callback_data") == f"join:{session.id}" for b in m.buttons())
    )
    await harness.press(second, message, f"join:{session.id}")
    if started:
        await harness.press(first, message, f"start:{session.id}")
    return TopicTable(forum, thread, first, second, message, session.id)


def posts_in(harness: Harness, chat_id: int) -> list[Call]:
    """Every call that posted a message (or a document) in ``chat_id``, answered or not."""
    return [
        c for c in harness.fake.calls
        if c.method in ("sendMessage", "sendDocument") and c.chat_id == chat_id
    ]


def flood_counted(harness: Harness, chat_id: int) -> list[Call]:
    """Every call Telegram's per-chat limit counts in ``chat_id``."""
    return [c for c in harness.fake.calls if c.method in MESSAGE_METHODS and c.chat_id == chat_id]
