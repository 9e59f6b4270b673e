"""Golden snapshots of the key messages in both languages (tests/bot/golden/bot_*.txt).

A seeded game is rendered as a person would see it: the text, then one line
per button row. Regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_golden.py`` and read
the diff.
"""

from __future__ import annotations

import os

import pytest

from bot.render.common import Screen
from bot.render.lobby import render_lobby, render_settings
from bot.render.result import render_result
from bot.render.table import render_hand, render_table
from games import REGISTRY
from games.verify import short_hash
from sessions import Player
from tests.support.golden_screens import GOLDEN, SEATS, snapshot

STOOD_IN = [SEATS[0], Player(None, "Bob & <Co>", "normal", stands_in_for=12), *SEATS[2:]]


def screens(lang: str) -> dict[str, Screen]:
    """The key messages of one seeded King match."""
    king = REGISTRY["king"]
    options = king.validate_options(4, {})
    game = king.new(4, options, seed=2026, dealer=3)
    for _ in range(6):  # a trick and a half
        seat = game.to_move
        assert seat is not None
        game.apply(seat, game.legal_actions(seat)[0])
    seat = game.to_move
    assert seat is not None
    return {
        "lobby": render_lobby(
            5, "king", "group", SEATS[:3], 4, king.options_schema, options, 300, lang
        ),
        "settings": render_settings(5, "king", king.options_schema, options, 300, lang),
        "table": render_table(
            5, game.view(None), SEATS, lang, "https://t.me/koloda_bot?start=h5",
            seal=short_hash(2026),
        ),
        "hand": render_hand(5, 42, game.view(seat), SEATS, lang),
        "result": render_result(
            5, "king", {"scores": [440, -420, -110, 90], "winners": [0]}, SEATS, lang
        ),
        # a computer plays for Bob, who left
        "table_stand_in": render_table(5, game.view(None), STOOD_IN, lang, None),
        # the lowest total wins
        "result_mau_mau": render_result(
            6, "mau_mau", {"scores": [159, 128, 131], "winners": [1]}, SEATS[:3], lang,
            lowest_wins=True,
        ),
    }


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize(
    "name",
    ["lobby", "settings", "table", "hand", "result", "table_stand_in", "result_mau_mau"],
)
def test_golden_message(name: str, lang: str) -> None:
    text = snapshot(screens(lang)[name])
    path = GOLDEN / f"bot_{name}_{lang}.txt"
    if os.environ.get("KOLODA_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
