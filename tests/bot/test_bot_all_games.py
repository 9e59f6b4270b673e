"""Every game through the real bot, played as users play it, checked as users see it.

For each of the seven games a group table with two humans (Alice plays from her
private chat, Bob from the ephemeral hand "My hand" opens; each has both) and
computer seats is played through the fake Bot API until the first deal is over. After
every press the test looks at what each person sees:

* the group chat holds exactly one message — the table — edited in place; it
  names whose turn it is and shows every running score;
* no group-visible text shows a card hidden from the public, and no hand
  message shows a card hidden from its reader (the previous deal's summary is
  exempt: its cards are back in the deck);
* each human's hand message lists exactly their cards, with one button per
  legal action of ``game.view(seat)["legal"]``, and every press is answered.

Every version the bot renders is audited too (not only the last one before the
test looks), by wrapping the presenter's ``refresh``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.callback import Move, unpack
from bot.i18n import t
from bot.render.common import cards, scores_line
from bot.render.table import render_hand, render_table, table_text
from games import REGISTRY
from games.cards import SUIT_SYMBOLS, display, is_card, sort_hand
from sessions import Session
from tests.support.fake_telegram import FakeUser, StoredMessage
from tests.support.harness import Harness
from tests.support.tables import button_for, move_actions

LANGS = ("en", "ru")
# lines that summarise the previous deal: its cards are back in the deck
SUMMARY_KEYS = ("showdown-won", "showdown-carried", "last-deal-out", "last-deal-rummy")

# game → (computer seats, options that keep the test short)
TABLES: dict[str, tuple[int, dict[str, str]]] = {
    "eleven": (0, {"target": "1"}),
    "two_ten_jack": (1, {"target": "25"}),
    "fifteen": (0, {"deals": "2", "chips": "10"}),
    "rummy": (1, {"target": "10"}),
    "mau_mau": (1, {"limit": "10"}),
    "oh_hell": (1, {}),
    "king": (2, {"positive": "lottery"}),
}


def summary_prefixes() -> list[str]:
    """The fixed opening words of every previous-deal summary line, in both languages."""
    prefixes = []
    for lang in LANGS:
        for key in SUMMARY_KEYS:
            text = t(lang, key, hands="@", winner="@", n=0, penalties="@")
            prefixes.append(text.split("@")[0].strip())
    return prefixes


PREFIXES = summary_prefixes()


def shown_cards(text: str, codes: set[str]) -> set[str]:
    """Which of ``codes`` the text shows (in either language), summary lines aside."""
    lines = [line for line in text.splitlines() if not line.startswith(tuple(PREFIXES))]
    body = "\n".join(lines)
    found = set()
    for code in codes:
        for lang in LANGS:
            pattern = r"(?<![0-9A-Za-zА-Яа-яЁё])" + re.escape(display(code, lang))
            if re.search(pattern, body):
                found.add(code)
    return found


def audit_every_render(harness: Harness) -> list[int]:
    """Check every table and hand the presenter is about to send; returns the audited versions."""
    presenter = harness.kol.presenter
    original: Callable[..., Awaitable[None]] = presenter.refresh
    audited: list[int] = []

    async def refresh(session: Session, **kwargs: Any) -> None:
        game = session.game
        if session.status == "running" and game is not None:
            public = game.hidden_cards(None)
            for lang in LANGS:
                table = presenter.table_screen(session, lang).text
                assert not shown_cards(table, public), (table, shown_cards(table, public))
                for seat, player in enumerate(session.seats):
                    if player.user_id is not None:
                        hand = presenter.private_screen(session, seat, lang).text
                        leaked = shown_cards(hand, game.hidden_cards(seat))
                        assert not leaked, (hand, leaked)
            audited.append(session.version)
        await original(session, **kwargs)

    presenter.refresh = refresh  # type: ignore[method-assign]
    return audited


async def open_table(
    harness: Harness, game_id: str, computers: int, options: dict[str, str]
) -> tuple[FakeUser, FakeUser, StoredMessage]:
    """Alice opens the table in a group, Bob joins, computers sit, options set, dealt."""
    fake = harness.fake
    alice, bob = fake.user("Alice"), fake.user("Bob")
    group = fake.group("Cards")
    for user in (alice, bob):
        await harness.command(user, fake.private(user).id, "/start")
    await harness.command(alice, group.id, f"/new {game_id}")
    lobby = fake.last_message(group.id)
    assert lobby is not None
    await harness.press(bob, lobby, "join:1")
    for _ in range(computers):
        await harness.press(alice, lobby, "comps:1")
        await harness.press(alice, lobby, "comp:1:easy")
    await harness.press(alice, lobby, "sets:1")
    for name, value in options.items():
        query = fake.push_callback(alice, group, lobby.message_id, f"opt:1:{name}:{value}")
        answer = await fake.answer(query)
        assert not answer.params.get("text"), answer.params
        await harness.settle()
    await harness.press(alice, lobby, "back:1")
    answer = await harness.press(alice, lobby, "start:1")
    assert not answer.params.get("text"), answer.params
    return alice, bob, lobby


def check_table(session: Session, table: StoredMessage) -> None:
    """The group table as everybody sees it: turn, scores, no hidden card."""
    game = session.game
    assert game is not None
    text = table.text
    assert not shown_cards(text, game.hidden_cards(None)), text
    for score in scores_line(game.scores):
        assert f"<b>{score}</b>" in text, (score, text)
    seat = session.to_move
    if seat is not None:
        player = session.seats[seat]
        who = f"tg://user?id={player.user_id}" if player.user_id else "🤖"
        turn = next(line for line in text.splitlines() if line.startswith("Turn:"))
        assert who in turn, text
        assert text.splitlines()[2 + seat + _header_extra(text)].startswith("▶"), text


def _header_extra(text: str) -> int:
    """Lines between the title and the seats (contract, trumps, multiplier)."""
    lines = text.splitlines()
    return lines.index("") - 1


def check_hand(session: Session, seat: int, message: StoredMessage) -> None:
    """A hand message: exactly the seat's cards, a button per legal action, nothing hidden."""
    game = session.game
    assert game is not None
    view = game.view(seat)
    hand = sort_hand(view["hand"], view.get("trumps"))
    assert t("en", "hand-line", cards=cards(hand, "en")) in message.text, message.text
    assert not shown_cards(message.text, game.hidden_cards(seat)), message.text
    actions = move_actions(message)
    assert len(actions) == len(set(actions))
    assert set(actions) == set(view["legal"]), (actions, view["legal"])
    for button in message.buttons():
        assert len((button.get("callback_data") or "").encode()) <= 64
        assert button["text"].strip()


