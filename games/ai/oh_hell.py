"""Oh Hell: bid the exact number of tricks you will take, then take exactly that.

Easy bids by counting likely winners in the hand (high trumps, aces, guarded
kings), then plays to take tricks while short of the bid and to duck once it
is made.
"""

from __future__ import annotations

import random

from games.ai.playbook import Playbook, policy_rollout, random_rollout
from games.ai.trickplay import (
    HIGHER,
    TrickSpot,
    avoid,
    lead_low,
    lead_strong,
    played_cards,
    power,
    take_if_worth,
)
from games.base import View


def easy(view: View, rng: random.Random) -> str:
    """The rule-of-thumb bid or card for the seat to move."""
    if view["phase"] == "bid":
        expected = likely_tricks(view["hand"], view["trumps"], view["players"])
        return closest_bid(view["legal"], expected)
    return _play(view)


def likely_tricks(hand: list[str], trumps: str | None, players: int) -> float:
    """How many tricks the hand should take: a sum of per-card chances."""
    trump_count = sum(1 for c in hand if c[1] == trumps)
    expected = 0.0
    for card in hand:
        length = sum(1 for c in hand if c[1] == card[1])
        rank = _rank_among_others(card, hand)
        expected += _winning_chance(rank, card[1] == trumps, length, trump_count, players)
    return expected


def _rank_among_others(card: str, hand: list[str]) -> int:
    """The card's strength counting only the higher cards held by others (A K Q held: Q is A)."""
    return 14 - sum(1 for r in HIGHER[card[0]] if r + card[1] not in hand)


def _winning_chance(rank: int, trump: bool, length: int, trumps: int, players: int) -> float:
    if trump:
        if rank >= 13:
            return 1.0 if rank == 14 else 0.8
        if rank >= 11 and trumps >= 3:
            return 0.5
        return 0.35 if trumps >= 4 else 0.1
    crowd = 1.0 if players <= 3 else 0.85
    if rank == 14:
        return 0.9 * crowd if length <= 4 else 0.6
    if rank == 13 and length >= 2:
        return 0.5 * crowd if length <= 4 else 0.3
    return 0.0


def closest_bid(legal: list[str], expected: float) -> str:
    """The legal bid nearest to ``expected`` tricks (rounding down on a tie)."""
    return min(legal, key=lambda b: (abs(int(b[4:]) - expected), int(b[4:])))


def _play(view: View) -> str:
    legal: list[str] = view["legal"]
    seat = view["seat"]
    trumps = view["trumps"]
    spot = TrickSpot(view["trick"], players=view["players"], trumps=trumps)
    still_needed = (view["bids"][seat] or 0) - view["tricks_won"][seat]
    if still_needed > 0:
        if spot.leading:
            return lead_strong(legal, view["hand"], trumps, played_cards(view["history"], []))
        return take_if_worth(spot, legal, _always, lambda c: power(c, trumps))
    if spot.leading:
        return lead_low(legal, trumps, _harmless)
    return avoid(spot, legal, lambda c: power(c, trumps) / 100)


def _always(on_table: list[str], card: str) -> bool:
    return True


def _harmless(card: str) -> float:
    return 0.0


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    strong_rollout=policy_rollout(
        easy, ("phase", "trumps", "bids", "tricks_won", "trick", "history")
    ),
)
