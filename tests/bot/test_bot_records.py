"""Deal records through the bot: 📜 Deal, 📄 Match record, /history."""

from __future__ import annotations

import asyncio
import contextlib
import re

from bot.i18n import t
from games.verify import short_hash
from tests.support.harness import Harness
from tests.support.tables import (
    Table,
    duel_with_computer,
    finish_fifteen,
    forged_everywhere,
    labels,
    mover,
    moves,
    open_table,
    play_out,
    pop_up,
)

DATE = re.compile(r"^koloda-fifteen-\d{4}-\d{2}-\d{2}\.txt$")


async def fifteen(harness: Harness, deals: int) -> Table:
    """Alice and Bob at a Fifteen table of ``deals`` deals in a new group, started."""
    table = await open_table(harness, "fifteen", started=False, title="Records")
    sid = table.session_id
    await pop_up(
        harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deals:{deals}"
    )
    await harness.press(table.alice, table.message, f"back:{sid}")
    await harness.press(table.alice, table.message, f"start:{sid}")
    await harness.settle()
    return table


async def play_deal(harness: Harness, table: Table) -> None:
    """Stand at once until the deal number changes (or the match ends)."""
    start = (await harness.kol.manager.get(table.session_id)).view(None)["deal_no"]
    for _ in range(40):
        session = await harness.kol.manager.get(table.session_id)
        if session.status != "running" or session.view(None)["deal_no"] != start:
            return
        first, _, _ = await mover(harness, table)
        hand = harness.fake.last_message(first.id, containing="🃏")
        assert hand is not None
        data = moves(hand)
        stand = [d for d in data if d.endswith(":stand")]
        await harness.press(first, hand, (stand or data)[0])
    raise AssertionError("the deal did not end")


async def test_deal_button_match_record_and_history_in_a_group(harness: Harness) -> None:
    fake = harness.fake
    table = await fifteen(harness, 2)
    sid = table.session_id
    assert "📜 Deal" not in labels(table.message)  # nothing finished yet
    # a deal not finished is refused, whatever the data says
    for forged in (f"deal:{sid}:0", f"deal:{sid}:7", f"deal:{sid}:x"):
        text = await pop_up(harness, table.bob, table.group, table.message.message_id, forged)
        assert text == "That deal is not finished yet."
    await play_deal(harness, table)
    assert "📜 Deal" in labels(table.message)
    await harness.press(table.bob, table.message, "📜 Deal")
    [record] = [m for m in fake.chat_messages(table.group.id, ephemeral=True)
                if m.ephemeral_for == table.bob.id and "📜 Deal 1" in m.text]
    assert "Fifteen" in record.text and "Hands as dealt:" in record.text
    assert "Showdown:" in record.text and "Points:" in record.text
    # the table committed to the seed before the first card; mid-match it stays sealed
    seed = (await harness.kol.manager.get(sid)).seed
    assert seed is not None
    assert f"🔒 Seed hash: <code>{short_hash(seed)}</code>" in table.message.text
    assert "the seed is shown here when the match ends" in record.text
    assert str(seed) not in record.text
    text = await pop_up(harness, table.bob, table.group, table.message.message_id, f"deal:{sid}:1")
    assert text == "That deal is not finished yet."  # the deal in play stays hidden
    text = await pop_up(harness, table.bob, table.group, table.message.message_id, f"rec:{sid}")
    assert text == "The game is not over yet."
    assert fake.documents == []

    await finish_fifteen(harness, table)
    assert "📄 Match record" in labels(table.message) and "📜 Deal" in labels(table.message)
    await harness.press(table.alice, table.message, "📄 Match record")
    [document] = fake.documents
    assert document.chat_id == table.group.id and DATE.match(document.filename)
    body = document.content.decode()
    assert "📜 Deal 1 — Fifteen" in body and "📜 Deal 2 — Fifteen" in body
    assert "Final scores:" in body and "<b>" not in body
    assert "Alice" in body and "Bob" in body
    # over: the seed is revealed, with the command that re-deals it
    assert f"🔑 Seed: {seed} (its hash {short_hash(seed)} was on the table)" in body
    assert f"python -m games.verify fifteen {seed} --players 2" in body

    # /history, also after the cache is gone (rebuilt from the stored seed and log)
    harness.kol.manager._cache.clear()
    await harness.command(table.alice, table.group.id, "/history")
    history = fake.last_message(table.group.id, containing="last finished matches")
    assert history is not None and "1. Fifteen" in history.text
    await harness.press(table.bob, history, labels(history)[0])
    assert len(fake.documents) == 2 and fake.documents[1].content.decode() == body


