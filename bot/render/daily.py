"""The daily deal's screens: its menu, its start, a player's standing, the boards and
a group's post when a day's boards close. Pure drawings of what the session layer
returns."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from bot.callback import DailyGame
from bot.i18n import t
from bot.render.common import Button, Screen, esc, game_name, grid, scores_line, screen
from bot.render.text import shown_name
from sessions.daily import DAILY_OPTIONS, WHOLE_MATCH, Standing, Streak, day_start
from storage import DailyRow


def day_text(day: int) -> str:
    """A day as players read it: its UTC date, ``2026-12-04``."""
    return datetime.datetime.fromtimestamp(day_start(day), datetime.UTC).date().isoformat()


def _points(value: float) -> str:
    whole: int | float = int(value) if float(value).is_integer() else round(value, 1)
    return scores_line([whole])[0]


def render_daily_menu(game_ids: Sequence[str], lang: str) -> Screen:
    """/daily without a game: one button per game."""
    buttons = [Button(game_name(g, lang), DailyGame(0, g).pack()) for g in game_ids]
    return screen(t(lang, "daily-menu"), grid(buttons, 2))


def render_daily_start(game_id: str, day: int, seal: str, lang: str) -> Screen:
    """What a player is told as the day's deal is dealt: what it is, and its seal."""
    if game_id in WHOLE_MATCH:
        deals = DAILY_OPTIONS.get(game_id, {}).get("deals", 1)
        what = t(lang, "daily-what-match", deals=deals)
    else:
        what = t(lang, "daily-what-deal")
    lines = [
        t(lang, "daily-title", game=esc(game_name(game_id, lang)), date=day_text(day)),
        t(lang, "daily-start", what=what),
        t(lang, "daily-seal", hash=seal),
    ]
    return screen("\n".join(lines))


def standing_lines(standing: Standing, lang: str) -> list[str]:
    """A play's score and places now: overall, in each of the player's groups, and the
    day's best."""
    if standing.points is None:
        return [t(lang, "daily-unfinished")]
    lines = [
        t(lang, "daily-score", points=_points(standing.points)),
        t(lang, "daily-place", place=standing.place, of=standing.of),
    ]
    if standing.groups:
        places = ", ".join(t(lang, "daily-group-place", place=g.place, of=g.of)
                           for g in standing.groups)
        lines.append(t(lang, "daily-groups", places=places))
    if standing.best is not None:
        lines.append(t(lang, "daily-best", name=shown_name(standing.best.name),
                       points=_points(standing.best.points)))
    return lines


def render_standing(
    standing: Standing, lang: str, *, again: bool = False, now: float | None = None
) -> Screen:
    """A player's result on the day's board (``again``: the answer to a second /daily the
    same day, with when the next deal comes)."""
    lines = [t(lang, "daily-title", game=esc(game_name(standing.game_id, lang)),
               date=day_text(standing.day))]
    if again:
        lines.append(t(lang, "daily-played"))
    lines += standing_lines(standing, lang)
    if again and now is not None:
        left = max(int(day_start(standing.day + 1) - now), 0)
        lines += ["", t(lang, "daily-next", hours=left // 3600, minutes=left % 3600 // 60)]
    return screen("\n".join(lines))


def render_board(
    day: int, boards: Sequence[tuple[str, Sequence[DailyRow]]], lang: str, *, group: bool
) -> Screen:
    """``/daily top``: the best plays of each game's deal of ``day`` (a group's members,
    or everybody's), places shared by ties."""
    title = "daily-board-title" if group else "daily-board-title-all"
    lines = [t(lang, title, date=day_text(day))]
    shown = [(game, rows) for game, rows in boards if rows]
    if not shown:
        lines += ["", t(lang, "daily-board-empty")]
    for game, rows in shown:
        lines += ["", t(lang, "daily-board-game", game=esc(game_name(game, lang)))]
        lines += [t(lang, "daily-board-row", place=row.place, name=shown_name(row.name),
                    points=_points(row.points)) for row in rows]
    lines += ["", t(lang, "daily-board-closes")]
    return screen("\n".join(lines))


def render_post(
    day: int, winners: Sequence[tuple[str, Sequence[DailyRow], int]], lang: str
) -> Screen:
    """A group's one post when ``day``'s boards close: each game's best among its members
    (ties named together) and how many of them played."""
    lines = [t(lang, "daily-post-title", date=day_text(day))]
    for game, best, players in winners:
        names = ", ".join(shown_name(row.name) for row in best)
        lines.append(t(lang, "daily-post-row", game=esc(game_name(game, lang)), names=names,
                       points=_points(best[0].points), players=players))
    return screen("\n".join(lines))


def streak_line(streak: Streak, lang: str) -> str:
    """/stats: the run of days with a daily deal played."""
    return t(lang, "daily-streak", current=streak.current, best=streak.best)

