"""OpenSpiel's own ``ISMCTSBot`` on OpenSpiel's C++ ``oh_hell``: the Oh Hell yardstick.

Koloda's Oh Hell and OpenSpiel's ``oh_hell`` are the same game when Koloda's
``hook`` option is on (OpenSpiel always forbids the dealer the bid that makes
the bids add up to the deal size) and the deal has a trump card (1–12 cards at
four players; OpenSpiel has no no-trump deal). Two differences remain, both
OpenSpiel's own and kept: a missed bid scores the tricks taken there (0 in
Koloda), and its sampler of worlds ignores the voids a seat has shown.

The mapping (pure Python, :func:`to_spiel`/:func:`from_spiel`): OpenSpiel's
card is ``rank * 4 + suit`` (ranks 2 … A, suits ``C D S H``), a bid of n is
``52 + n``. :func:`spiel_state` replays a Koloda view's deal into an OpenSpiel
state: the deal size, the dealer, the cards dealt round the table from seat 0
(OpenSpiel always deals seat 0 first; only the hands matter), the trump card,
the bids from the dealer's left, the tricks. The hidden hands come from a
sampled world of the view (``OhHell.determinize``): the bot reads only the
mover's information state (it asserts that every world it samples has the
same one), so it never sees more than the seat does.

:func:`spiel_move` thinks for a fixed time, not a fixed number of
simulations: :class:`TimedISMCTSBot` runs the bot's own simulation, sampling
and final policy (most visits) until the time is up, so both sides of the
bench get the same seconds. Only this module needs ``pyspiel`` (``pip install
-e '.[bench]'``); the mapping does not.
"""

from __future__ import annotations

import functools
import random
import time
from typing import Any

from games.oh_hell import OhHell

#: OpenSpiel's suits and ranks, in its card order (card = rank * 4 + suit).
SPIEL_SUITS = "CDSH"
SPIEL_RANKS = "23456789TJQKA"
CARDS = 52
#: OpenSpiel's reward is the deal score, 0 to 22 for 12 cards; the UCT constants
#: of the grid are for rewards divided by this (about 0..2).
VALUE_SCALE = 11.0


def to_spiel(action: str) -> int:
    """OpenSpiel's action for a Koloda action: a card (``QS``) or a bid (``bid:2``)."""
    if action.startswith("bid:"):
        return CARDS + int(action[4:])
    return SPIEL_RANKS.index(action[0]) * len(SPIEL_SUITS) + SPIEL_SUITS.index(action[1])


def from_spiel(action: int) -> str:
    """Koloda's action for an OpenSpiel action (the inverse of :func:`to_spiel`)."""
    if action >= CARDS:
        return f"bid:{action - CARDS}"
    rank, suit = divmod(action, len(SPIEL_SUITS))
    return SPIEL_RANKS[rank] + SPIEL_SUITS[suit]


def spiel_history(view: dict[str, Any], hands: list[list[str]]) -> list[int]:
    """The OpenSpiel actions that replay the view's deal, the seats holding ``hands`` now.

    Chance first (deal size, dealer, the cards dealt seat 0 first, the trump
    card), then the bids from the dealer's left and the cards played.
    """
    players = int(view["players"])
    size = int(view["deal_size"])
    tricks = [done["cards"] for done in view["history"]] + [view["trick"]]
    dealt = [list(hand) for hand in hands]
    for plays in tricks:
        for seat, card in plays:
            dealt[seat].append(card)
    actions = [size, int(view["dealer"])]
    actions += [to_spiel(dealt[i % players][i // players]) for i in range(players * size)]
    actions.append(to_spiel(view["trump_card"]))
    first = (int(view["dealer"]) + 1) % players
    for step in range(players):
        bid = view["bids"][(first + step) % players]
        if bid is not None:
            actions.append(to_spiel(f"bid:{bid}"))
    actions += [to_spiel(card) for plays in tricks for _, card in plays]
    return actions


@functools.cache
def spiel_game(players: int, size: int) -> Any:
    """OpenSpiel's ``oh_hell`` for ``players`` and deals of ``size`` cards."""
    import pyspiel

    return pyspiel.load_game("oh_hell", {"players": players, "num_tricks_fixed": size})


def spiel_state(view: dict[str, Any], rng: random.Random) -> Any:
    """An OpenSpiel state with the view's information state (hidden hands sampled)."""
    world = OhHell.determinize(view, rng)
    state = spiel_game(int(view["players"]), int(view["deal_size"])).new_initial_state()
    for action in spiel_history(view, world.hands):
        state.apply_action(action)
    return state


def _bot_class() -> Any:
    from open_spiel.python.algorithms import ismcts

    class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
        """``ISMCTSBot`` with a time budget: its own simulations until time is up."""

        simulations = 0

        def timed_step(self, state: Any, seconds: float) -> int:
            self.reset()
            legal = state.legal_actions()
            if len(legal) == 1:
                return int(legal[0])
            self._root_node = self.create_new_node(state)
            stop = time.perf_counter() + seconds
            self.simulations = 0
            # The first simulation only expands the root: at least two.
            while self.simulations < 2 or time.perf_counter() < stop:
                self.run_simulation(self.sample_root_state(state))
                self.simulations += 1
            actions, probs = zip(*self.get_final_policy(state, self._root_node), strict=True)
            return int(self._random_state.choice(actions, p=probs))

    return TimedISMCTSBot


def spiel_move(
    view: dict[str, Any], seconds: float, seed: int, uct_c: float, scale: float = VALUE_SCALE
) -> str:
    """OpenSpiel ``ISMCTSBot``'s move for the view: random rollouts, a fresh world
    per simulation, UCT with ``uct_c`` on the deal score divided by ``scale``,
    the most visited action, ``seconds`` of thought."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    legal: list[str] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    state = spiel_state(view, random.Random(seed))
    assert sorted(from_spiel(a) for a in state.legal_actions()) == sorted(legal)
    randomness = np.random.RandomState(seed % 2**32)
    bot = _bot_class()(
        state.get_game(),
        mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=randomness),
        uct_c * scale,  # the same UCT as uct_c on rewards / scale
        max_simulations=0,
        random_state=randomness,
    )
    return from_spiel(bot.timed_step(state, seconds))
