"""A group table's buttons work in its own group only; admin rights are asked of the
table's chat, wherever the press comes from."""

from __future__ import annotations

from bot.i18n import t
from tests.support.harness import Harness
from tests.support.tables import open_table, pop_up

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

