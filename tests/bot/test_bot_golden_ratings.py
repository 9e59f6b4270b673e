"""Golden snapshots of the rating and hint screens in both languages (tests/bot/golden/bot_*.txt).

Regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_golden_ratings.py``.
"""

from __future__ import annotations

import os

import pytest

from bot.render.common import Screen, screen
from bot.render.hints import hint_button, hints_button, hints_used_lines
from bot.render.ratings import rating_change_lines, rating_lines, render_top
from bot.render.result import render_result
from sessions import OVERALL, Session
from storage import Rating, RatingChange, RatingRow
from tests.support.golden_screens import GOLDEN, SEATS, snapshot

CHAT = -100
CHANGES = [
    RatingChange(5, CHAT, 11, "king", Rating(25.0, 8.3), Rating(27.9, 7.9, 1, 1)),
    RatingChange(5, CHAT, 12, "king", Rating(40.0, 3.0, 41, 20), Rating(39.2, 2.9, 42, 20)),
    RatingChange(5, OVERALL, 11, "king", Rating(30.0, 5.0), Rating(31.0, 4.9, 1, 1)),
]
ROWS = [
    RatingRow(12, "Bob & <Co>", "king", Rating(39.2, 2.9, 42, 20), 1, 3),
    RatingRow(11, "Алиса", "king", Rating(27.9, 7.9, 1, 1), 2, 3),
    RatingRow(13, "Cy", "king", Rating(27.9, 7.9, 2, 0), 2, 3),
    RatingRow(11, "Алиса", "mau_mau", Rating(20.0, 6.0, 21, 4), 1, 1),
]


def screens(lang: str) -> dict[str, Screen]:
    """The rating screens of one made-up chat."""
    ratings = rating_change_lines(CHANGES, SEATS, CHAT, lang)
    result = {"scores": [440, -420, -110, 90], "winners": [0]}
    finished = Session(5, CHAT, "group", "king", "finished", 11, SEATS, {}, None, 9, None, None,
                       result, 0.0, hints=True, hints_used=(2, 0, 0, 0))
    notes = [*ratings, *hints_used_lines(finished, lang)]
    return {
        "result_rated": render_result(5, "king", result, SEATS, lang, notes=notes),
        "hint_buttons": screen("💡", [[hint_button(5, lang)], [hints_button(5, False, lang)]]),
        "top": render_top(ROWS, CHAT, None, lang),
        "top_game": render_top(ROWS[:3], OVERALL, "king", lang),
        "stats_ratings": screen("\n".join(rating_lines([ROWS[1], ROWS[3]], lang))),
    }


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize(
    "name", ["result_rated", "hint_buttons", "top", "top_game", "stats_ratings"]
)
def test_golden_rating_screen(name: str, lang: str) -> None:
    text = snapshot(screens(lang)[name])
    path = GOLDEN / f"bot_{name}_{lang}.txt"
    if os.environ.get("KOLODA_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
