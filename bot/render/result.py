"""The end of a match, the game menu, rules, and the score tally."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.callback import Again, NewGame, Rules, Score
from bot.i18n import t
from bot.render.common import (
    Button,
    Screen,
    SeatLike,
    esc,
    game_name,
    grid,
    scores_line,
    screen,
    seat_name,
)
from bot.render.lobby import settings_lines
from bot.render.text import shown_name
from games.base import Option


class TallyLike(Protocol):
    """A row of the score tally (``sessions.TallyRow`` satisfies it)."""

    @property
    def name(self) -> str: ...

    @property
    def game_id(self) -> str: ...

    @property
    def played(self) -> int: ...

    @property
    def wins(self) -> int: ...

    @property
    def points(self) -> float: ...


def render_result(
    session: int,
    game_id: str,
    result: dict[str, Any],
    seats: Sequence[SeatLike],
    lang: str,
    cancelled: bool = False,
    lowest_wins: bool = False,
    notes: Sequence[str] = (),
) -> Screen:
    """Final scores best first (the lowest first where ``lowest_wins``), the winners,
    the ``notes`` (rating changes from :func:`bot.render.ratings.rating_change_lines`,
    hints used), and "Play again" / "Show score"."""
    title = "result-cancelled" if cancelled else "result-title"
    lines = [t(lang, title, game=esc(game_name(game_id, lang))), ""]
    scores = list(result.get("scores") or [])  # none: cancelled before the deal
    winners = set(result.get("winners") or [])
    order = sorted(range(len(scores)), key=lambda s: scores[s], reverse=not lowest_wins)
    for place, seat in enumerate(order, start=1):
        cup = " 🏆" if seat in winners else ""
        lines.append(
            f"{place}. {seat_name(seats[seat], lang)} — {scores_line([scores[seat]])[0]}{cup}"
        )
    if winners and not cancelled:
        names = ", ".join(seat_name(seats[s], lang) for s in sorted(winners))
        lines += ["", t(lang, "result-winners", names=names, n=len(winners))]
        lines.append(t(lang, "result-tally"))
    if notes and not cancelled:
        lines += ["", *notes]
    if cancelled:
        return screen("\n".join(lines))
    again = Button(t(lang, "button-again"), Again(session).pack())
    score = Button(t(lang, "button-score"), Score(session).pack())
    return screen("\n".join(lines), [[again, score]])


def render_game_menu(game_ids: Sequence[str], lang: str, *, unknown: bool = False) -> Screen:
    """/new without a game (or with one we do not know): one button per game."""
    buttons = [Button(game_name(g, lang), NewGame(0, g).pack()) for g in game_ids]
    title = t(lang, "menu-unknown") if unknown else t(lang, "menu-title")
    return screen(title, grid(buttons, 2))


def render_rules_menu(game_ids: Sequence[str], lang: str, *, unknown: bool = False) -> Screen:
    """/rules without a game (or with one we do not know): one button per game."""
    buttons = [Button(game_name(g, lang), Rules(0, g).pack()) for g in game_ids]
    title = t(lang, "rules-unknown") if unknown else t(lang, "rules-menu")
    return screen(title, grid(buttons, 2))


def render_rules(
    game_id: str,
    schema: Sequence[Option],
    options: dict[str, Any],
    timer: int | None,
    players: str,
    lang: str,
) -> Screen:
    """/rules <game>: the concise rules and the table's options."""
    lines = [
        f"📖 <b>{esc(game_name(game_id, lang))}</b> · {t(lang, 'rules-players', n=players)}",
        "",
        t(lang, f"rules-{game_id}"),
        "",
        t(lang, "lobby-settings"),
        *settings_lines(game_id, schema, options, timer, lang),
    ]
    return screen("\n".join(lines))


def _number(value: float) -> int | float:
    """Whole points without a trailing .0."""
    return int(value) if float(value).is_integer() else round(value, 1)


def render_tally(title: str, rows: Sequence[TallyLike], lang: str, show: str) -> Screen:
    """A score tally, best first: wins, games played, points.

    ``show`` names each row by ``"name"`` (one game's tally), ``"game"`` (one
    player's stats) or ``"both"`` (a chat's tally over every game).
    """
    lines = [title, ""]
    if not rows:
        lines.append(t(lang, "tally-empty"))
    for place, row in enumerate(rows, start=1):
        game = esc(game_name(row.game_id, lang))
        name = shown_name(row.name)
        who = {"name": name, "game": game}.get(show, f"{name} · {game}")
        points = scores_line([_number(row.points)])[0]
        lines.append(
            t(
                lang,
                "tally-row",
                place=place,
                who=who,
                wins=row.wins,
                played=row.played,
                points=points,
            )
        )
    return screen("\n".join(lines))
