"""Inference from the cards played: the recent tricks replayed under the rule of thumb.

An opponent's card says something about the hand he held: a player who ducks
a trick he could have won, or throws a high card of a suit, probably held
what makes that the sensible card. The opponent model is the game's own rule
of thumb on its compact state (the rollout policy, ``easy_rollout``),
softened: a sampled world is replayed from the start of the last
:data:`PLAY_TRICKS` tricks with every hand as the world deals it (its cards
now plus the ones played since), and each opponent's card with a choice that
the rule of thumb, holding that hand, would not have played makes the world
:data:`PLAY_SOFTNESS` as likely. A deal played by the rule of thumb weighs
exactly 1 (tests/ai/test_ai_inference.py).

Only the last few tricks: replaying the whole deal made drawing a world
about 15 times dearer than a blind one in Oh Hell, for little more (measured,
docs/computer-players.md). Where the hands are filled from a stock after each
trick (Eleven, Two-Ten-Jack), a hand then is not the hand now plus the cards
played since, so only the tricks since the last draw are replayed
(:func:`plays_since_draw`): the trick on the table always (nothing is drawn
inside a trick), and once the stock is gone the finished tricks since it
ran out as well — no model of the draws is needed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from games.ai import inference
from games.ai.compact import INDEX, Sampler
from games.ai.inference import Weighted
from games.ai.ismcts import Rollout
from games.base import View

#: A world is this much less likely for each card an opponent played (with a
#: choice) that the rule of thumb would not have played from his hand there.
PLAY_SOFTNESS = 0.6
#: The tricks replayed: the one on the table and this many before it.
PLAY_TRICKS = 2

#: Where only the play since the last draw is weighed (Eleven, Two-Ten-Jack),
#: no sample is a copy of a world kept before: a weighed world costs about a
#: fifth of a tree iteration there, and the copies made normal's 200
#: iterations miss a clear duck (KS for 4S in 12 of 60 seeds, 1 in 60 blind
#: and 3 in 60 without copies; tests/ai/test_ai_positions.py).
STOCK_REUSE = 0.0

#: A play: (seat, the compact action: a card index, or a game's own lead action).
Play = tuple[int, int]
#: The compact action that led a trick with a card, given the suit the trick followed.
Lead = Callable[[str, str | None], int]


def _card_lead(card: str, led: str | None) -> int:
    return INDEX[card]


def recent_plays(
    view: View, tricks: int = PLAY_TRICKS, lead: Lead = _card_lead
) -> tuple[int, list[Play]]:
    """The index in the view's ``history`` of the first trick replayed (the
    last ``tricks`` finished ones), and the plays from its first card to the
    table's last, in order; each trick's first card as ``lead`` names it from
    the suit the trick followed (Two-Ten-Jack's A♠ led as a trump)."""
    history: list[dict[str, Any]] = view["history"]
    first = max(0, len(history) - tricks)
    tricks_played = [(done["cards"], done.get("led")) for done in history[first:]]
    tricks_played.append((view["trick"], view.get("led")))
    plays: list[Play] = []
    for cards, led in tricks_played:
        for place, (who, card) in enumerate(cards):
            plays.append((int(who), lead(card, led) if place == 0 else INDEX[card]))
    return first, plays


def plays_since_draw(view: View, hand_size: int, lead: Lead = _card_lead) -> tuple[int, list[Play]]:
    """:func:`recent_plays` for a game whose hands are filled from a stock to
    ``hand_size`` cards after every trick while it lasts, and lose a card a
    trick once it is gone: the trick on the table, and once the stock is
    gone the finished tricks since (at most :data:`PLAY_TRICKS`), the
    tricks in which every hand was its cards now plus the ones played since."""
    since = 0
    if not view["stock"]:
        seat = int(view["seat"])
        held = len(view["hand"]) + sum(1 for who, _ in view["trick"] if who == seat)
        since = hand_size - held
    return recent_plays(view, min(since, PLAY_TRICKS), lead)


T = TypeVar("T", bound=Sampler[Any])


def since_draw_worlds(
    sampler: T, play_weight: Callable[[View], Callable[[Any], float] | None], view: View
) -> T | Weighted[Any]:
    """The worlds a stock game's search levels draw at ``view``: ``sampler``'s,
    weighed by ``play_weight(view)`` (the play since the last draw) while
    inference from the play is on, each drawn afresh (:data:`STOCK_REUSE`)."""
    if not (inference.ENABLED and inference.FROM_PLAY):
        return sampler
    weight = play_weight(view)
    if weight is None:
        return sampler
    return Weighted(sampler.sample, weight, reuse=STOCK_REUSE)


def _same_card(action: int) -> int:
    return action


def replay_weight(
    start: Any,
    plays: list[Play],
    seat: int,
    rollout: Rollout,
    card_of: Callable[[int], int] = _same_card,
) -> Callable[[Any], float] | None:
    """The weight of a world (a compact state of the same game): ``plays`` made
    again from ``start`` (a state with empty hands, no card on the table, the
    first player to move) with the world's hands, each opponent's card with a
    choice compared with ``rollout``'s. ``card_of``: the card a play's action
    puts down (an action may be more than its card). None if no opponent
    played in them."""
    if all(who == seat for who, _ in plays):
        return None
    since = [0] * start.players
    for who, action in plays:
        since[who] |= 1 << card_of(action)
    start.turn = plays[0][0]
    dummy = random.Random(0)  # the rules of thumb break ties in a fixed order

    def weight(world: Any) -> float:
        state = start.clone()
        state.hands = [hand | gone for hand, gone in zip(world.hands, since, strict=True)]
        chance = 1.0
        for who, action in plays:
            if state.turn != who:
                break  # not reachable with the real plays; a safe stop
            if who != seat:
                legal = state.legal_actions(who)
                if len(legal) > 1 and rollout(state, who, legal, dummy) != action:
                    chance *= PLAY_SOFTNESS
            state._apply(who, action)
        return chance

    return weight
