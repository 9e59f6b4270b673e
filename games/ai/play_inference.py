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
docs/computer-players.md). For games where the hands change during play (a
stock drawn from: Eleven, Two-Ten-Jack) the replay would need the draws as
well; they are not inferred from yet.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games.ai.compact import INDEX
from games.ai.ismcts import Rollout
from games.base import View

#: A world is this much less likely for each card an opponent played (with a
#: choice) that the rule of thumb would not have played from his hand there.
PLAY_SOFTNESS = 0.6
#: The tricks replayed: the one on the table and this many before it.
PLAY_TRICKS = 2

#: A play: (seat, card index).
Play = tuple[int, int]


def recent_plays(view: View) -> tuple[int, list[Play]]:
    """The index in the view's ``history`` of the first trick replayed, and the
    plays from its first card to the table's last, in order."""
    history: list[dict[str, Any]] = view["history"]
    first = max(0, len(history) - PLAY_TRICKS)
    tricks = [done["cards"] for done in history[first:]] + [view["trick"]]
    return first, [(int(who), INDEX[card]) for plays in tricks for who, card in plays]


def replay_weight(
    start: Any, plays: list[Play], seat: int, rollout: Rollout
) -> Callable[[Any], float] | None:
    """The weight of a world (a compact state of the same game): ``plays`` made
    again from ``start`` (a state with empty hands, no card on the table, the
    first player to move) with the world's hands, each opponent's card with a
    choice compared with ``rollout``'s. None if no opponent played in them."""
    if all(who == seat for who, _ in plays):
        return None
    since = [0] * start.players
    for who, card in plays:
        since[who] |= 1 << card
    start.turn = plays[0][0]
    dummy = random.Random(0)  # the rules of thumb break ties in a fixed order

    def weight(world: Any) -> float:
        state = start.clone()
        state.hands = [hand | gone for hand, gone in zip(world.hands, since, strict=True)]
        chance = 1.0
        for who, card in plays:
            if state.turn != who:
                break  # not reachable with the real plays; a safe stop
            if who != seat:
                legal = state.legal_actions(who)
                if len(legal) > 1 and rollout(state, who, legal, dummy) != card:
                    chance *= PLAY_SOFTNESS
            state._apply(who, card)
        return chance

    return weight
