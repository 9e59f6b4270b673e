"""Rules of thumb for trick play, shared by the trick games' easy policies.

Two attitudes cover every trick game here: *taking* (the trick or its cards
are worth having: win it cheaply, duck with low cards when it does not pay,
lead from strength) and *avoiding* (tricks or the cards in them cost points:
stay under the winning card with the highest card that still loses, shed
dangerous cards when void, lead low).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from games.cards import RANK_STRENGTH
from games.tricks import Play, trick_winner

#: Who wins a trick: (plays, trumps, suit led or None) -> seat.
Winner = Callable[[list[Play], str | None, str | None], int]

_ME = -1  # a placeholder seat for "my card" in a trial trick


@dataclass(frozen=True)
class TrickSpot:
    """The trick a seat must play to, as far as the rules of thumb need it."""

    trick: list[Play]
    players: int
    trumps: str | None = None
    led: str | None = None
    winner: Winner = trick_winner

    @property
    def leading(self) -> bool:
        """True when the trick is empty: the seat leads."""
        return not self.trick

    @property
    def last_to_play(self) -> bool:
        """True when the seat's card completes the trick."""
        return len(self.trick) == self.players - 1

    def wins(self, card: str) -> bool:
        """True if ``card`` would take the trick as it stands now."""
        if not self.trick:
            return True
        return self.winner([*self.trick, [_ME, card]], self.trumps, self.led) == _ME

    def cards(self) -> list[str]:
        """The cards already on the table."""
        return [str(card) for _, card in self.trick]


def power(card: str, trumps: str | None) -> int:
    """A card's trick-taking power for ordering: trumps above every plain card."""
    return RANK_STRENGTH[card[0]] + (100 if trumps is not None and card[1] == trumps else 0)


def lowest(cards: list[str], trumps: str | None) -> str:
    """The weakest card."""
    return min(cards, key=lambda c: power(c, trumps))


def highest(cards: list[str], trumps: str | None) -> str:
    """The strongest card."""
    return max(cards, key=lambda c: power(c, trumps))


def take_if_worth(
    spot: TrickSpot,
    legal: list[str],
    pays: Callable[[list[str], str], bool],
    value: Callable[[str], float],
) -> str:
    """Follow to a trick you would like to win: win it cheaply if it pays, else duck.

    ``pays(on_table, card)`` says whether winning the trick with ``card`` is
    worth it. Last to play, the cheapest paying winner takes it; earlier, the
    strongest, so it is less likely to be overtaken. Ducking throws the card
    whose loss costs least: lowest ``value``, then lowest power; forced to win
    a trick that does not pay, win it with the most valuable, lowest card.
    """
    winners = [c for c in legal if spot.wins(c)]
    on_table = spot.cards()
    paying = [c for c in winners if pays(on_table, c)]
    if paying:
        return lowest(paying, spot.trumps) if spot.last_to_play else highest(paying, spot.trumps)
    losers = [c for c in legal if c not in winners]
    if losers:
        return min(losers, key=lambda c: (value(c), power(c, spot.trumps)))
    # Forced to win: the card comes back, so keep the least valuable one out of it.
    return min(legal, key=lambda c: (-value(c), power(c, spot.trumps)))


def avoid(spot: TrickSpot, legal: list[str], danger: Callable[[str], float]) -> str:
    """Follow to a trick you would rather not win.

    Stay under the winning card with the highest card that still loses —
    shedding a dangerous card first, since the trick goes to somebody else.
    Forced to win, win with the highest safe card, keeping dangerous ones out.
    """
    losers = [c for c in legal if not spot.wins(c)]
    if losers:
        return max(losers, key=lambda c: (danger(c), power(c, spot.trumps)))
    return max(legal, key=lambda c: (-danger(c), power(c, spot.trumps)))


def lead_low(legal: list[str], trumps: str | None, danger: Callable[[str], float]) -> str:
    """Lead the lowest safe card, from the suit where it is lowest."""
    return min(legal, key=lambda c: (danger(c), power(c, trumps)))


def lead_strong(legal: list[str], hand: list[str], trumps: str | None, played: set[str]) -> str:
    """Lead from strength: a master card (highest left in its suit) if any, else
    the lowest card of the longest plain suit."""
    masters = [c for c in legal if is_master(c, hand, played)]
    if masters:
        return max(masters, key=lambda c: (c[1] != trumps, power(c, trumps)))
    lengths = {s: sum(1 for c in hand if c[1] == s) for s in "SHDC"}
    return min(legal, key=lambda c: (c[1] == trumps, -lengths[c[1]], power(c, trumps)))


#: The ranks above each rank.
HIGHER = {
    rank: [r for r, v in RANK_STRENGTH.items() if v > RANK_STRENGTH[rank]] for rank in RANK_STRENGTH
}


def is_master(card: str, hand: list[str], played: set[str]) -> bool:
    """True if no higher card of the suit is still out (all played or held)."""
    return all(r + card[1] in played or r + card[1] in hand for r in HIGHER[card[0]])


def played_cards(history: list[dict[str, object]], trick: list[Play]) -> set[str]:
    """Every card seen in this deal's completed tricks and the current one."""
    seen = {str(card) for _, card in trick}
    for done in history:
        plays = done["cards"]
        assert isinstance(plays, list)
        seen.update(str(card) for _, card in plays)
    return seen
