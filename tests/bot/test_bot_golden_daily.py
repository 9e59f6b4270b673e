"""Golden snapshots of the daily deal's screens in both languages (tests/bot/golden/bot_*.txt).

Regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_golden_daily.py``.
"""

from __future__ import annotations

import pytest

from bot.render.common import Screen, screen
from bot.render.daily import (
    render_board,
    render_daily_menu,
    render_daily_start,
    render_post,
    render_standing,
    streak_line,
)
from games import REGISTRY
from sessions.daily import DAY, GroupPlace, Standing, Streak, day_start
from storage import DailyRow
from tests.support.golden_screens import check_golden

TODAY = 20_791  # 2026-12-04
ANN = DailyRow(11, "Алиса", 3.0, 3.0, 1)
BOB = DailyRow(12, "Bob & <Co>", 3.0, 3.0, 1)
CY = DailyRow(13, "Cy", 1.0, 1.0, 3)
STANDING = Standing(TODAY, "eleven", 5, 1.0, place=3, of=41,
                    groups=(GroupPlace(-100, 3, 3), GroupPlace(-200, 1, 2)), best=ANN)
NOW = day_start(TODAY) + 15 * 3600 + 25 * 60


def screens(lang: str) -> dict[str, Screen]:
    """The daily deal's screens of a made-up day."""
    return {
        "daily_menu": render_daily_menu(list(REGISTRY), lang),
        "daily_start": render_daily_start("eleven", TODAY, "8d641910", lang),
        "daily_start_fifteen": render_daily_start("fifteen", TODAY, "0badf00d", lang),
        "daily_standing": render_standing(STANDING, lang),
        "daily_played": render_standing(STANDING, lang, again=True, now=NOW),
        "daily_played_unfinished": render_standing(
            Standing(TODAY, "king", 6, None), lang, again=True, now=NOW
        ),
        "daily_board": render_board(
            TODAY, [("eleven", [ANN, BOB, CY]), ("mau_mau", [DailyRow(12, "Bob", 0.0, 0.0, 1)])],
            lang, group=True,
        ),
        "daily_board_empty": render_board(TODAY, [("king", [])], lang, group=False),
        "daily_post": render_post(
            TODAY - 1, [("eleven", [ANN, BOB], 3), ("king", [CY], 1)], lang
        ),
        "daily_streak": screen("\n".join([streak_line(Streak(3, 7), lang),
                                          streak_line(Streak(1, 1), lang)])),
    }


NAMES = sorted(screens("en"))


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", NAMES)
def test_golden_daily_screen(name: str, lang: str) -> None:
    check_golden(f"{name}_{lang}", screens(lang)[name])


def test_the_day_is_the_utc_date() -> None:
    assert day_start(TODAY) == TODAY * DAY
    assert "2026-12-04" in render_daily_start("eleven", TODAY, "x", "en").text