async def current_hand(
    harness: Harness, user: FakeUser, table: StoredMessage, ephemeral: bool
) -> StoredMessage:
    """The hand message the user reads: private chat, or the ephemeral one from "My hand"."""
    fake = harness.fake
    if not ephemeral:
        found = fake.last_message(user.id, containing="🃏")
        assert found is not None
        return found
    mine = [
        m for m in fake.chat_messages(table.chat_id, ephemeral=True) if m.ephemeral_for == user.id
    ]
    if not mine:
        answer = await harness.press(user, table, "🃏 My hand")
        assert answer.params.get("text") in (None, ""), answer.params
        mine = [
            m
            for m in fake.chat_messages(table.chat_id, ephemeral=True)
            if m.ephemeral_for == user.id
        ]
    assert len(mine) == 1, [m.text for m in mine]
    return mine[0]


def public_sends(harness: Harness, chat_id: int) -> int:
    """Messages sent to the group for everybody (ephemeral ones aside)."""
    return sum(
        1
        for call in harness.fake.calls_of("sendMessage", chat_id)
        if "ephemeral_message_parameters" not in call.params
    )


@pytest.mark.parametrize("game_id", list(TABLES))
async def test_a_first_deal_through_the_bot(harness: Harness, game_id: str) -> None:
    computers, options = TABLES[game_id]
    audited = audit_every_render(harness)
    alice, bob, table = await open_table(harness, game_id, computers, options)
    readers = {alice.id: (alice, False), bob.id: (bob, True)}
    rng = random.Random(game_id)
    sends = public_sends(harness, table.chat_id)
    presses = 0
    while True:
        session = await harness.kol.manager.get(1)
        assert harness.fake.chat_messages(table.chat_id) == [table]
        if session.status != "running" or session.game is None or session.game.deal_no > 0:
            break
        check_table(session, table)
        seat = session.to_move
        assert seat is not None and session.seats[seat].user_id in readers, "a computer stalled"
        # every human's hand, however they opened it — the private chat's message and
        # the ephemeral one from "My hand" — shows their cards and moves after every move
        for other, player in enumerate(session.seats):
            if player.user_id is not None:
                user, _ = readers[player.user_id]
                for ephemeral in (False, True):
                    hand = await current_hand(harness, user, table, ephemeral)
                    check_hand(session, other, hand)
        user, ephemeral = readers[session.seats[seat].user_id or 0]
        hand = await current_hand(harness, user, table, ephemeral)
        action = rng.choice(move_actions(hand))
        answer = await harness.press(user, hand, button_for(hand, action))
        assert answer.params.get("text") in (None, ""), (action, answer.params)
        presses += 1
        assert presses < 400, "the first deal does not end"
    # one table message, edited in place: no message per card
    assert public_sends(harness, table.chat_id) == sends
    assert table.edits >= presses
    assert len(audited) >= presses
    if session.status == "finished":
        assert "🏆" in table.text or "🏁" in table.text
    else:
        check_table(session, table)


