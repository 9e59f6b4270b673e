"""⚖️ Compare a daily deal: your decisions beside the best player's and the computer's.

Everyone's daily deal of a game on one day is the same deal with the human in seat
0, so two plays of it line up by seat 0 and by **decision number** (the seat's
decisions with a choice, 1 first, as the 📈 Review counts them). Once two players
choose differently their games go apart, and a later decision of the rival's was
made in another position: the compare matches them by number all the same, and
says so.

The rival is the top of the day's board of that game, or the runner-up when the top
is the viewer; alone on the board, only the computer's choices are shown. The
computer's choice is the 📈 Review's verdict in the viewer's own position
(:attr:`sessions.review.DealReview.choices`): a kept review is reused, else the
review runs through the user's one reservation (:meth:`Reviews.reserve`, job
``compare``).

Nothing the viewer may not know is shown. While the day lasts (the daily seed is
sealed: :func:`sessions.daily.revealed`), a rival's move that names a card the
viewer never saw — not in their record of the deal, never in their own view of it
(a card the rival drew from the stock deeper than the viewer got) — is kept out of
the :class:`Comparison` altogether (``hidden``). A draw is the action ``draw``: it
names no card.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from games import REGISTRY
from games.cards import is_card
from games.melds import meld_cards
from games.record import DealRecord, deal_records
from sessions.daily import revealed
from sessions.model import Refusal
from sessions.repository import Repository
from sessions.review import DealReview, PlayedDeal, Reviews, Ticket
from sessions.timers import Clock

#: How many of the board's best plays are looked at for a rival (the first that is
#: not the viewer's and still has its table).
RIVALS = 3


@dataclass(frozen=True)
class Rival:
    """The player the viewer is compared with: name, points and place on the board."""

    user_id: int
    name: str
    points: float
    place: int


@dataclass(frozen=True)
class Step:
    """One of the viewer's decisions beside the others'.

    ``rival``: the rival's decision of the same number (None: there is no rival, or
    their deal was over before it; ``""`` when ``hidden``); ``hidden``: it names a
    card the viewer has not seen, so it is not given; ``computer``: the strong
    computer's choice in the viewer's position (None: not judged in time).
    """

    number: int
    trick: int
    yours: str
    rival: str | None
    computer: str | None
    hidden: bool = False

    @property
    def agreed(self) -> bool:
        """True if every choice known here is the viewer's."""
        return not self.hidden and all(
            other is None or other == self.yours for other in (self.rival, self.computer)
        )


@dataclass(frozen=True)
class Same:
    """A run of decisions where every choice agreed: ``first`` to ``last``."""

    first: int
    last: int


@dataclass(frozen=True)
class Comparison:
    """The viewer's decisions in one daily deal beside the rival's and the computer's.

    ``unjudged``: the viewer's decisions the computer had no time for."""

    session_id: int
    deal_no: int
    game_id: str
    seat: int
    rival: Rival | None
    steps: tuple[Step, ...]
    unjudged: int

    def same(self, step: Step) -> bool:
        """True if every choice at ``step`` is there and the viewer's: the computer
        judged it, and the rival (if there is one) made a decision of that number,
        given, not hidden. A step with a choice missing is never folded into "the same"."""
        present = step.computer is not None and (self.rival is None or step.rival is not None)
        return present and step.agreed

    def runs(self) -> Iterator[Step | Same]:
        """The steps in order, each run of the :meth:`same` ones as one :class:`Same`."""
        run: list[Step] = []
        for step in self.steps:
            if self.same(step):
                run.append(step)
                continue
            if run:
                yield Same(run[0].number, run[-1].number)
                run = []
            yield step
        if run:
            yield Same(run[0].number, run[-1].number)


