"""King: six negative deals (avoid the contract's penalties), then trumps or the lottery.

Easy names the longest suit as trumps and plays trump deals to take tricks;
in a negative deal it stays under the winning card while the trick can still
cost something, sheds the contract's penalty cards when void, and gets rid of
high cards while tricks are harmless (the early tricks of ``no_last_tricks``).
In the lottery it plays the card that frees most of its own cards behind it.

Normal and strong *infer* who holds what from the trumps named
(``games.ai.inference``): in a trump deal the opponent who named trumps
most likely named his longest suit (the easy policy's choice), so deals that
give him a short trump suit are drawn less often (:func:`trump_weight`); and
from the cards played, against the rule of thumb (:func:`play_weight`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.ai import compact_king, inference, play_inference
from games.ai.compact import SUIT_MASKS, card_space, mask_of
from games.ai.estimate import Sampling, best_option, deal_gains
from games.ai.ismcts import Space, relative
from games.ai.playbook import Playbook, policy_rollout, random_rollout
from games.ai.trickplay import (
    TrickSpot,
    avoid,
    highest,
    lead_low,
    lead_strong,
    played_cards,
    power,
    take_if_worth,
)
from games.base import Game, View
from games.cards import SUITS, strength
from games.king import LADDER, King
from games.king_contracts import card_penalty

#: The opponent model's spread: naming a suit d cards shorter than the longest has
#: weight exp(-d² / 2·TRUMP_SPREAD²).
TRUMP_SPREAD = 1.0

#: How many deals easy samples to name trumps.
EASY_SAMPLING = Sampling(min_worlds=4, max_worlds=8)


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb action for the seat to move (trumps named from a few sampled deals)."""
    if view["phase"] == "trump_choice":
        return sampled_trumps(view, rng, EASY_SAMPLING)[0]
    if view["phase"] == "lottery":
        return lottery_card(view["legal"], view["hand"])
    if view["penalty"] is None:
        return _take_tricks(view)
    return _dodge_penalties(view)


def name_trumps(hand: list[str]) -> str:
    """The longest suit, the stronger one on equal length."""

    def weight(s: str) -> tuple[int, int]:
        cards = [c for c in hand if c[1] == s]
        return len(cards), sum(strength(c) for c in cards)

    return "trump:" + max(SUITS, key=weight)


def sampled_trumps(view: View, rng: random.Random, sampling: Sampling) -> tuple[str, int]:
    """The trump suit whose deals, played out by the rule of thumb over sampled
    deals, gain most against the others; the longest suit first on a tie."""
    first = name_trumps(view["hand"])
    legal: list[str] = view["legal"]
    options = [first, *[a for a in legal if a != first]]
    seat = int(view["seat"])

    def simulate(world: Game, action: str, sim_rng: random.Random) -> float:
        return relative(deal_gains(world, seat, action, _ROLLOUT, sim_rng))[seat]

    found = best_option(lambda r: King.determinize(view, r), options, simulate, rng, sampling)
    return found.choice, found.worlds


def lottery_card(legal: list[str], hand: list[str]) -> str:
    """The playable card with most of the seat's own cards waiting behind it in its row."""
    cards = [c for c in legal if c != "pass"]

    def behind(card: str) -> int:
        position = LADDER.index(card[0])
        suit_ranks = [LADDER.index(c[0]) for c in hand if c[1] == card[1] and c != card]
        if card[0] == "8":
            return len(suit_ranks)
        upward = position > LADDER.index("8")
        return sum(1 for r in suit_ranks if (r > position) == upward)

    return max(cards, key=lambda c: (behind(c), -abs(LADDER.index(c[0]) - LADDER.index("8"))))


def _take_tricks(view: View) -> str:
    legal: list[str] = view["legal"]
    trumps = view["trumps"]
    spot = TrickSpot(view["trick"], players=view["players"], trumps=trumps)
    if spot.leading:
        return lead_strong(legal, view["hand"], trumps, played_cards(view["history"], []))
    return take_if_worth(spot, legal, lambda table, card: True, lambda c: power(c, trumps))


