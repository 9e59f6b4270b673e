"""Eleven: take 11 of the 20 figures (A K Q J 10).

Easy: lead a master card (one no card left out can beat), else the lowest card
of the longest suit; following, win the trick if it holds a figure or can be
won without spending one, otherwise duck with the lowest non-figure. The
search scores a deal by its points and, as a tie-break, the figures taken; it
never weighs throwing a figure onto a lost trick when a blank would do.

Normal and strong *infer* from the opponent's lead (``games.ai.inference``):
a world in which the rule of thumb, holding his hand there, would have led
another card is less likely (:func:`play_weight`) — a low lead says he holds
no master. Only the trick on the table tells: after every trick both draw
face down from the stock, and once it is gone the seat sees every card.

Strong's tree search gives the rule of thumb's card no head start at the
root (``Playbook.strong_prior_bonus``): with it strong was level with a
plain IS-MCTS, without it ahead (docs/computer-players.md). What the head
start did at a small budget, the shortlist does for every level: no figure
onto a trick it cannot win, no dearer winner than need be. Normal, with a
fifth of the samples, keeps the head start.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.ai import compact_eleven, inference, play_inference
from games.ai.compact import card_space
from games.ai.ismcts import Space
from games.ai.playbook import Playbook, policy_rollout, random_rollout, score_margin
from games.ai.trickplay import TrickSpot, lead_strong, played_cards, take_if_worth
from games.base import Event, Game, View
from games.cards import strength
from games.eleven import HAND_SIZE, is_figure

#: Figures count this much beside the match points in a playout's outcome.
FIGURE_WEIGHT = 0.05


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb card for the seat to move."""
    legal: list[str] = view["legal"]
    spot = TrickSpot(view["trick"], players=2)
    if spot.leading:
        played = played_cards(view["history"], [])
        return lead_strong(legal, view["hand"], None, played)
    return take_if_worth(spot, legal, _pays, _figure_value)


def shortlist(view: View, easy_choice: str) -> list[str]:
    """What the search weighs: every card but a figure thrown onto a trick it
    cannot win while a blank card would lose it as well — that only hands the
    opponent the figure —, and but a winner dearer than another of its kind
    (both figures or both blanks; the winners all follow the suit led): the
    cheapest takes the same cards and keeps the higher one for later."""
    legal: list[str] = view["legal"]
    spot = TrickSpot(view["trick"], players=2)
    if spot.leading:
        return legal
    winners = [c for c in legal if spot.wins(c)]
    losing = [c for c in legal if c not in winners]
    blank_loses = any(not is_figure(c) for c in losing)
    return [
        c
        for c in legal
        if (c in winners and not _dearer(c, winners))
        or (c in losing and not (blank_loses and is_figure(c)))
    ]


def _dearer(card: str, winners: list[str]) -> bool:
    """True if a lower winner of the same kind (figure or blank) would do."""
    return any(
        is_figure(other) == is_figure(card) and strength(other) < strength(card)
        for other in winners
    )


def _pays(on_table: list[str], card: str) -> bool:
    return any(is_figure(c) for c in on_table) or not is_figure(card)


def _figure_value(card: str) -> float:
    return 1.0 if is_figure(card) else 0.0


def outcome(start: Game, end: Game, events: list[Event], seat: int) -> float:
    """Points margin of the deal, plus a little for the figures margin."""
    margin = score_margin(start, end, events, seat)
    for event in events:
        if event["type"] == "deal_end":
            figures = event["figures"]
            margin += FIGURE_WEIGHT * (figures[seat] - figures[1 - seat])
    return margin


#: In the tree search figures weigh more: they are the dense signal the deal's
#: coarse points (1 for 11-13 figures) are made of.
TREE_FIGURE_WEIGHT = 0.2


def rewards(start: Game, end: Game, events: list[Event]) -> list[float]:
    """Both seats' points margin plus :data:`TREE_FIGURE_WEIGHT` per figure of margin."""
    margin = score_margin(start, end, events, 0)
    for event in events:
        if event["type"] == "deal_end":
            return _with_figures(margin, event["figures"])
    return [margin, -margin]


def compact_rewards(start: Any, end: Any, events: list[Event]) -> list[float]:
    """:func:`rewards` for a finished deal on the compact state."""
    points = compact_eleven.deal_scores(end)
    return _with_figures(float(points[0] - points[1]), end.scores)


def _with_figures(margin: float, figures: list[int]) -> list[float]:
    margin += TREE_FIGURE_WEIGHT * (figures[0] - figures[1])
    return [margin, -margin]


def play_weight(view: View) -> Callable[[compact_eleven.CompactEleven], float] | None:
    """How likely a world makes the opponent's lead on the table, by the rule of
    thumb (``games.ai.play_inference``); None when he has not led to this
    trick, or once the stock is gone (every unseen card is then his)."""
    if not view["stock"]:
        return None
    first, plays = play_inference.plays_since_draw(view, HAND_SIZE)
    start = compact_eleven.from_view(
        {**view, "history": view["history"][:first], "trick": []}, [[], []], []
    )
    return play_inference.replay_weight(
        start, plays, int(view["seat"]), compact_eleven.easy_rollout
    )


def search_worlds(
    view: View,
) -> compact_eleven.Sampler | inference.Weighted[compact_eleven.CompactEleven]:
    """The compact worlds the search levels draw at ``view``: weighed by the
    play since the last draw (:func:`play_weight`) while inference from the
    play is on (``play_inference.since_draw_worlds``)."""
    return play_inference.since_draw_worlds(compact_eleven.Sampler(view), play_weight, view)


def compact_space(view: View) -> Space:
    """The compact bit-set state for searching the play (:func:`search_worlds`)."""
    return card_space(search_worlds(view), compact_eleven.easy_rollout, compact_rewards)


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=policy_rollout(easy, ("trick", "history")),
    outcome=outcome,
    shortlist=shortlist,
    tree=True,
    rewards=rewards,
    compact=compact_space,
    worlds=search_worlds,
    endgame=4,
    strong_prior_bonus=0.0,
)