async def test_a_stale_hand_button_is_refused_and_changes_nothing(harness: Harness) -> None:
    alice, bob, _ = await open_table(harness, "eleven", 0, {"target": "1"})
    session = await harness.kol.manager.get(1)
    seat = session.to_move
    assert seat is not None
    mover = alice if session.seats[seat].user_id == alice.id else bob
    hand = harness.fake.last_message(mover.id, containing="🃏")
    assert hand is not None
    first, second = move_actions(hand)[:2]
    stale = button_for(hand, second)
    await harness.press(mover, hand, button_for(hand, first))
    before = await harness.kol.manager.get(1)
    chat = harness.fake.chats[hand.chat_id]
    answer = await harness.fake.answer(
        harness.fake.push_callback(mover, chat, hand.message_id, stale)
    )
    assert answer.params["text"] == t("en", "refusal-stale")
    assert await harness.kol.manager.get(1) == before


# --------------------------------------------------------------- rendering review


@dataclass(frozen=True)
class Seat:
    """A seat as the renderer reads it."""

    user_id: int | None
    name: str
    level: str | None


PLAYERS = {"eleven": 2, "fifteen": 2, "two_ten_jack": 3, "rummy": 3, "mau_mau": 4}
OPTIONS: dict[str, dict[str, Any]] = {"king": {"robber": True, "positive": "lottery"}}


def random_views(game_id: str, seed: int, steps: int) -> list[dict[str, Any]]:
    """The mover's view at every decision of a randomly played match (at most ``steps``)."""
    players = PLAYERS.get(game_id, 4)
    game = REGISTRY[game_id].new(players=players, options=OPTIONS.get(game_id, {}), seed=seed)
    rng = random.Random(seed)
    views: list[dict[str, Any]] = []
    while not game.finished and len(views) < steps:
        seat = game.to_move
        assert seat is not None
        views.append(game.view(seat))
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return views


def move_action(data: str) -> str:
    """The action of a move button's data, decoded as the bot decodes it."""
    press = unpack(data)
    assert isinstance(press, Move), data
    return press.action


@pytest.mark.parametrize("game_id", list(TABLES))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_every_legal_action_has_a_clear_button_in_both_languages(game_id: str, seed: int) -> None:
    for view in random_views(game_id, seed, 400):
        seats = [Seat(i + 1, f"P{i}", None) for i in range(view["players"])]
        for lang in LANGS:
            screen = render_hand(1, 7, view, seats, lang, table_text(view, seats, lang))
            assert len(screen.text) <= 4096 and "{" not in screen.text, screen.text
            labels = {move_action(b.data): b.label for row in screen.rows for b in row if b.data}
            if len(view["legal"]) <= 80:  # Rummy keeps only its longest melds past that
                assert set(labels) == set(view["legal"])
            for action, label in labels.items():
                assert (label.strip() and ":" not in label and label != action) or is_card(action)
                assert len(Move(1, 7, action).pack().encode()) <= 64