def _dodge_penalties(view: View) -> str:
    legal: list[str] = view["legal"]
    penalty: dict[str, int] = view["penalty"]
    spot = TrickSpot(view["trick"], players=view["players"])
    number = len(view["history"]) + 1

    def danger(card: str) -> float:
        return float(card_penalty(penalty, card))

    if not _trick_can_cost(view, penalty, number):
        return highest(legal, None)
    if spot.leading:
        return lead_low(legal, None, danger)
    return avoid(spot, legal, danger)


def _trick_can_cost(view: View, penalty: dict[str, int], number: int) -> bool:
    """True if this trick costs its taker, or may once the others have played."""
    if penalty.get("trick", 0) or penalty.get(f"trick_{number}", 0):
        return True
    seen = played_cards(view["history"], [])
    mine = set(view["hand"])
    return any(
        card_penalty(penalty, rank + suit) > 0
        for suit in SUITS
        for rank in LADDER
        if rank + suit not in seen and rank + suit not in mine
    ) or any(card_penalty(penalty, c) > 0 for c in mine)


def trump_weight(view: View) -> Callable[[compact_king.CompactKing], float] | None:
    """How likely a world makes the trumps named, for a trump deal where an
    opponent named them (None otherwise): the suit named against his longest,
    in the hand the world gives him (his cards now and the ones he played)."""
    if view["trumps"] is None or view["contract"] != "trump":
        return None
    players = int(view["players"])
    chooser = (int(view["dealer"]) + 1) % players
    if chooser == int(view["seat"]):
        return None
    named = SUIT_MASKS[SUITS.index(view["trumps"])]
    played = mask_of(
        [
            c
            for plays in [d["cards"] for d in view["history"]] + [view["trick"]]
            for who, c in plays
            if who == chooser
        ]
    )

    def weight(world: compact_king.CompactKing) -> float:
        hand = world.hands[chooser] | played
        longest = max((hand & suit).bit_count() for suit in SUIT_MASKS)
        return inference.gaussian(longest - (hand & named).bit_count(), TRUMP_SPREAD)

    return weight


def play_weight(view: View) -> Callable[[compact_king.CompactKing], float] | None:
    """How likely a world makes the cards the opponents played lately, by the
    rule of thumb (``games.ai.play_inference``); None before an opponent played."""
    players = int(view["players"])
    first, plays = play_inference.recent_plays(view)
    start = compact_king.from_view(
        {**view, "history": view["history"][:first], "trick": []},
        [[] for _ in range(players)],
    )
    # The penalty still to take then was larger; the rule of thumb does not
    # read it, and scaled up it never reaches 0 (the deal's end) in the replay.
    start.penalty_left *= 1 << 20
    return play_inference.replay_weight(start, plays, int(view["seat"]), compact_king.easy_rollout)


def world_sampler(
    view: View,
) -> compact_king.Sampler | inference.Weighted[compact_king.CompactKing]:
    """Worlds of a trick deal's view as compact states: weighted by the trumps
    named and the play seen while inference is on (the play reckoned only for
    worlds the trumps keep)."""
    sampler = compact_king.Sampler(view)
    if not inference.ENABLED:
        return sampler
    play = play_weight(view) if inference.FROM_PLAY else None
    return inference.combined(sampler.sample, trump_weight(view), play) or sampler


def search_worlds(
    view: View,
) -> compact_king.Sampler | inference.Weighted[compact_king.CompactKing] | None:
    """The compact worlds the search levels draw at ``view``: a trick deal's play
    (:func:`world_sampler`); None otherwise (naming trumps samples
    ``King.determinize``, the lottery searches on the engine)."""
    return world_sampler(view) if view["phase"] == "play" else None


def compact_space(view: View) -> Space | None:
    """The compact bit-set state for searching a trick deal's play (None otherwise:
    the lottery and naming trumps stay on the engine); its worlds weighted by
    the trumps named (:func:`trump_weight`) and the cards played
    (:func:`play_weight`) while inference is on."""
    worlds = search_worlds(view)
    return None if worlds is None else card_space(worlds, compact_king.easy_rollout)


_ROLLOUT = policy_rollout(easy, ("phase", "penalty", "trumps", "trick", "history"))

PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=_ROLLOUT,
    tree=True,
    sampled=sampled_trumps,
    sampled_phase="trump_choice",
    compact=compact_space,
    endgame=3,
    worlds=search_worlds,
)
