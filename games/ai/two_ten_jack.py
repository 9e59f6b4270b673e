"""Two-Ten-Jack: hearts are trumps, the A♠ beats everything; cards carry points.

Easy: win a trick cheaply when the cards in it (with the winning card) are
worth something, otherwise duck — throwing the least valuable card, so minus
spades go to somebody else's trick; lead a low plain card of no value.

Normal and strong *infer* from the cards played (``games.ai.inference``): a
world in which the rule of thumb, holding an opponent's hand there, would
have played another card than he did is less likely (:func:`play_weight`).
Only the tricks since the last draw tell (``games.ai.play_inference``): the
trick on the table, and once the stock is gone the last finished tricks too.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.ai import compact_two_ten_jack as compact
from games.ai import inference, play_inference
from games.ai.compact import card_space
from games.ai.ismcts import Space
from games.ai.playbook import Playbook, policy_rollout, random_rollout
from games.ai.trickplay import TrickSpot, take_if_worth
from games.base import View
from games.cards import strength
from games.tricks import Play
from games.two_ten_jack import (
    CARD_VALUES,
    HAND_SIZE,
    LEAD_AS_TRUMP,
    SPECULATION,
    TRUMPS,
    winner_of,
)


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb card for the seat to move."""
    legal: list[str] = view["legal"]
    spot = TrickSpot(
        view["trick"], players=view["players"], trumps=TRUMPS, led=view["led"], winner=_winner
    )
    if spot.leading:
        return _lead(legal)
    return take_if_worth(spot, legal, _pays, value)


def value(card: str) -> float:
    """The card's points in a trick (0 for most cards)."""
    return float(CARD_VALUES.get(card, 0))


def _pays(on_table: list[str], card: str) -> bool:
    return sum(value(c) for c in on_table) + value(card) >= 0


def _winner(plays: list[Play], trumps: str | None, led: str | None) -> int:
    if led is None:
        led = TRUMPS if plays[0][1] == SPECULATION else plays[0][1][1]
    return winner_of(plays, led)


def _lead(legal: list[str]) -> str:
    """The lowest plain card worth nothing to its taker; the A♠ (as a trump) last."""
    cards = [a for a in legal if a[:2] != SPECULATION]
    if not cards:
        return LEAD_AS_TRUMP if LEAD_AS_TRUMP in legal else legal[0]
    return min(cards, key=lambda c: (c[1] == TRUMPS, value(c) > 0, strength(c)))


def play_weight(view: View) -> Callable[[compact.CompactTwoTenJack], float] | None:
    """How likely a world makes the cards the opponents played since the last
    draw, by the rule of thumb (``games.ai.play_inference``); None before an
    opponent played in them."""
    players = int(view["players"])
    first, plays = play_inference.plays_since_draw(view, HAND_SIZE, compact.lead_action)
    start = compact.from_view(
        {**view, "history": view["history"][:first], "trick": [], "led": None},
        [[] for _ in range(players)],
        [],
    )
    return play_inference.replay_weight(
        start, plays, int(view["seat"]), compact.easy_rollout, compact.card_of
    )


def search_worlds(view: View) -> compact.Sampler | inference.Weighted[compact.CompactTwoTenJack]:
    """The compact worlds the search levels draw at ``view``: weighed by the
    play since the last draw (:func:`play_weight`) while inference from the
    play is on (``play_inference.since_draw_worlds``)."""
    return play_inference.since_draw_worlds(compact.Sampler(view), play_weight, view)


def compact_space(view: View) -> Space:
    """The compact bit-set state for searching the play (:func:`search_worlds`)."""
    return card_space(
        search_worlds(view),
        compact.easy_rollout,
        encode=compact.encode,
        decode=compact.decoder(view["led"] is None),
    )


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    tree=True,
    strong_rollout=policy_rollout(easy, ("trick", "led")),
    compact=compact_space,
    worlds=search_worlds,
    # Hands stay at six while the stock lasts (every trick draws one card a
    # seat), so at four cards or fewer the stock is gone and every card is in
    # a hand or played: a plain trick ending. One world of four cards costs
    # 3-10 ms at three players, 6-30 ms at four (docs/computer-players.md).
    endgame=4,
)
