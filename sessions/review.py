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
A user runs one review at a time: a press on another deal's Review while one
runs is ``review_busy``; a press on the same one starts nothing (``running``).
The ⚖️ Compare of a daily deal (:mod:`sessions.compare`) needs the same review and
takes its turn through the same reservation (:meth:`Reviews.reserve`, its own job
``compare``), so a user never has two searches in the pool. Every decision's
verdict is kept (:attr:`DealReview.choices`), not only the mistakes: the compare
shows the computer's choice at each of them.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from games.ai.review import DecisionPoint, Grade, Verdict, decision_points, grade, review_decision
from games.record import deal_records
from sessions.model import Computer, Refusal, Reviewer, Session
from sessions.replay import in_effect
from sessions.repository import Repository

#: how many reviews (deal and seat) a worker keeps; the oldest go first
KEPT = 512

#: what a user's reserved search is for: 📈 Review or ⚖️ Compare
Job = Literal["review", "compare"]

Answer = TypeVar("Answer")
Other = TypeVar("Other")


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

    ``decisions``: the seat's decisions with a choice; ``choices``: the strong
    computer's choice at each of them, in order (None where the pool had no time);
    ``unjudged``: those the pool had no time for; ``worlds``: deals sampled in all;
    ``seconds``: the review's wall time."""

    session_id: int
    deal_no: int
    seat: int
    game_id: str
    decisions: int
    findings: tuple[Finding, ...]
    choices: tuple[str | None, ...]
    unjudged: int
    worlds: int
    seconds: float


@dataclass(frozen=True)
class Ticket(Generic[Answer]):
    """What a press on 📈 Review (or ⚖️ Compare) gets: the ``kept`` answer, or
    ``running`` (the same job runs already: nothing new starts), or ``run``, the new
    job to await (reserved for the user until it ends)."""

    kept: Answer | None = None
    running: bool = False
    run: Callable[[], Awaitable[Answer]] | None = None

    def then(self, build: Callable[[Answer], Other]) -> Ticket[Other]:
        """The same ticket with ``build`` made of its answer (the kept one at once, a
        run's once it ends)."""
        if self.kept is not None:
            return Ticket(kept=build(self.kept))
        run = self.run
        if run is None:
            return Ticket(running=self.running)

        async def then_run() -> Other:
            return build(await run())

        return Ticket(run=then_run)


@dataclass(frozen=True)
class PlayedDeal:
    """A finished deal as the log played it: the session, the deal (0 first), the
    seat of the user who asks (None: not a player), the moves in effect from the
    match's start, and the indices of those a computer made."""

    session: Session
    deal_no: int
    seat: int | None
    played: tuple[tuple[int, str], ...]
    by_computer: frozenset[int]

    def decisions(self, seat: int) -> list[DecisionPoint]:
        """``seat``'s decisions with a choice in the deal (those a computer made for it
        left out)."""
        session = self.session
        assert session.seed is not None
        return decision_points(
            session.game_id, len(session.seats), session.options, session.seed, self.played,
            self.deal_no, seat, skip=self.by_computer,
        )


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
        #: the job each user waits for: its review's key and what it is for
        self._running: dict[int, tuple[tuple[int, int, int], Job]] = {}

    async def prepare(self, session_id: int, deal_no: int, user_id: int) -> Ticket[DealReview]:
        """Check a press on 📈 Review of finished deal ``deal_no`` (0 first) for
        ``user_id``'s seat and say what it gets (:class:`Ticket`): the kept answer, the
        review of it already running, or a new review reserved for this user, to run.

        Refusals: ``deal_not_finished`` (no such finished deal), ``review_players_only``
        (the user did not play in it), ``review_busy`` (another review of theirs runs).
        """
        deal = await self.played_deal(session_id, deal_no, user_id)
        if deal.seat is None:
            raise Refusal("review_players_only")
        return self.reserve(deal, user_id, "review")

    async def played_deal(self, session_id: int, deal_no: int, user_id: int) -> PlayedDeal:
        """Finished deal ``deal_no`` (0 first) of the session as played, with the seat
        ``user_id`` played in it (Refusal ``deal_not_finished``: no such finished deal)."""
        session = await self.repo.load(session_id)
        if session.seed is None or session.game is None:
            raise Refusal("deal_not_finished")
        moves = in_effect(await self.repo.sessions.moves_of(session.id), lambda m: m.action)
        played = tuple((m.seat, m.action) for m in moves)
        finished = deal_records(session.game_id, len(session.seats), session.options,
                                session.seed, played)
        if not 0 <= deal_no < len(finished):
            raise Refusal("deal_not_finished")
        computer = frozenset(index for index, move in enumerate(moves) if move.by_computer)
        return PlayedDeal(session, deal_no, reviewing_seat(session, user_id), played, computer)

    def reserve(self, deal: PlayedDeal, user_id: int, job: Job) -> Ticket[DealReview]:
        """The review of ``deal``'s seat for ``user_id``'s ``job``: kept, running already
        (the same job pressed again), or reserved for the user and to run. Refusal while
        another job of the user's runs: ``review_busy`` (a review while a review runs),
        else ``compare_busy``. Nothing awaits in here, so a doubled press cannot slip
        past the reservation."""
        assert deal.seat is not None
        key = (deal.session.id, deal.deal_no, deal.seat)
        kept = self._answers.get(key)
        if kept is not None:
            self._answers.move_to_end(key)
            return Ticket(kept=kept)
        running = self._running.get(user_id)
        if running is not None:
            if running != (key, job):
                both_reviews = job == running[1] == "review"
                raise Refusal("review_busy" if both_reviews else "compare_busy")
            return Ticket(running=True)
        self._running[user_id] = (key, job)
        seat = deal.seat

        async def run() -> DealReview:
            try:
                found = await self._review(deal.session, deal.deal_no, seat, deal.decisions(seat))
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
        choices: list[str | None] = []
        unjudged = worlds = 0
        for point in points:
            verdict = await self._judge(session.game_id, point, session.seed + point.turn)
            worlds += verdict.worlds
            unjudged += not verdict.evaluated
            choices.append(verdict.best if verdict.evaluated else None)
            graded = grade(session.game_id, verdict)
            if graded is not None:
                findings.append(Finding(point.number, point.trick, point.chosen, verdict.best,
                                        verdict.cost, graded))
        return DealReview(session.id, deal_no, seat, session.game_id, len(points),
                          tuple(findings), tuple(choices), unjudged, worlds,
                          time.perf_counter() - started)

    async def _judge(self, game_id: str, point: DecisionPoint, seed: int) -> Verdict:
        """One decision judged in the pool, at low priority (a thread without one)."""
        seed %= 1 << 63
        if isinstance(self._computer, Reviewer):
            return await self._computer.review(game_id, point.view, point.chosen, seed)
        return await asyncio.to_thread(review_decision, game_id, point.view, point.chosen, seed)
