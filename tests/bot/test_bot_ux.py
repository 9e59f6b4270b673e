"""What a new player trips over — hands that follow the game, results
ranked as the rules rank them, replies in the chat's language, honest replies
while a table waits, settings only the creator sees, seat limits, reclaiming a
seat, typed settings."""

from __future__ import annotations

from bot.i18n import t
from bot.render.common import cards
from games import REGISTRY
from games.cards import sort_hand
from sessions import Player, Session
from tests.support.buttons import action_of
from tests.support.fake_telegram import FakeUser, StoredMessage
from tests.support.harness import Harness
from tests.support.tables import move_data, mover, open_table, pop_up


def ephemerals_of(harness: Harness, chat_id: int, user: FakeUser) -> list[StoredMessage]:
    """The ephemeral messages ``user`` got in the chat, oldest first."""
    return [
        m for m in harness.fake.chat_messages(chat_id, ephemeral=True) if m.ephemeral_for == user.id
    ]


def shows_current_hand(session: Session, seat: int, message: StoredMessage) -> bool:
    """The message lists the seat's cards and has a button per legal action."""
    view = session.view(seat)
    hand = sort_hand(view["hand"], view.get("trumps"))
    actions = {action_of(d) for d in move_data(message)}
    return t("en", "hand-line", cards=cards(hand, "en")) in message.text and actions == set(
        view["legal"]
    )


# ---------------------------------------------------------------- 1. the ephemeral hand