def first_view(
    game_id: str, options: dict[str, Any], want: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The public view at the first moment ``want`` holds in a randomly played match."""
    game = REGISTRY[game_id].new(players=PLAYERS.get(game_id, 4), options=options, seed=11)
    rng = random.Random(5)
    while not game.finished:
        view = game.view(None)
        if want(view):
            return view
        seat = game.to_move
        assert seat is not None
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    raise AssertionError("the moment never came")


def public_table(view: dict[str, Any], lang: str = "en") -> str:
    """The group table text of a public view."""
    seats = [Seat(i + 1, f"P{i}", None) for i in range(view["players"])]
    return render_table(1, view, seats, lang, None).text


@pytest.mark.parametrize(
    ("contract", "en", "ru"),
    [
        ("no_tricks", "Costs: −20 a trick", "Штрафы: −20 за взятку"),
        ("no_queens", "Costs: −60 a queen", "Штрафы: −60 за даму"),
        ("no_king_of_hearts", "Costs: −150 the K♥", "Штрафы: −150 за К♥"),
        ("lottery", "Prizes: +800 first out, +500 second out", "Призы: +800 первому вышедшему"),
    ],
)
def test_king_table_shows_what_the_contract_costs_or_pays(contract: str, en: str, ru: str) -> None:
    view = first_view("king", OPTIONS["king"], lambda v: v["contract"] == contract)
    assert en in public_table(view, "en")
    assert ru in public_table(view, "ru")


def test_king_trump_deals_pay_per_trick() -> None:
    view = first_view("king", {}, lambda v: v["contract"] == "trump")
    assert "Prizes: +25 a trick" in public_table(view)
    assert "Призы: +25 за взятку" in public_table(view, "ru")


def test_fifteen_table_shows_who_stands() -> None:
    view = first_view("fifteen", {}, lambda v: any(v["stood"]) and not all(v["stood"]))
    stood = view["stood"].index(True)
    lines = public_table(view).splitlines()
    seat_lines = lines[lines.index("") + 1 :][:2]
    assert "· stands ·" in seat_lines[stood] and "stands" not in seat_lines[1 - stood]
    assert "· хватит ·" in public_table(view, "ru")


def test_mau_mau_names_the_suit_only_after_a_jack() -> None:
    jack = first_view(
        "mau_mau", {}, lambda v: v["discard_top"][0] == "J" and v["suit"] != v["discard_top"][1]
    )
    assert f"Suit to follow: {SUIT_SYMBOLS[jack['suit']]}" in public_table(jack)
    plain = first_view("mau_mau", {}, lambda v: v["discard_top"][0] != "J")
    assert "Suit to follow" not in public_table(plain)


def test_oh_hell_bidding_in_the_no_trump_deal_says_so() -> None:
    view = first_view("oh_hell", {}, lambda v: v["phase"] == "bid" and v["trumps"] is None)
    assert "No trumps" in public_table(view) and "Без козырей" in public_table(view, "ru")


async def test_leaving_a_running_game_clears_the_leavers_hand_messages(harness: Harness) -> None:
    _, bob, table = await open_table(harness, "oh_hell", 1, {})
    private = harness.fake.last_message(bob.id, containing="🃏")
    assert private is not None
    ephemeral = await current_hand(harness, bob, table, ephemeral=True)
    assert "Bob" in table.text
    await harness.command(bob, table.chat_id, "/leave")
    note = t("en", "seat-released-left", game="Oh Hell")
    reclaim = [{"text": t("en", "button-reclaim"), "callback_data": "back2:1"}]
    assert private.text == note and private.buttons() == reclaim
    assert ephemeral.text == note and ephemeral.buttons() == reclaim
    session = await harness.kol.manager.get(1)
    assert session.status == "running" and session.seat_of(bob.id) is None
    assert [m.text for m in harness.fake.chat_messages(table.chat_id)][1:] == [t("en", "left")]
    assert "🤖 for Bob" in table.text


def test_the_leak_detector_sees_cards_in_both_languages_but_not_in_summaries() -> None:
    assert shown_cards("On the table: Bob 10♥, Ann Q♠", {"TH", "QS", "KS"}) == {"TH", "QS"}
    assert shown_cards("На столе: Д♠ Т♦", {"QS", "AD", "JD"}) == {"QS", "AD"}
    assert shown_cards("Stock: 10, next card 0♥", {"TH"}) == set()
    summary = t("en", "showdown-won", hands="Ann 7♣ 8♣ (15)", winner="Ann", n=4)
    assert shown_cards(f"{summary}\nOn the table: 9♦", {"7C", "9D"}) == {"9D"}


def test_king_lottery_rows_show_their_ends_once() -> None:
    view = first_view("king", OPTIONS["king"], lambda v: any(v["rows"].values()))
    text = public_table(view)
    for code, row in view["rows"].items():
        if row and row[0] == row[-1]:
            assert f"{SUIT_SYMBOLS[code]} {display(row[0], 'en')}\n" in text + "\n", text
            assert "…" not in next(
                ln for ln in text.splitlines() if ln.startswith(SUIT_SYMBOLS[code])
            )
