"""A group table's buttons work in its own group only; admin rights are asked of the
table's chat, wherever the press comes from."""

from __future__ import annotations

from bot.i18n import t
from tests.support.harness import Harness
from tests.support.tables import duel_with_computer, open_table, play_out, pop_up

REFUSED = t("en", "refusal-other_chat")


async def test_a_lobby_copied_to_another_chat_changes_nothing(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, started=False)
    sid = table.session_id
    carol = fake.user("Carol")
    elsewhere = fake.group("Carol's own", admins=(carol, table.bob))
    # the same buttons, on a message forwarded (or copied) into Carol's group
    copy = fake.seed_message(elsewhere.id, table.message.text, table.message.reply_markup)
    for user, data in ((carol, f"join:{sid}"), (table.bob, f"cancel:{sid}"),
                       (table.alice, f"start:{sid}"), (table.bob, f"leave:{sid}")):
        assert await pop_up(harness, user, elsewhere, copy.message_id, data) == REFUSED, data
    # …and in a private chat
    mine = fake.seed_message(carol.id, table.message.text, table.message.reply_markup)
    assert await pop_up(harness, carol, fake.private(carol), mine.message_id,
                        f"join:{sid}") == REFUSED
    session = await harness.kol.manager.get(sid)
    assert session.status == "lobby" and len(session.seats) == 2
    assert session.seat_of(carol.id) is None
    assert not fake.calls_of("getChatMember")  # Bob's rights elsewhere were never asked
    # in the table's own group, Bob (an admin elsewhere only) is asked about this group
    text = await pop_up(harness, table.bob, table.group, table.message.message_id,
                        f"cancel:{sid}")
    assert text == t("en", "refusal-not_creator")
    assert (await harness.kol.manager.get(sid)).status == "lobby"
    asked = fake.calls_of("getChatMember")
    assert asked and all(c.params["chat_id"] == table.group.id for c in asked)



async def test_a_private_tables_buttons_pressed_in_a_group_post_nothing_there(
    harness: Harness,
) -> None:
    """A private table's buttons live in private chats. Eve forges Ann's private
    duel's "📊 Show score" in a group: Ann's private tally must not be posted there
    for everyone to read (nor anything else of her table)."""
    fake = harness.fake
    ann, eve = fake.user("Ann"), fake.user("Eve")
    group = fake.group("Crowd", admins=(eve,))
    for user in (ann, eve):
        await harness.command(user, fake.private(user).id, "/start")
    await duel_with_computer(harness, ann, "fifteen", "deals:1")
    await play_out(harness, 1, {ann.id: ann})
    assert (await harness.kol.manager.get(1)).status == "finished"
    await harness.command(eve, group.id, "/help")
    message = fake.last_message(group.id)
    assert message is not None
    texts = [await pop_up(harness, eve, group, message.message_id, data)
             for data in ("score:1", "again:1", "rec:1")]
    assert [m.text for m in fake.chat_messages(group.id) if "Ann" in m.text] == []
    assert texts == [REFUSED] * 3