async def test_the_ephemeral_hand_is_named_by_its_ephemeral_id_and_follows_the_game(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, other, _ = await mover(harness, table)
    await harness.press(other, table.message, "🃏 My hand")
    sent = [
        c
        for c in fake.calls_of("sendMessage", table.group.id)
        if "ephemeral_message_parameters" in c.params
    ][-1]
    assert sent.result["message_id"] == 0 and sent.result["receiver_user"]["id"] == other.id
    (hand,) = ephemerals_of(harness, table.group.id, other)
    assert move_data(hand) == []  # not their turn yet
    private = fake.last_message(first.id, containing="🃏")
    assert private is not None
    await harness.press(first, private, move_data(private)[0])
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(other.id)
    assert seat is not None and session.to_move == seat
    assert shows_current_hand(session, seat, hand), hand.text
    edits = fake.calls_of("editEphemeralMessageText")
    assert edits and all(c.ok for c in edits)
    assert {c.params["ephemeral_message_id"] for c in edits} == {
        sent.result["ephemeral_message_id"]
    }


async def test_a_press_on_an_out_of_date_ephemeral_hand_redraws_it(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness)
    first, _, _ = await mover(harness, table)
    await harness.press(first, table.message, "🃏 My hand")
    (old,) = ephemerals_of(harness, table.group.id, first)
    stale = move_data(old)
    # the edit after the move is lost: the ephemeral hand still offers the played card
    fake.fail_next("editEphemeralMessageText", 400, "Bad Request: message to edit not found")
    private = fake.last_message(first.id, containing="🃏")
    assert private is not None
    await harness.press(first, private, stale[0])
    assert move_data(old) == stale
    assert await pop_up(harness, first, table.group, 0, stale[1]) == t("en", "refusal-stale")
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(first.id)
    assert seat is not None
    newest = ephemerals_of(harness, table.group.id, first)[-1]
    assert newest is not old and shows_current_hand(session, seat, newest), newest.text


# ---------------------------------------------------------------- 2. who won


def finished(game_id: str, scores: list[int], winners: list[int]) -> Session:
    """A finished two-player session of ``game_id``."""
    return Session(
        id=3,
        chat_id=-1,
        kind="group",
        game_id=game_id,
        status="finished",
        creator_id=1,
        seats=[Player(1, "Alice", None), Player(2, "Bob", None)],
        options={},
        timer=None,
        version=9,
        deadline=None,
        game=None,
        result={"scores": scores, "winners": winners},
        created_at=0.0,
    )


async def test_results_rank_the_lowest_total_first_where_it_wins(harness: Harness) -> None:
    presenter = harness.kol.presenter
    mau = presenter.result_screen(finished("mau_mau", [159, 128], [1]), "en").text
    assert mau.index("1. Bob — 128 🏆") < mau.index("2. Alice — 159")
    eleven = presenter.result_screen(finished("eleven", [3, 5], [1]), "en").text
    assert "1. Bob — 5 🏆" in eleven and "2. Alice — 3" in eleven


# ---------------------------------------------------------------- 3. the group's language


CYRILLIC = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")


async def test_every_reply_in_a_russian_group_is_russian(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)  # Alice and Bob speak English
    await harness.command(table.alice, table.group.id, "/lang")
    menu = fake.last_message(table.group.id)
    assert menu is not None
    await harness.press(table.alice, menu, "lang:0:ru")
    commands = [
        (table.bob, "/hand"),
        (table.bob, "/settings"),
        (table.bob, "/rules"),
        (table.bob, "/score"),
        (table.bob, "/stats"),
        (table.bob, "/help"),
        (table.bob, "/new"),
        (table.bob, "/rules chess"),
        (table.bob, "/join"),
        (table.bob, "/leave"),
        (table.bob, "/leave"),
        (table.alice, "/start"),
    ]
    for user, command in commands:
        before = len(fake.calls)
        await harness.command(user, table.group.id, command)
        replies = [
            c.params["text"]
            for c in fake.calls[before:]
            if c.method in ("sendMessage", "editMessageText")
            and c.chat_id == table.group.id
            and "ephemeral_message_parameters" not in c.params
        ]
        assert replies, command
        for text in replies:
            assert CYRILLIC & set(text.lower()), (command, text)


# ---------------------------------------------------------------- 4. /rules


async def test_bare_rules_offers_the_games_by_their_names_and_takes_a_localized_name(
    harness: Harness,
) -> None:
    fake = harness.fake
    pavel = fake.user("Павел", "ru")
    chat = fake.private(pavel).id
    await harness.command(pavel, chat, "/rules")
    menu = fake.last_message(chat)
    assert menu is not None and menu.text == t("ru", "rules-menu")
    labels = [b["text"] for b in menu.buttons()]
    assert labels == [t("ru", f"game-{g}") for g in REGISTRY] and "Кинг" in labels
    await harness.press(pavel, menu, "Кинг")
    shown = fake.last_message(chat, containing="📖")
    assert shown is not None and "<b>Кинг</b>" in shown.text
    await harness.command(pavel, chat, "/rules мау-мау")
    shown = fake.last_message(chat, containing="📖")
    assert shown is not None and "<b>Мау-мау</b>" in shown.text
    await harness.command(pavel, chat, "/rules шахматы")
    unknown = fake.last_message(chat)
    assert unknown is not None and unknown.text == t("ru", "rules-unknown")
    assert len(unknown.buttons()) == len(REGISTRY)


# ---------------------------------------------------------------- 7. seats follow the options


async def test_mau_mau_with_the_32_card_deck_seats_five(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "mau_mau", started=False)  # Alice and Bob sit
    sid = table.session_id
    assert t("en", "lobby-seats", n=2, max=5) in table.message.text
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deck:52")
    assert t("en", "lobby-seats", n=2, max=7) in table.message.text
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deck:32")
    for _ in range(3):
        await pop_up(
            harness, table.alice, table.group, table.message.message_id, f"comp:{sid}:easy"
        )
    assert t("en", "lobby-seats", n=5, max=5) in table.message.text
    full = t("en", "refusal-table_full")
    assert (
        await pop_up(
            harness, table.alice, table.group, table.message.message_id, f"comp:{sid}:easy"
        )
        == full
    )
    carol = fake.user("Carol")
    assert (
        await pop_up(harness, carol, table.group, table.message.message_id, f"join:{sid}") == full
    )
    await harness.command(carol, table.group.id, "/join")
    assert fake.last_message(table.group.id, containing=full) is not None
    # six seated with the big deck, then the small deck is refused: it seats only five
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deck:52")
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"comp:{sid}:easy")
    refused = await pop_up(
        harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deck:32"
    )
    assert refused and (await harness.kol.manager.get(sid)).options["deck"] == 52
    assert (
        await pop_up(harness, table.alice, table.group, table.message.message_id, f"start:{sid}")
        == ""
    )
    assert len((await harness.kol.manager.get(sid)).seats) == 6


# ---------------------------------------------------------------- 8. the creator's private hand


