"""📈 Review after a deal: who may ask, one review per user at a time, one answer per
deal and seat.

Only the players of a deal (the human in the seat, or the human a computer stood
in for) may review it, and only their own seat; the decisions are rebuilt from
the stored seed and move log (``games.ai.review.decision_points``), the ones a
computer made for the seat left out, and judged one per job of the computer
players' pool at low priority (:class:`sessions.model.Reviewer`;
``sessions.computer.ComputerPlayer.review``). A computer without a pool (a test
double) is judged in a thread instead.

The answers are kept **in this worker's memory** (the newest :data:`KEPT`, keyed
by session, deal and seat): a finished deal never changes, so an answer stays
right, and a second press costs no search. With several workers each keeps its
own; a restart forgets them (a press then reviews again). No table is needed.
A user reviews one deal at a time: a press on another deal's Review while one
runs is ``review_busy``; a press on the same one starts nothing (``running``).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from games.ai.review import DecisionPoint, Grade, Verdict, decision_points, grade, review_decision
from games.record import deal_records
from sessions.model import Computer, Refusal, Reviewer, Session
from sessions.replay import in_effect
from sessions.repository import Repository

#: how many reviews (deal and seat) a worker keeps; the oldest go first
KEPT = 512


@dataclass(frozen=True)
class Finding:
    """A decision that cost points: where, what was played, what was better, how much."""

    number: int
    trick: int
    chosen: str
    best: str
    cost: float
    grade: Grade


@dataclass(frozen=True)
class DealReview:
    """The review of one seat's decisions in one finished deal.

    ``decisions``: the seat's decisions with a choice; ``unjudged``: those the
    pool had no time for; ``worlds``: deals sampled in all; ``seconds``: the
    review's wall time."""

    session_id: int
    deal_no: int
    seat: int
    game_id: str
    decisions: int
    findings: tuple[Finding, ...]
    unjudged: int
    worlds: int
    seconds: float


@dataclass(frozen=True)
class Ticket:
    """What a press on 📈 Review gets: the ``kept`` answer, or ``running`` (the same
    review runs already: nothing new starts), or ``run``, the new review to await
    (reserved for the user until it ends)."""

    kept: DealReview | None = None
    running: bool = False
    run: Callable[[], Awaitable[DealReview]] | None = None


def reviewing_seat(session: Session, user_id: int) -> int | None:
    """The seat ``user_id`` played: theirs, or the one a computer holds for them."""
    seat = session.seat_of(user_id)
    if seat is not None:
        return seat
    for index, player in enumerate(session.seats):
        if player.stands_in_for == user_id:
            return index
    return None


class Reviews:
    """The deal reviews of one worker: who may ask, one per user, the answers kept."""

    def __init__(self, repo: Repository, computer: Computer, kept: int = KEPT) -> None:
        self.repo = repo
        self._computer = computer
        self._kept = kept
        self._answers: OrderedDict[tuple[int, int, int], DealReview] = OrderedDict()
        #: the review each user waits for: its key and its answer to come
        self._running: dict[int, tuple[int, int, int]] = {}

    async def prepare(self, session_id: int, deal_no: int, user_id: int) -> Ticket:
        """Check a press on 📈 Review of finished deal ``deal_no`` (0 first) for
        ``user_id``'s seat and say what it gets (:class:`Ticket`): the kept answer, the
        review of it already running, or a new review reserved for this user, to run.

        Refusals: ``deal_not_finished`` (no such finished deal), ``review_players_only``
        (the user did not play in it), ``review_busy`` (another review of theirs runs).
        """
        session = await self.repo.load(session_id)
        seat = reviewing_seat(session, user_id)
        if session.seed is None or session.game is None:
            raise Refusal("deal_not_finished")
        moves = in_effect(await self.repo.sessions.moves_of(session.id), lambda m: m.action)
        played = [(m.seat, m.action) for m in moves]
        players = len(session.seats)
        finished = deal_records(session.game_id, players, session.options, session.seed, played)
        if not 0 <= deal_no < len(finished):
            raise Refusal("deal_not_finished")
        if seat is None:
            raise Refusal("review_players_only")
        key = (session_id, deal_no, seat)
        # no await from here on: the reservation cannot race a doubled press
        kept = self._answers.get(key)
        if kept is not None:
            self._answers.move_to_end(key)
            return Ticket(kept=kept)
        running = self._running.get(user_id)
        if running is not None:
            if running != key:
                raise Refusal("review_busy")
            return Ticket(running=True)
        self._running[user_id] = key
        points = decision_points(
            session.game_id, players, session.options, session.seed, played, deal_no, seat,
            skip={index for index, move in enumerate(moves) if move.by_computer},
        )

        async def run() -> DealReview:
            try:
                found = await self._review(session, deal_no, seat, points)
            finally:
                del self._running[user_id]
            self._answers[key] = found
            while len(self._answers) > self._kept:
                self._answers.popitem(last=False)
            return found

        return Ticket(run=run)

    def running(self, user_id: int) -> bool:
        """True while a review of ``user_id``'s runs."""
        return user_id in self._running

    async def _review(
        self, session: Session, deal_no: int, seat: int, points: list[DecisionPoint]
    ) -> DealReview:
        """Judge each of the seat's decisions in turn."""
        started = time.perf_counter()
        assert session.seed is not None
        findings: list[Finding] = []
        unjudged = worlds = 0
        for point in points:
            verdict = await self._judge(session.game_id, point, session.seed + point.turn)
            worlds += verdict.worlds
            unjudged += not verdict.evaluated
            graded = grade(session.game_id, verdict)
            if graded is not None:
                findings.append(Finding(point.number, point.trick, point.chosen, verdict.best,
                                        verdict.cost, graded))
        return DealReview(session.id, deal_no, seat, session.game_id, len(points),
                          tuple(findings), unjudged, worlds, time.perf_counter() - started)

    async def _judge(self, game_id: str, point: DecisionPoint, seed: int) -> Verdict:
        """One decision judged in the pool, at low priority (a thread without one)."""
        seed %= 1 << 63
        if isinstance(self._computer, Reviewer):
            return await self._computer.review(game_id, point.view, point.chosen, seed)
        return await asyncio.to_thread(review_decision, game_id, point.view, point.chosen, seed)
