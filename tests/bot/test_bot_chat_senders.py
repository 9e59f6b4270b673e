"""Commands sent on behalf of a chat — an anonymous admin (the group itself) or a
channel — are asked to come as a person: they would all be one shared player."""

from __future__ import annotations

from tests.support.fake_telegram import FakeChat
from tests.support.harness import Harness
from tests.support.tables import open_table


async def test_anonymous_admins_and_channels_are_asked_to_play_as_themselves(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    group, sid = table.group, table.session_id
    news = fake.channel("News")

    async def sent_as(sender_chat: FakeChat | None, text: str) -> list[str]:
        before = len(fake.calls)
        fake.push_message(table.bob, group, text, sender_chat=sender_chat)
        await harness.settle()
        return [c.params["text"] for c in fake.calls[before:] if c.method == "sendMessage"]

    assert (await harness.kol.manager.get(sid)).seat_of(table.bob.id) is not None
    [anonymous] = await sent_as(group, "/join")
    assert "anonymous admin" in anonymous and "Remain anonymous" in anonymous
    [channel] = await sent_as(news, "/cancel")
    assert "the channel News" in channel and "write as yourself" in channel
    assert await sent_as(news, "/join@some_other_bot") == []
    assert await sent_as(news, "a channel post, not a command") == []
    session = await harness.kol.manager.get(sid)
    assert session.status == "lobby" and len(session.seats) == 2
    assert all(p.user_id in (table.alice.id, table.bob.id) for p in session.seats)

    # in Russian, for a new group, and /new opens nothing
    russians = fake.group("Клуб")
    vera = fake.user("Вера", "ru")
    await harness.command(vera, russians.id, "/help")  # the group's language: Russian
    before = len(fake.calls)
    fake.push_message(vera, russians, "/new eleven", sender_chat=russians)
    await harness.settle()
    [text] = [c.params["text"] for c in fake.calls[before:] if c.method == "sendMessage"]
    assert "анонимный администратор" in text
    assert await harness.kol.manager.open_in_chat(russians.id) is None
