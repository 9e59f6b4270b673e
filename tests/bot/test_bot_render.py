"""Rendering: pure functions from views to text and buttons, within Telegram's limits."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.callback import MAX_BYTES, Move, unpack
from bot.render.common import MAX_BUTTONS, MAX_TEXT, Screen, action_label, cards_in
from bot.render.lobby import next_value, render_lobby, render_settings
from bot.render.result import render_result
from bot.render.table import render_hand, render_table, table_text
from games import REGISTRY
from sessions import Player
from tests.support.fake_telegram import parse_html, utf16_length

# The biggest tables each game allows, with options that make hands longest.
LARGEST: list[tuple[str, int, dict[str, Any]]] = [
    ("eleven", 2, {}),
    ("two_ten_jack", 4, {}),
    ("fifteen", 2, {}),
    ("rummy", 6, {}),
    ("rummy", 2, {}),  # ten-card hands: the most melds to offer
    ("mau_mau", 5, {"deck": 52, "hand_size": 7}),
    ("oh_hell", 7, {}),
    ("oh_hell", 3, {}),  # 17 cards each in the last deal
    ("king", 3, {"positive": "lottery"}),  # 17-card hands
    ("king", 4, {"robber": True}),
]
LONG_NAME = "<Ё>&" * 16  # 64 characters, Telegram's longest first name, all needing escapes


def seats(count: int) -> list[Player]:
    """Humans with the longest, nastiest names, and one computer."""
    humans = [Player(1000 + i, f"{LONG_NAME[:60]}{i:02d}", None) for i in range(count - 1)]
    return [*humans, Player(None, "Computer (strong)", "strong")]


def check(screen: Screen) -> None:
    """Telegram's limits: text (valid HTML, counted after parsing), button data, number
    of buttons."""
    assert 0 < utf16_length(parse_html(screen.text)) <= MAX_TEXT
    buttons = [b for row in screen.rows for b in row]
    assert len(buttons) <= MAX_BUTTONS
    for button in buttons:
        assert button.label
        assert button.data is None or len(button.data.encode()) <= MAX_BYTES
        if button.data is not None:
            unpack(button.data)  # every button we draw decodes
    assert "<Ё>" not in screen.text  # user names are always escaped


def play_and_render(
    game_id: str, players: int, options: dict[str, Any], seed: int, steps: int
) -> int:
    """Random legal play, rendering every table and hand on the way; returns screens checked."""
    game = REGISTRY[game_id].new(players, options, seed=seed)
    rng = random.Random(seed)
    people = seats(players)
    checked = 0
    for step in range(steps):
        if game.finished:
            break
        seat = game.to_move
        assert seat is not None
        lang = "ru" if step % 2 else "en"
        check(render_table(7, game.view(None), people, lang, "https://t.me/b?start=h7"))
        view = game.view(seat)
        hand = render_hand(7, step + 1, view, people, lang, table_text(view, people, lang))
        check(hand)
        moves = [unpack(b.data) for row in hand.rows for b in row if b.data]
        legal = set(game.legal_actions(seat))
        assert {m.action for m in moves if isinstance(m, Move)} <= legal
        checked += 2
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    if game.finished:
        assert game.result is not None
        check(render_result(7, game_id, game.result, people, "ru"))
    return checked


@pytest.mark.parametrize(("game_id", "players", "options"), LARGEST)
def test_every_screen_fits_telegram(game_id: str, players: int, options: dict[str, Any]) -> None:
    assert play_and_render(game_id, players, options, seed=11, steps=400) > 50


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), index=st.integers(0, len(LARGEST) - 1))
def test_random_games_fit_telegram(seed: int, index: int) -> None:
    game_id, players, options = LARGEST[index]
    play_and_render(game_id, players, options, seed, steps=150)


def test_king_17_card_hand_offers_every_card() -> None:
    game = REGISTRY["king"].new(3, {}, seed=5)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    assert len(view["hand"]) == 17
    hand = render_hand(3, 9, view, seats(3), "ru", table_text(view, seats(3), "ru"))
    labels = [b.label for row in hand.rows for b in row]
    assert len(labels) == len(view["legal"])
    assert "Т♠" in hand.text or "Т" in "".join(labels)


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_lobby_and_settings_render_every_option(game_id: str) -> None:
    game = REGISTRY[game_id]
    options = game.validate_options(game.min_players, {})
    for lang in ("en", "ru"):
        lobby = render_lobby(
            3,
            game_id,
            "group",
            seats(2),
            game.max_players,
            game.options_schema,
            options,
            None,
            lang,
        )
        check(lobby)
        menu = render_settings(3, game_id, game.options_schema, options, 300, lang)
        check(menu)
        for option in game.options_schema:
            assert f"option-{option.name}" not in menu.text  # every option has a name
        assert len(menu.rows) == len(game.options_schema) + 2


def test_settings_buttons_cycle_through_choices() -> None:
    king = {o.name: o for o in REGISTRY["king"].options_schema}
    assert next_value(king["positive"], "trump") == "lottery"
    assert next_value(king["positive"], "lottery") == "trump"
    assert next_value(king["robber"], False) is True
    eleven = {o.name: o for o in REGISTRY["eleven"].options_schema}
    assert next_value(eleven["target"], 10) == 3


@pytest.mark.parametrize(
    ("action", "en", "ru"),
    [
        ("QS", "Q♠", "Д♠"),
        ("TH", "10♥", "10♥"),
        ("AC", "A♣", "Т♣"),
        ("JD", "J♦", "В♦"),
        ("KH", "K♥", "К♥"),
        ("bid:3", "Bid 3", "Заказ 3"),
        ("trump:H", "Trumps ♥", "Козыри ♥"),
        ("AS:trump", "A♠ as trump", "Т♠ как козырь"),
        ("JH:S", "J♥ → ♠", "В♥ → ♠"),
        ("set:7:SHD", "Set 7♠ 7♥ 7♦", "Набор 7♠ 7♥ 7♦"),
        ("run:H:T-K", "Run 10♥–K♥", "Ряд 10♥–К♥"),
        ("lay:8H:2", "8♥ → meld 3", "8♥ → к 3"),
        ("draw", "Draw", "Взять"),
        ("pass", "Pass", "Пас"),
        ("stand", "Stand", "Хватит"),
    ],
)
def test_action_labels(action: str, en: str, ru: str) -> None:
    assert action_label(action, "en") == en
    assert action_label(action, "ru") == ru


def test_cards_in_text() -> None:
    assert cards_in("meld:7H8H9H", "ru") == "meld:7♥8♥9♥"


def test_table_message_shows_contract_turn_and_last_trick_in_both_languages() -> None:
    game = REGISTRY["king"].new(4, {}, seed=2, dealer=3)
    people = [Player(1000 + i, f"P{i}", None) for i in range(4)]
    for _ in range(5):  # one full trick and a lead
        seat = game.to_move
        assert seat is not None
        game.apply(seat, game.legal_actions(seat)[0])
    en = render_table(1, game.view(None), people, "en", None).text
    ru = render_table(1, game.view(None), people, "ru", None).text
    assert "Contract: <b>No tricks</b>" in en and "Игра: <b>Не брать взяток</b>" in ru
    assert "Last trick:" in en and "Прошлая взятка:" in ru
    assert "On the table:" in en and "На столе:" in ru
    assert "1 trick" in en and "1 взятка" in ru
    assert "13 cards" in en or "12 cards" in en
    assert '<a href="tg://user?id=' in en  # the player to move is mentioned


def test_fifteen_turn_line_offers_draw_or_stand() -> None:
    game = REGISTRY["fifteen"].new(2, {}, seed=4)
    people = [Player(1000 + i, f"P{i}", None) for i in range(2)]
    en = render_table(1, game.view(None), people, "en", None).text
    ru = render_table(1, game.view(None), people, "ru", None).text
    assert "(draw or stand)" in en and "(взять или хватит)" in ru


def test_oh_hell_table_sums_the_bids_against_the_deal_size() -> None:
    game = REGISTRY["oh_hell"].new(3, {}, seed=4, dealer=0)
    people = [Player(1000 + i, f"P{i}", None) for i in range(3)]
    game.apply(1, "bid:1")  # deal 1: one card each, bidding from the dealer's left
    en = render_table(1, game.view(None), people, "en", None).text
    ru = render_table(1, game.view(None), people, "ru", None).text
    assert "Bids: 1 for 1 trick" in en and "Заявки: 1 из 1 взятки" in ru
    game.apply(2, "bid:0")
    game.apply(0, "bid:1")
    ru = render_table(1, game.view(None), people, "ru", None).text
    assert "Заявки: 2 из 1 взятки" in ru


def test_result_lists_winner_first() -> None:
    people = seats(3)
    screen = render_result(4, "oh_hell", {"scores": [12, 40, -3], "winners": [1]}, people, "en")
    lines = screen.text.splitlines()
    assert lines[2].startswith("1. ") and "40 🏆" in lines[2]
    assert "−3" in lines[4]
    data = [b.data for row in screen.rows for b in row]
    assert data == ["again:4", "score:4"]
