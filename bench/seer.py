"""The seer: a search whose every sampled world is the true deal (docs/computer-players.md).

What would a seat win if its worlds were exactly right? Inference can only
recover part of that. ``strong-seer`` in bench/computer.py is strong with
every world it draws replaced by the deal as really dealt, by
:func:`seeing` around its decision:

- the compact worlds (``games.ai.compact.Sampler.sample``: Oh Hell's bids
  and play, King's trick play, the exact endings) are :func:`true_state`,
  the compact state of the view with every hand as dealt — the same truth
  bench/inference_regret.py's double-dummy oracle searches in;
- the engine's worlds (``Game.determinize``: King's trumps named and its
  lottery) are the engine's sample with the other hands replaced by the
  real ones.

Cards unknown to everyone stay as the engine would sample them: Oh Hell's
undealt cards are in no compact state (the play never reaches them), and
King deals every card. With one world there is nothing to weigh, so the
seer infers nothing (``inference.ENABLED`` off: the weights would only cost
time); everything else is strong's.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

from games import REGISTRY
from games.ai import compact, compact_king, compact_oh_hell
from games.base import Game, View

#: The games the seer plays: each one's compact state of a view with every hand filled in.
FROM_VIEW: dict[str, Callable[[View, list[list[str]]], Any]] = {
    "oh_hell": compact_oh_hell.from_view,
    "king": compact_king.from_view,
}


def true_state(game_id: str, game: Game, view: View) -> Any:
    """The compact state of the view's decision with every hand as really dealt."""
    hands = [list(hand) for hand in getattr(game, "hands")]  # noqa: B009 - a trick game
    return FROM_VIEW[game_id](view, hands)


@contextlib.contextmanager
def seeing(game_id: str, game: Game, view: View) -> Iterator[None]:
    """Within, every world drawn for the decision at ``view`` of ``game`` is the
    true deal: compact worlds are :func:`true_state`, the engine's
    ``determinize`` keeps its sample but deals the other seats their real hands.
    ValueError for a game the seer does not play (:data:`FROM_VIEW`)."""
    if game_id not in FROM_VIEW:
        raise ValueError(f"the seer plays {', '.join(FROM_VIEW)}, not {game_id!r}")
    truth = functools.cache(lambda: true_state(game_id, game, view))
    hands: list[list[str]] = getattr(game, "hands")  # noqa: B009 - a trick game
    game_cls = REGISTRY[game_id]
    sampled = game_cls.determinize

    def sample(self: compact.Sampler[Any], rng: random.Random) -> Any:
        return truth().clone()

    def determinize(seen: View, rng: random.Random) -> Game:
        world = sampled(seen, rng)
        setattr(world, "hands", [list(hand) for hand in hands])  # noqa: B010
        return world

    with (
        mock.patch.object(compact.Sampler, "sample", sample),
        mock.patch.object(game_cls, "determinize", staticmethod(determinize)),
    ):
        yield