async def test_start_in_the_private_chat_posts_the_creators_running_hand(harness: Harness) -> None:
    fake = harness.fake
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("Cards")
    await harness.command(bob, fake.private(bob).id, "/start")
    await harness.command(alice, group.id, "/new eleven")  # Alice never opened the private chat
    lobby = fake.last_message(group.id)
    assert lobby is not None
    await harness.press(bob, lobby, "join:1")
    await harness.press(alice, lobby, "start:1")
    assert fake.last_message(alice.id) is None
    await harness.command(alice, fake.private(alice).id, "/start")
    session = await harness.kol.manager.get(1)
    hand = fake.last_message(alice.id, containing="🃏")
    assert hand is not None
    assert shows_current_hand(session, 0, hand), hand.text
    assert fake.last_message(alice.id, containing=t("en", "welcome").split("\n")[0]) is not None


# ---------------------------------------------------------------- 6. the creator's settings


async def test_settings_open_only_for_the_creator_and_the_lobby_follows_them(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)
    lobby, sid = table.message, table.session_id
    await harness.press(table.alice, lobby, "⚙️ Settings")
    (menu,) = fake.chat_messages(table.group.id, ephemeral=True)
    assert menu.ephemeral_for == table.alice.id and "Settings of Eleven" in menu.text
    assert "Press <b>Join</b>" in lobby.text  # everyone still sees the lobby
    target = next(b for b in menu.buttons() if b["callback_data"].startswith(f"opt:{sid}:target"))
    await harness.press(table.alice, menu, target["callback_data"])
    value = target["callback_data"].rsplit(":", 1)[1]
    assert f"<b>{value}</b>" in menu.text and f"<b>{value}</b>" in lobby.text
    assert "Press <b>Join</b>" in lobby.text
    assert len(fake.chat_messages(table.group.id)) == 1  # nothing else posted in the group
    await harness.press(table.alice, menu, f"back:{sid}")
    assert menu.deleted and fake.calls_of("deleteEphemeralMessage")


async def test_without_ephemeral_messages_the_settings_open_in_the_private_chat(
    harness: Harness,
) -> None:
    fake = harness.fake
    fake.ephemeral = False
    table = await open_table(harness, "eleven", started=False)
    await harness.press(table.alice, table.message, "⚙️ Settings")
    menu = fake.last_message(table.alice.id, containing="Settings of Eleven")
    assert menu is not None and "Press <b>Join</b>" in table.message.text
    await harness.press(table.alice, menu, f"timer:{table.session_id}:60")
    assert "Turn timer: <b>1 min</b>" in menu.text and "<b>1 min</b>" in table.message.text


# ---------------------------------------------------------------- 9. taking a seat back


async def test_a_player_who_left_is_named_at_the_table_and_takes_the_seat_back(
    harness: Harness,
) -> None:
    fake = harness.fake
    table = await open_table(harness, "oh_hell", started=False)
    await pop_up(harness, table.alice, table.group, 0, f"comp:{table.session_id}:easy")
    await harness.press(table.alice, table.message, f"start:{table.session_id}")
    bob = table.bob
    await harness.command(bob, table.group.id, "/leave")
    assert "🤖 for Bob" in table.message.text
    released = fake.last_message(bob.id, containing="🚪")
    assert released is not None
    assert [b["text"] for b in released.buttons()] == [t("en", "button-reclaim")]
    # /start in the private chat offers the seat back as well
    await harness.command(bob, fake.private(bob).id, "/start")
    offer = fake.last_message(bob.id, containing="🤖")
    assert offer is not None and offer.buttons()[0]["callback_data"] == f"back2:{table.session_id}"
    await harness.press(bob, released, t("en", "button-reclaim"))
    session = await harness.kol.manager.get(table.session_id)
    seat = session.seat_of(bob.id)
    assert seat is not None and "🤖 for Bob" not in table.message.text
    assert "Bob" in table.message.text
    hand = fake.last_message(bob.id, containing="🃏")
    assert hand is not None
    assert shows_current_hand(session, seat, hand), hand.text