async def test_a_russian_duel_has_its_records_in_the_private_chat(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    await harness.command(vera, fake.private(vera).id, "/history")
    assert fake.last_message(vera.id, containing="ещё нет законченных партий") is not None
    await harness.command(vera, fake.private(vera).id, "/new fifteen")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:easy")
    await harness.settle()
    seen_deal = False
    for _ in range(400):
        session = await harness.kol.manager.get(1)
        if session.status != "running":
            break
        hand = fake.last_message(vera.id, containing="🃏")
        assert hand is not None
        if not seen_deal and "📜 Сдача" in labels(hand):
            await harness.press(vera, hand, "📜 Сдача")
            record = fake.last_message(vera.id, containing="📜 Сдача 1 — Пятнадцать")
            assert record is not None and "Карты при сдаче:" in record.text
            seen_deal = True
            continue
        data = moves(hand)
        stand = [d for d in data if d.endswith(":stand")]
        await harness.press(vera, hand, (stand or data)[0])
    assert seen_deal
    assert "📄 Запись партии" in labels(lobby)
    await harness.press(vera, lobby, "📄 Запись партии")
    [document] = fake.documents
    assert document.chat_id == vera.id
    assert "Итоговый счёт:" in document.content.decode()
    assert "📄 Пятнадцать" in document.caption
    await harness.command(vera, fake.private(vera).id, "/history")
    history = fake.last_message(vera.id, containing="Последние законченные партии")
    assert history is not None and "Пятнадцать" in history.text


async def test_match_record_hammered_in_a_group_is_posted_once(harness: Harness) -> None:
    """📄 Match record posts a document the whole group sees, from the group's ~20
    sends a minute: a member pressing it twenty times at once posts it once, not
    twenty times; every press is answered."""
    fake = harness.fake
    table = await fifteen(harness, 1)
    await finish_fifteen(harness, table)
    held = fake.gates["sendDocument"] = asyncio.Event()  # the post is on its way
    queries = [fake.push_press(table.bob, table.message, "📄 Match record") for _ in range(20)]
    with contextlib.suppress(TimeoutError):
        await fake.wait_until(
            lambda: all(fake.answer_of(q) is not None for q in queries), timeout=5.0)
    held.set()
    await harness.settle()
    assert all(fake.answer_of(q) is not None for q in queries)
    assert len(fake.documents) == 1
    await harness.press(table.alice, table.message, "📄 Match record")  # asked again later
    assert len(fake.documents) == 2


async def test_a_private_matchs_records_are_its_players_alone(harness: Harness) -> None:
    """Session ids are small numbers: a stranger who forges 📜 Deal or 📄 Match record
    on someone's private match (against the computer or a friend) sees no hand of it,
    neither in her own chat nor posted in a group."""
    fake = harness.fake
    ann, eve = fake.user("Ann"), fake.user("Eve")
    group = fake.group("Crowd")
    for user in (ann, eve):
        await harness.command(user, fake.private(user).id, "/start")
    await duel_with_computer(harness, ann, "fifteen", "deals:1")
    await play_out(harness, 1, {ann.id: ann})
    assert (await harness.kol.manager.get(1)).status == "finished"

    texts = await forged_everywhere(harness, eve, group, ["deal:1:0", "rec:1"])
    shown = [c for c in fake.calls if "Hands as dealt" in str(c.params)]
    assert [c.chat_id for c in shown if c.chat_id != ann.id] == []
    assert fake.documents == []
    own, elsewhere = t("en", "refusal-record_players_only"), t("en", "refusal-other_chat")
    assert texts == [own] * 2 + [elsewhere] * 2 + [own] * 2  # private chat, group, none
    assert "📜" in t("ru", "refusal-record_players_only")
    assert await pop_up(harness, ann, fake.private(ann), None, "rec:1") == ""  # hers
    assert [d.chat_id for d in fake.documents] == [ann.id]
