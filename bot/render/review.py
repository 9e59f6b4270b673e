"""📈 Review after a deal on screen: the button on a deal's record, and the review.

Pure drawing of :class:`sessions.review.DealReview`: one line per decision that
cost points (where, mistake or blunder, the move played, the move the computer
would have played, the estimated cost), or "no mistakes"; the thresholds of the
game. Only the reviewing seat's own moves are named — the record shows the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.callback import ReviewButton
from bot.i18n import t
from bot.render.common import (
    Button,
    Screen,
    SeatLike,
    action_label,
    esc,
    game_name,
    screen,
    seat_name,
)
from games.ai.review import THRESHOLDS
from sessions.review import DealReview


def review_button(session: int, deal_no: int, lang: str) -> Button:
    """📈 Review: the presser's decisions in finished deal ``deal_no`` (0 first)."""
    return Button(t(lang, "button-review"), ReviewButton(session, deal_no).pack())


def points(value: float, lang: str) -> str:
    """A number of points with one decimal at most, written the language's way."""
    shown = f"{value:.1f}".removesuffix(".0")
    return shown.replace(".", ",") if lang == "ru" else shown


def render_review(review: DealReview, seats: Sequence[SeatLike], lang: str) -> Screen:
    """The review of one seat's decisions in one finished deal."""
    mistake, blunder = THRESHOLDS[review.game_id]
    lines = [
        t(lang, "review-title", n=review.deal_no + 1, game=esc(game_name(review.game_id, lang)),
          name=seat_name(seats[review.seat], lang)),
        "",
    ]
    if not review.decisions:
        lines.append(t(lang, "review-nothing"))
        return screen("\n".join(lines))
    lines.append(t(lang, "review-summary", decisions=review.decisions))
    for found in review.findings:
        where = (
            t(lang, "review-at-trick", trick=found.trick)
            if found.trick and not found.chosen.startswith(("bid:", "trump:"))
            else t(lang, "review-at-decision", n=found.number)
        )
        lines.append(t(
            lang, "review-row", where=where, grade=t(lang, f"review-{found.grade}"),
            played=action_label(found.chosen, lang), best=action_label(found.best, lang),
            cost=points(found.cost, lang),
        ))
    if not review.findings:
        lines.append(t(lang, "review-none", mistake=points(mistake, lang)))
    if review.unjudged:
        lines.append(t(lang, "review-unjudged", count=review.unjudged))
    lines += ["", t(lang, "review-thresholds", mistake=points(mistake, lang),
                    blunder=points(blunder, lang), worlds=review.worlds)]
    return screen("\n".join(lines))
