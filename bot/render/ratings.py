"""Ratings on screen: the /top leaderboard, /stats, and the result's rating changes.

Pure drawing from stored rating rows (``sessions.RatingRow``). The number shown
is :func:`sessions.ratings.shown` of the stored (mu, sigma).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from bot.i18n import t
from bot.render.common import Screen, SeatLike, esc, game_name, screen, seat_name
from bot.render.text import shown_name
from sessions import OVERALL, RatingChange, RatingRow
from sessions.ratings import shown

#: Rows of /top for one game, and per game when /top names none.
TOP_ONE_GAME = 10
TOP_EACH_GAME = 3


def rating_change_lines(
    changes: Sequence[RatingChange], seats: Sequence[SeatLike], scope: int, lang: str
) -> list[str]:
    """"Alice 1,512 → 1,538" for each human of a finished match, in seat order, in
    ``scope`` (the group chat's ratings, or overall for a private duel)."""
    by_user = {c.user_id: c for c in changes if c.scope == scope}
    lines = []
    for seat in seats:
        change = by_user.get(seat.user_id) if seat.user_id is not None else None
        if change is not None:
            lines.append(
                t(
                    lang,
                    "result-rating",
                    name=seat_name(seat, lang),
                    before=shown(change.before),
                    after=shown(change.after),
                )
            )
    return [t(lang, "result-ratings"), *lines] if lines else []


def render_top(
    rows: Sequence[RatingRow], scope: int, game_id: str | None, lang: str,
    season: str | None = None,
) -> Screen:
    """/top [game]: a chat's leaderboard (or the overall one), best first per game;
    with ``season`` (the month, as :func:`bot.render.seasons.month_text` shows it), that
    season's (/top season [game])."""
    where = "overall" if scope == OVERALL else "chat"
    key = f"top-title-{where}" + ("-game" if game_id is not None else "")
    game = esc(game_name(game_id, lang)) if game_id is not None else ""
    if season is None:
        lines = [t(lang, key, game=game), ""]
    else:
        lines = [t(lang, key + "-season", game=game, month=season),
                 t(lang, "top-season-note"), ""]
    if not rows:
        lines.append(t(lang, "top-empty"))
    most = TOP_ONE_GAME if game_id is not None else TOP_EACH_GAME
    for game, group in groupby(rows, key=lambda row: row.game_id):
        if game_id is None:
            lines.append(f"<b>{esc(game_name(game, lang))}</b>")
        for row in list(group)[:most]:
            lines.append(
                t(
                    lang,
                    "top-row",
                    place=row.rank,
                    name=shown_name(row.name),
                    rating=shown(row.rating),
                    played=row.rating.played,
                    wins=row.rating.wins,
                )
            )
        if game_id is None:
            lines.append("")
    return screen("\n".join(lines).rstrip())


def rating_lines(rows: Sequence[RatingRow], lang: str) -> list[str]:
    """/stats: the user's overall rating and rank in each game they were rated in."""
    if not rows:
        return []
    lines = ["", t(lang, "stats-ratings")]
    for row in rows:
        lines.append(
            t(
                lang,
                "stats-rating-row",
                game=esc(game_name(row.game_id, lang)),
                rating=shown(row.rating),
                rank=row.rank,
                of=row.of,
            )
        )
    return lines