class Comparisons:
    """⚖️ Compare for the daily deals of one worker: who may ask, the rival, the answer."""

    def __init__(self, repo: Repository, reviews: Reviews, clock: Clock) -> None:
        self.repo = repo
        self._reviews = reviews
        self._clock = clock

    async def prepare(self, session_id: int, deal_no: int, user_id: int) -> Ticket[Comparison]:
        """Check a press on ⚖️ Compare of finished deal ``deal_no`` (0 first) of a daily
        table and say what it gets: the comparison at once (the review is kept), the
        same compare running already, or a new one reserved for the user, to run.

        Refusals: ``deal_not_finished`` (no such finished deal), ``compare_not_daily``
        (not a daily deal), ``compare_players_only`` (not the user's play),
        ``compare_not_finished`` (their daily play is not over), ``compare_busy``
        (a review or compare of theirs runs)."""
        deal = await self._reviews.played_deal(session_id, deal_no, user_id)
        session = deal.session
        if session.daily is None:
            raise Refusal("compare_not_daily")
        if deal.seat is None:
            raise Refusal("compare_players_only")
        if session.status != "finished":
            raise Refusal("compare_not_finished")
        found = await self._rival(session.daily, session.game_id, deal_no, user_id)
        rival, theirs = found if found is not None else (None, [])
        sealed = rival is not None and not revealed(session, self._clock())
        known = seen_cards(deal) if sealed else None
        # no await from here on: the reservation cannot race a doubled press
        ticket = self._reviews.reserve(deal, user_id, "compare")
        return ticket.then(lambda review: compare(deal, review, rival, theirs, known))

    async def _rival(
        self, day: int, game_id: str, deal_no: int, user_id: int
    ) -> tuple[Rival, list[str]] | None:
        """The best play of the day's deal but the user's, with its decisions in deal
        ``deal_no``; None when no one else has played it."""
        for row in await self.repo.daily.daily_board(day, game_id, limit=RIVALS):
            if row.user_id == user_id:
                continue
            play = await self.repo.daily.daily_result(day, game_id, row.user_id)
            if play is None:
                continue
            rival = Rival(row.user_id, row.name, row.points, row.place)
            try:
                theirs = await self._reviews.played_deal(play.session, deal_no, row.user_id)
            except Refusal as refusal:
                if refusal.code == "deal_not_finished":  # their match had fewer deals
                    return rival, []
                continue  # their table is gone
            if theirs.seat is None:
                continue
            return rival, [point.chosen for point in theirs.decisions(theirs.seat)]
        return None


def compare(
    deal: PlayedDeal,
    review: DealReview,
    rival: Rival | None,
    theirs: list[str],
    known: frozenset[str] | None,
) -> Comparison:
    """The viewer's decisions in ``deal`` beside the rival's (``theirs``, by number)
    and the computer's (``review``). ``known``: the cards the viewer has seen (None:
    the day is over and every card may be shown)."""
    assert deal.seat is not None
    steps = []
    for point in deal.decisions(deal.seat):
        index = point.number - 1
        computer = review.choices[index] if index < len(review.choices) else None
        other = theirs[index] if index < len(theirs) else None
        hidden = (
            other is not None and known is not None
            and not set(action_cards(other, deal.session.game_id)) <= known
        )
        steps.append(Step(point.number, point.trick, point.chosen,
                          "" if hidden else other, computer, hidden))
    return Comparison(deal.session.id, deal.deal_no, deal.session.game_id, deal.seat,
                      rival, tuple(steps), review.unjudged)


def action_cards(action: str, game_id: str) -> list[str]:
    """The cards an action names: the card played (``QS``, ``JS:H``, ``AS:trump``),
    laid off (``lay:QS:2``) or melded (``set:7:SHD``, ``run:H:7-9``)."""
    if game_id == "rummy" and action.startswith(("set:", "run:")):
        return meld_cards(action) or []
    return [part for part in action.split(":") if is_card(part)]


def seen_cards(deal: PlayedDeal) -> frozenset[str]:
    """Every card the viewer has seen of the deal: what their 📜 record shows (every
    hand as dealt, the turned-up card, every move and trick, a showdown) and what
    their own seat's view showed at any moment of it (the cards they drew)."""
    assert deal.seat is not None
    session = deal.session
    assert session.seed is not None
    game_id, players = session.game_id, len(session.seats)
    record = deal_records(game_id, players, session.options, session.seed,
                          deal.played)[deal.deal_no]
    seen = set(_record_cards(record, game_id))
    game = REGISTRY[game_id].new(players, session.options, session.seed)
    for mover, action in deal.played:
        if game.deal_no > deal.deal_no or game.finished:
            break
        if game.deal_no == deal.deal_no:
            seen.update(_cards_within(game.view(deal.seat), game_id))
        game.apply(mover, action)
    if game.deal_no == deal.deal_no:
        seen.update(_cards_within(game.view(deal.seat), game_id))
    return frozenset(seen)


def _record_cards(record: DealRecord, game_id: str) -> Iterator[str]:
    """The cards a deal's record shows (``bot.render.record.deal_lines``)."""
    for hand in record.hands:
        yield from hand
    for key in ("trump_card", "discard_top"):
        card = record.start.get(key)
        if isinstance(card, str) and is_card(card):
            yield card
    for turn in record.turns:
        yield from action_cards(turn.action, game_id)
        for event in turn.events:
            if event.get("type") == "trick":
                yield from (card for _, card in event["cards"])
            elif event.get("type") == "showdown":
                for hand in event.get("hands", []):
                    yield from hand


def _cards_within(value: Any, game_id: str) -> Iterable[str]:
    """Every card named anywhere in a view (its hand, the table, its legal moves)."""
    if isinstance(value, str):
        return action_cards(value, game_id)
    if isinstance(value, dict):
        return [card for item in value.values() for card in _cards_within(item, game_id)]
    if isinstance(value, list | tuple):
        return [card for item in value for card in _cards_within(item, game_id)]
    return []
