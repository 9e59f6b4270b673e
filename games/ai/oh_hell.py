"""Oh Hell: bid the exact number of tricks you will take, then take exactly that.

Every level bids from sampled deals (:func:`sampled_bid`): the bids near the
hand's count of likely winners are each played out over deals consistent with
the seat's view — the real seating and lead, the bids already made, the
others bidding by count — and the bid with the best expected score wins. Easy
samples a handful of deals, the search levels many more. Easy then plays to
take tricks while short of the bid and to duck once it is made.

Normal and strong *infer* (``games.ai.inference``): the deals they sample are
drawn by how likely the bids seen make them — an opponent whose bid is far
from his sampled hand's count of likely winners makes that deal unlikely
(:func:`bid_weight`) — and by the cards they played: a deal in which the
rule of thumb, holding an opponent's hand there, would have played another
card than he did is less likely (:func:`play_weight`,
``games.ai.play_inference``). Easy samples blind.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from games.ai import compact_oh_hell as compact
from games.ai import inference, play_inference
from games.ai.compact import (
    ABOVE,
    NAMES,
    NO_SUIT,
    SUIT_MASKS,
    card_space,
    cards_of,
    mask_of,
)
from games.ai.estimate import Sampling, best_option
from games.ai.ismcts import Space
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

#: How many deals easy samples for a bid.
EASY_SAMPLING = Sampling(min_worlds=6, max_worlds=12)
#: Bids further than this from the count of likely winners are not tried.
BID_WINDOW = 2
#: The opponent model: a bid is BID_COUNT_SHARE of the hand's count of likely
#: winners plus BID_PER_TRUMP per trump held plus BID_BASE, give or take
#: s = BID_SPREAD + BID_SPREAD_PER_CARD per card dealt — a bid d tricks off
#: that has weight exp(-d² / 2s²). Fitted (least squares) to 1,056 bids of
#: strong at 0.1 s, deals of 2-12 cards, hook on (``bench/inference_check.py``):
#: the count alone, plus a lean per card dealt, left a spread of 0.74 — strong
#: counts a trump for more than the count's 0.1-0.35, and the lean per card
#: was mostly the trumps a longer hand holds; with the trumps the spread is
#: 0.59 (0.46 at 1-3 cards, 0.51 at 4-6, 0.61 at 7-9, 0.70 at 10-12).
BID_COUNT_SHARE = 0.8
BID_PER_TRUMP = 0.5
BID_BASE = 0.1
BID_SPREAD = 0.4
BID_SPREAD_PER_CARD = 0.025
#: Worlds drawn at most for one sample (then the likeliest of them): with the
#: model this sharp about one draw in seven is kept, and 16 tries ran out for
#: 18 % of the samples (``inference.MAX_TRIES``), 32 for 6 %.
BID_TRIES = 32


def easy(view: View, rng: random.Random) -> str:
    """The easy bid (sampled, few deals) or the rule-of-thumb card for the seat to move."""
    if view["phase"] == "bid":
        return sampled_bid(view, rng, EASY_SAMPLING, infer=False)[0]
    return _play(view)


def counted_bid(view: View) -> str:
    """The legal bid nearest to the hand's count of likely winners (no sampling)."""
    return closest_bid(view["legal"], likely_tricks(view["hand"], view["trumps"], view["players"]))


def sampled_bid(
    view: View, rng: random.Random, sampling: Sampling, infer: bool | None = None
) -> tuple[str, int]:
    """The bid with the best expected score over sampled deals, and the deals sampled.

    Tries the legal bids within :data:`BID_WINDOW` of the count of likely
    winners, nearest first (ties go to the nearer bid). ``infer``: weigh the
    deals by the bids already made (None: as ``inference.ENABLED`` says).
    """
    expected = likely_tricks(view["hand"], view["trumps"], view["players"])
    legal: list[str] = view["legal"]
    options = sorted(legal, key=lambda b: (abs(int(b[4:]) - expected), int(b[4:])))
    options = [b for b in options if abs(int(b[4:]) - expected) <= BID_WINDOW + 0.5] or options
    seat = int(view["seat"])
    sampler = world_sampler(view, inference.ENABLED if infer is None else infer)
    sample = sampler.fresh if isinstance(sampler, inference.Weighted) else sampler.sample
    players = int(view["players"])
    first = (int(view["dealer"]) + 1) % players
    hook = bool(view["options"]["hook"])
    size = int(view["deal_size"])

    def simulate(world: compact.CompactOhHell, bid: str, sim_rng: random.Random) -> float:
        bids: list[int | None] = list(view["bids"])
        for step in range(players):
            mover = (first + step) % players
            if mover == seat:
                bids[mover] = int(bid[4:])
            elif bids[mover] is None:
                hand = [NAMES[c] for c in cards_of(world.hands[mover])]
                made = sum(b for b in bids if b is not None)
                forbidden = size - made if hook and mover == view["dealer"] else None
                legal = [f"bid:{n}" for n in range(size + 1) if n != forbidden]
                bids[mover] = int(
                    closest_bid(legal, likely_tricks(hand, view["trumps"], players))[4:]
                )
        world.bids = [int(b or 0) for b in bids]
        world.bidding = 0
        world.turn = first
        return _bid_outcome(world, seat, int(bid[4:]), sim_rng)

    found = best_option(sample, options, simulate, rng, sampling)
    return found.choice, found.worlds