async def test_join_takes_back_the_seat_in_russian(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven")
    await harness.command(table.bob, table.group.id, "/lang")
    menu = fake.last_message(table.group.id, containing="🌐") or fake.last_message(table.group.id)
    assert menu is not None
    await harness.press(table.bob, menu, "lang:0:ru")
    await harness.command(table.bob, table.group.id, "/leave")
    assert "🤖 за Bob" in table.message.text
    await harness.command(table.bob, table.group.id, "/join")
    session = await harness.kol.manager.get(table.session_id)
    assert session.seat_of(table.bob.id) is not None and "🤖 за Bob" not in table.message.text


# ---------------------------------------------------------------- 10. typing a value


async def test_the_creator_types_a_target_score_not_among_the_buttons(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)
    sid = table.session_id
    await harness.press(table.alice, table.message, "⚙️ Settings")
    (menu,) = fake.chat_messages(table.group.id, ephemeral=True)
    await harness.press(table.alice, menu, f"type:{sid}:target")
    prompt = fake.last_message(table.group.id, containing="✏️")
    assert prompt is not None and "1 to 50" in prompt.text
    assert prompt.reply_markup == {
        "force_reply": True,
        "selective": True,
        "input_field_placeholder": "1–50",
    }
    assert f"tg://user?id={table.alice.id}" in prompt.text  # the reply field is only hers

    async def answer(user: FakeUser, text: str) -> str:
        before = len(fake.calls)
        fake.push_message(user, table.group, text, reply_to=prompt)
        await harness.settle()
        sent = [c.params["text"] for c in fake.calls[before:] if c.method == "sendMessage"]
        return sent[-1] if sent else ""

    bad = t("en", "type-value-bad", value="99", option="Play to", low=1, high=50)
    assert await answer(table.alice, "99") == bad
    assert "seven" in await answer(table.alice, "seven")
    assert await answer(table.bob, "12") == t("en", "refusal-not_creator")
    assert (await harness.kol.manager.get(sid)).options["target"] == 5  # nothing changed
    assert await answer(table.alice, "12") == ""
    assert (await harness.kol.manager.get(sid)).options["target"] == 12
    assert "Play to: <b>12</b>" in table.message.text and "Play to: <b>12</b>" in menu.text
    assert prompt.deleted  # answered: the question leaves the group
    # an unrelated reply to another bot message changes nothing
    fake.push_message(table.alice, table.group, "13", reply_to=table.message)
    await harness.settle()
    assert (await harness.kol.manager.get(sid)).options["target"] == 12


async def test_the_creator_types_a_turn_time_in_minutes_in_russian(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    chat = fake.private(vera)
    await harness.command(vera, chat.id, "/new eleven")
    lobby = fake.last_message(vera.id)
    assert lobby is not None
    await harness.press(vera, lobby, "⚙️ Настройки")
    await harness.press(vera, lobby, "type:1:timer")
    prompt = fake.last_message(vera.id, containing="✏️")
    assert prompt is not None and "от 1 до 1440" in prompt.text
    fake.push_message(vera, chat, "0", reply_to=prompt)
    await harness.settle()
    assert fake.last_message(vera.id, containing="«0» не подходит") is not None
    fake.push_message(vera, chat, "10", reply_to=prompt)
    await harness.settle()
    assert (await harness.kol.manager.get(1)).timer == 600
    assert "<b>10 мин</b>" in lobby.text


# ---------------------------------------------------------------- 5. while a table waits


async def test_commands_in_a_private_duel_lobby_say_what_is_true(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Vera")
    chat = fake.private(vera).id
    await harness.command(vera, chat, "/new eleven")
    for command in ("/hand", "/table"):
        await harness.command(vera, chat, command)
        newest = fake.chat_messages(chat)[-1]
        assert "Eleven" in newest.text, (command, newest.text)
        assert {b["callback_data"] for b in newest.buttons()} >= {"invite:1", "vs:1"}, command
        texts = [m.text for m in fake.chat_messages(chat)]
        assert t("en", "no-game-of-yours") not in texts and t("en", "no-open-game") not in texts
    await harness.command(vera, chat, "/settings")
    shown = fake.last_message(chat, containing=t("en", "settings-table", game="Eleven"))
    assert shown is not None and "Play to: <b>5</b>" in shown.text


async def test_hand_in_a_group_lobby_says_the_cards_are_not_dealt(harness: Harness) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)
    await harness.command(table.bob, table.group.id, "/hand")
    newest = fake.chat_messages(table.group.id)[-1]
    assert newest.text == t("en", "hand-not-dealt")
