"""Helpers for the computer-player tests: an opening view, and a toy game of known odds."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games.base import Event, Game, View
from tests.support.positions import advanced


def opening(game_id: str) -> dict[str, Any]:
    """The view of the first seat with a real choice in a fresh match."""
    game = advanced(game_id, 3, 0)
    assert game.to_move is not None
    return game.view(game.to_move)


class Gamble(Game):
    """Seat 0 takes 1 point ("safe") or bets on a face-down card: red +3, black −3."""

    id = "gamble_test"
    min_players = 2
    max_players = 2
    reds: ClassVar[int] = 1
    samples: ClassVar[int] = 0

    hidden: str

    def deck_cards(self) -> list[str]:
        return ["AH", "KH", "QH", "JH"][: self.reds] + ["AS", "KS", "QS"][: 4 - self.reds]

    def _deal(self, deck: list[str]) -> None:
        self.hidden = deck[0]
        self.turn = 0

    def legal_actions(self, seat: int) -> list[str]:
        return ["safe", "gamble"] if seat == self.turn and self.result is None else []

    def _apply(self, seat: int, action: str) -> list[Event]:
        if action == "safe":
            self.scores[0] += 1
        else:
            self.scores[0] += 3 if self.hidden[1] == "H" else -3
        return [self._finish([0])]

    def view(self, seat: int | None) -> View:
        return self.base_view(seat)

    def hidden_cards(self, seat: int | None) -> set[str]:
        return {self.hidden}

    def card_zones(self) -> dict[str, list[str]]:
        return {"hidden": [self.hidden]}

    @classmethod
    def determinize(cls, view: View, rng: random.Random) -> Gamble:
        Gamble.samples += 1
        game = cls.new(2, seed=rng.randrange(1 << 30), dealer=0)
        game.hidden = rng.choice(game.deck_cards())
        return game


def gamble_with(reds: int) -> type[Gamble]:
    return type(f"Gamble{reds}", (Gamble,), {"reds": reds})
