"""Seasons on screen: a month's name, and a group's champions' post when a season ends.

The season boards themselves are ``/top``'s drawing (:func:`bot.render.ratings.render_top`
with a month) and the season tally ``/score``'s (:func:`bot.render.result.render_tally`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.render.common import Screen, esc, game_name, screen
from bot.render.text import shown_name
from sessions.months import year_and_month
from sessions.ratings import shown
from sessions.seasons import Champions


def month_text(month: int, lang: str) -> str:
    """A season as players read it: ``December 2026``, ``декабрь 2026``."""
    year, number = year_and_month(month)
    return t(lang, "season-month", month=number, year=str(year))


def render_champions(month: int, champions: Sequence[Champions], lang: str) -> Screen:
    """A group's one post when season ``month`` is over: each game's best there (ties
    named together) with the season rating and how many were rated."""
    lines = [t(lang, "season-post-title", month=month_text(month, lang)), ""]
    for each in champions:
        if not each.best:
            continue
        names = ", ".join(shown_name(row.name) for row in each.best)
        lines.append(t(lang, "season-post-row", game=esc(game_name(each.game_id, lang)),
                       names=names, rating=shown(each.best[0].rating), players=each.players))
    lines += ["", t(lang, "season-post-next")]
    return screen("\n".join(lines))
