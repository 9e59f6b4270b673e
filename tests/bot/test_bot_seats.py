"""Who may sit where: deep links by unguessable token, one rematch, a few lobbies each."""

from __future__ import annotations

from tests.support.harness import Harness
from tests.support.tables import play_out


async def test_a_guessed_link_seats_nobody_at_a_private_duel(harness: Harness) -> None:
    fake = harness.fake
    vera, mallory = fake.user("Vera"), fake.user("Mallory")
    await harness.command(vera, fake.private(vera).id, "/new fifteen")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    mallory_chat = fake.private(mallory)
    for guess in ("/start j1", "/start h1", "/start j01"):
        await harness.command(mallory, mallory_chat.id, guess)
        answer = fake.last_message(mallory.id)
        assert answer is not None and "does not exist" in answer.text, guess
    session = await harness.kol.manager.get(1)
    assert session.humans == [vera.id]
    assert await harness.kol.manager.sessions_of_user(mallory.id) == []
    # even the duel's own token seats nobody: a private table seats by its invite
    await harness.command(mallory, mallory_chat.id, f"/start j{session.link}")
    answer = fake.last_message(mallory.id)
    assert answer is not None and "not playing at this table" in answer.text
    assert (await harness.kol.manager.get(1)).humans == [vera.id]

    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:easy")
    duel = await harness.kol.manager.get(1)
    assert duel.status == "running"
    assert duel.humans == [vera.id] and [p.level for p in duel.seats] == [None, "easy"]


async def test_links_carry_a_token_not_the_session_number(harness: Harness) -> None:
    fake = harness.fake
    alice, dan = fake.user("Alice"), fake.user("Dan")
    group = fake.group()
    await harness.command(alice, fake.private(alice).id, "/start")
    await harness.command(alice, group.id, "/new eleven")
    lobby = fake.last_message(group.id)
    assert lobby is not None
    answer = await harness.press(dan, lobby, "join:1")  # Dan never started the bot
    payload = answer.params["url"].split("?start=")[1]
    session = await harness.kol.manager.get(1)
    assert payload == f"h{session.link}" and len(session.link) >= 16
    assert not payload[1:].isdigit()
    # the link opens Dan's chat on his seat; the same link does nothing for a stranger
    await harness.command(dan, fake.private(dan).id, f"/start {payload}")
    greeting = fake.last_message(dan.id)
    assert greeting is not None and "will appear here" in greeting.text
    eve = fake.user("Eve")
    await harness.command(eve, fake.private(eve).id, f"/start {payload}")
    refusal = fake.last_message(eve.id)
    assert refusal is not None and "not playing at this table" in refusal.text


async def test_a_join_pressed_outside_the_tables_group_seats_nobody(harness: Harness) -> None:
    fake = harness.fake
    alice, mallory = fake.user("Alice"), fake.user("Mallory")
    group = await harness.open_lobby("eleven", [alice, mallory], "Friends")
    elsewhere = fake.private(mallory)
    note = fake.last_message(mallory.id)
    assert note is not None
    query = fake.push_callback(mallory, elsewhere, note.message_id, "join:1")
    answer = await fake.answer(query)
    assert "another chat" in answer.params.get("text", "")
    assert (await harness.kol.manager.get(1)).humans == [alice.id]
    # in its own group the same button seats her
    await harness.press(mallory, group[1], "join:1")
    assert (await harness.kol.manager.get(1)).humans == [alice.id, mallory.id]


async def test_play_again_thirty_times_starts_one_rematch(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Vera")
    chat = fake.private(vera)
    await harness.command(vera, chat.id, "/new eleven")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:easy")
    await play_out(harness, 1, {vera.id: vera})
    assert (await harness.kol.manager.get(1)).status == "finished"
    queries = [fake.push_callback(vera, chat, lobby.message_id, "again:1") for _ in range(30)]
    answers = [await fake.answer(query) for query in queries]
    await harness.settle()
    running = await harness.kol.manager.sessions_of_user(vera.id)
    assert len(running) == 1 and running[0].id == 2
    assert sum("played again already" in (a.params.get("text") or "") for a in answers) == 29


async def test_fifty_new_in_private_leave_three_lobbies(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Vera")
    for _ in range(50):
        await harness.command(vera, fake.private(vera).id, "/new eleven")
    open_ = await harness.kol.manager.sessions_of_user(vera.id)
    assert [s.id for s in open_] == [48, 49, 50]
    oldest = await harness.kol.manager.get(1)
    assert oldest.status == "cancelled"