def _bid_outcome(world: compact.CompactOhHell, seat: int, bid: int, rng: random.Random) -> float:
    """Play the deal out by the rule of thumb; the seat's deal score (stopping
    once its fate is sealed)."""
    while world.turn is not None:
        won = world.won[seat]
        leader = (world.turn - world.in_trick) % world.players  # my card already down?
        pending = (seat - leader) % world.players < world.in_trick
        if won > bid or won + world.hands[seat].bit_count() + pending < bid:
            return 0.0
        mover = world.turn
        legal = world.legal_actions(mover)
        choice = legal[0] if len(legal) == 1 else compact.easy_rollout(world, mover, legal, rng)
        for event in world._apply(mover, choice):
            if event["type"] == "deal_end":
                return float(event["deal_scores"][seat])
    return 0.0


def likely_tricks(hand: list[str], trumps: str | None, players: int) -> float:
    """How many tricks the hand should take: a sum of per-card chances."""
    trump_count = sum(1 for c in hand if c[1] == trumps)
    expected = 0.0
    for card in hand:
        length = sum(1 for c in hand if c[1] == card[1])
        rank = _rank_among_others(card, hand)
        expected += _winning_chance(rank, card[1] == trumps, length, trump_count, players)
    return expected


def likely_tricks_mask(hand: int, trump: int, players: int) -> float:
    """:func:`likely_tricks` of a compact hand (a bit set; ``trump`` a suit index),
    suit by suit from a table (the weights reckon it for every world drawn)."""
    crowded = players > 3
    return sum(
        _suit_tricks(hand >> (13 * suit) & 0x1FFF, suit == trump, crowded) for suit in range(4)
    )


@functools.cache
def _suit_tricks(pattern: int, trump: bool, crowded: bool) -> float:
    """The likely winners among one suit's cards (a 13-bit pattern, lowest rank
    first): a card's chance depends only on its suit's cards held (its rank
    among the others', the suit's length, the trumps held if it is one)."""
    length = pattern.bit_count()
    expected = 0.0
    for card in cards_of(pattern):
        rank = 14 - (ABOVE[card] & ~pattern).bit_count()
        expected += _winning_chance(rank, trump, length, length, 4 if crowded else 3)
    return expected


def model_bid(hand: int, trump: int, players: int) -> float:
    """The opponent model's bid for a compact hand (not rounded): a share of
    its count of likely winners plus a part of a trick per trump
    (:data:`BID_COUNT_SHARE`, :data:`BID_PER_TRUMP`, :data:`BID_BASE`)."""
    trumps = (hand & SUIT_MASKS[trump]).bit_count() if trump != NO_SUIT else 0
    count = likely_tricks_mask(hand, trump, players)
    return BID_COUNT_SHARE * count + BID_PER_TRUMP * trumps + BID_BASE


def bid_weight(view: View) -> Callable[[compact.CompactOhHell], float]:
    """How likely a world makes the bids the seat has seen: the product, over
    the opponents who bid, of the opponent model's weight of that bid for the
    hand the world gives them (their cards now and the ones they played;
    :func:`model_bid`, :data:`BID_SPREAD`, :data:`BID_SPREAD_PER_CARD`)."""
    seat = int(view["seat"])
    players = int(view["players"])
    played = [0] * players
    for plays in [done["cards"] for done in view["history"]] + [view["trick"]]:
        for who, card in plays:
            played[who] |= mask_of([card])
    bids = [
        (other, int(bid))
        for other, bid in enumerate(view["bids"])
        if other != seat and bid is not None
    ]
    spread = BID_SPREAD + BID_SPREAD_PER_CARD * int(view["deal_size"])

    def weight(world: compact.CompactOhHell) -> float:
        chance = 1.0
        for other, bid in bids:
            model = model_bid(world.hands[other] | played[other], world.trump, players)
            chance *= inference.gaussian(bid - model, spread)
        return chance

    return weight


def play_weight(view: View) -> Callable[[compact.CompactOhHell], float] | None:
    """How likely a world makes the cards the opponents played lately, by the
    rule of thumb (``games.ai.play_inference``); None before an opponent played."""
    players = int(view["players"])
    history: list[dict[str, Any]] = view["history"]
    first, plays = play_inference.recent_plays(view)
    won = [0] * players
    for done in history[:first]:
        won[done["winner"]] += 1
    start = compact.from_view(
        {**view, "history": history[:first], "trick": [], "tricks_won": won, "phase": "play"},
        [[] for _ in range(players)],
    )
    return play_inference.replay_weight(start, plays, int(view["seat"]), compact.easy_rollout)


def world_sampler(
    view: View, infer: bool
) -> compact.Sampler | inference.Weighted[compact.CompactOhHell]:
    """Worlds of the view as compact states: weighted by the bids and the play
    seen if ``infer`` (the play reckoned only for worlds the bids keep)."""
    sampler = compact.Sampler(view)
    if not infer:
        return sampler
    bids = None if all(bid is None for bid in view["bids"]) else bid_weight(view)
    play = play_weight(view) if view["phase"] == "play" and inference.FROM_PLAY else None
    return inference.combined(sampler.sample, bids, play, BID_TRIES) or sampler


def search_worlds(view: View) -> compact.Sampler | inference.Weighted[compact.CompactOhHell]:
    """The worlds the search levels draw at ``view``, bidding or playing
    (:func:`world_sampler`, inferring while inference is on)."""
    return world_sampler(view, inference.ENABLED)


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


def compact_space(view: View) -> Space | None:
    """The compact bit-set state for searching the play (None while bidding)."""
    if view["phase"] != "play":
        return None
    return card_space(search_worlds(view), compact.easy_rollout)


_ROLLOUT = policy_rollout(easy, ("phase", "trumps", "bids", "tricks_won", "trick", "history"))


PLAYBOOK = Playbook(
    easy=easy,
    rollout=random_rollout,
    tree=True,
    strong_rollout=_ROLLOUT,
    sampled=sampled_bid,
    sampled_phase="bid",
    compact=compact_space,
    endgame=3,
    worlds=search_worlds,
)
