"""Play: a human's move, a take-back, a hint — and the change any move makes.

:meth:`Play.move` is the one place a move becomes a :class:`~sessions.change.Change`
(the new state, its log row, the finished match's results and rating), whoever
made it: a human here, a computer or an expired timer in :mod:`sessions.turns`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from games import Game, IllegalAction
from sessions.change import Change, turn_deadline
from sessions.checks import require_running, require_seat, takeback_allowed
from sessions.daily import daily_score, deal_over
from sessions.hints import HintSearches
from sessions.model import Computer, Outcome, Player, Refusal, Session
from sessions.ratings import RatedMatch, rated_match
from sessions.replay import TAKE_BACK, in_effect, replay
from sessions.repository import Repository
from sessions.timers import Clock
from storage import MoveRecord, ResultRecord

log = logging.getLogger(__name__)


class Play:
    """The moves at the tables of one :class:`~sessions.SessionManager`."""

    def __init__(self, repo: Repository, computer: Computer, clock: Clock) -> None:
        self.repo = repo
        self._computer = computer
        self._clock = clock
        self._hints = HintSearches()

    async def act(self, session_id: int, user_id: int, version: int, action: str) -> Outcome:
        """A human's move: checked in the documented order, committed in one transaction."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if version < session.version and await self._applied(session, user_id, version, action):
                raise Refusal("applied")
            game = require_running(session)
            seat = require_seat(session, user_id)
            if session.paused:
                raise Refusal("topic_closed")
            if version != session.version:
                raise Refusal("stale", str(session.version))
            if game.to_move != seat:
                raise Refusal("not_your_turn")
            seats = session.seats
            if seats[seat].timeouts:
                seats = list(seats)
                seats[seat] = replace(seats[seat], timeouts=0)
            try:
                return await self.move(session, seat, action, False, seats)
            except IllegalAction as error:
                raise Refusal("illegal", error.reason) from error

    async def _applied(self, session: Session, user_id: int, version: int, action: str) -> bool:
        """True if this very press (user, version, action) was committed already:
        Telegram delivers a press again when the bot crashed before confirming it."""
        move = await self.repo.sessions.move_at_version(session.id, version)
        return (
            move is not None
            and not move.by_computer
            and move.action == action
            and move.seat == session.seat_of(user_id)
        )

    async def take_back(self, session_id: int, user_id: int) -> Outcome:
        """At a table where every other seat is a computer: undo the player's last move of
        this deal and the computers' replies after it. Logged as a ``takeback:<k>`` row
        (the log is never rewritten); the state is the log in effect, replayed."""
        async with self.repo.lock(session_id):
            session = await self.repo.load(session_id)
            if session.seed is None:
                raise Refusal("not_running", session.status)
            now_playing = require_running(session)
            seat = require_seat(session, user_id)
            if not takeback_allowed(session):
                raise Refusal("takeback_off")
            moves = in_effect(await self.repo.sessions.moves_of(session_id), lambda m: m.action)
            mine = [i for i, m in enumerate(moves) if m.seat == seat and not m.by_computer]
            if not mine:
                raise Refusal("nothing_to_take_back")
            kept = [(m.seat, m.action) for m in moves[: mine[-1]]]
            game = replay(session.game_id, len(session.seats), session.options, session.seed,
                          kept)
            if game.deal_no != now_playing.deal_no:  # that move ended the last deal
                raise Refusal("nothing_to_take_back")
            undone = len(moves) - mine[-1]
            back = replace(
                session,
                game=game,
                moves=session.moves + 1,
                deadline=turn_deadline(game, session.seats, session.timer, self._clock()),
            )
            move = MoveRecord(back.moves, seat, f"{TAKE_BACK}:{undone}", False, self._clock(),
                              session.version)
            saved = await self.repo.commit(Change.of(session, back, move=move))
            return Outcome(saved, [{"type": "take_back", "seat": seat, "moves": undone}], seat,
                           False)

    async def hint(self, session_id: int, user_id: int) -> str:
        """The move the strong computer would make for ``user_id``'s seat, from that
        seat's view only; counted for the result. Computed outside the session's lock
        and changing nothing at the table (no new version: the turn timer runs on).
        One search per seat at a time, one per version: a press again at the same
        version waits for (or gets) the same answer and is not counted again; a press
        at a newer version while the last search still runs is ``hint_busy``."""
        session = await self.repo.load(session_id)
        seat = session.seat_of(user_id)
        if session.status != "running" or session.game is None:
            raise Refusal("not_running")
        if seat is None:
            raise Refusal("not_a_player")
        if not session.hints_on:
            raise Refusal("hints_off")
        if session.to_move != seat:
            raise Refusal("not_your_turn")
        view = session.view(seat)
        seed = ((session.seed or 0) + session.version * 7919 + seat) % (1 << 63)

        async def search() -> str:
            action = await self._computer.choose(session.game_id, view, "strong", seed)
            if action not in view["legal"]:
                action = str(view["legal"][0])
            await self.repo.sessions.use_hint(session_id, seat)
            return action

        action, _ = await self._hints.answer(session_id, seat, session.version, search)
        return action

    async def move(
        self, session: Session, seat: int, action: str, by_computer: bool, seats: list[Player]
    ) -> Outcome:
        """Apply ``action`` to a copy of the game and commit the state with ``seats``, the
        version and the log row (and a finished match's results and rating) as one
        change; IllegalAction if the rules refuse it. The caller holds the lock."""
        assert session.game is not None
        game = session.game.clone()
        events = game.apply(seat, action)
        now = self._clock()
        moved = replace(
            session,
            game=game,
            seats=seats,
            moves=session.moves + 1,
            status="finished" if game.finished else "running",
            result=game.result,
            deadline=turn_deadline(game, seats, session.timer, now),
            last_deal=_last_deal(session.last_deal, game, events),
        )
        move = MoveRecord(moved.moves, seat, action, by_computer, now, session.version)
        if session.daily is not None:  # one deal, scored on the day's board only
            over = deal_over(session, game, events)
            if over is not None:
                moved = replace(moved, status="finished", result=over, deadline=None)
            change = Change.of(session, moved, move=move, daily_score=daily_score(moved, now))
            return Outcome(await self.repo.commit(change), events, seat, by_computer)
        results = _results(moved, now)
        rated = None
        if results and not await self.repo.taken_back(session.id):
            rated = _rated(moved, results, now)
        change = Change.of(session, moved, move=move, results=results, rated=rated)
        return Outcome(await self.repo.commit(change), events, seat, by_computer)

    async def computer_move(
        self, session: Session, seat: int, action: str | None, seats: list[Player]
    ) -> Outcome:
        """Commit a computer's choice; an illegal or missing one falls back to the first legal."""
        assert session.game is not None
        if action is not None:
            try:
                return await self.move(session, seat, action, True, seats)
            except IllegalAction as error:
                log.warning(
                    "computer chose illegal %r in session %s (%s); playing the first legal",
                    action,
                    session.id,
                    error.reason,
                )
        fallback = session.game.legal_actions(seat)[0]
        return await self.move(session, seat, fallback, True, seats)


def _last_deal(
    before: dict[str, Any] | None, game: Game, events: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The last finished deal's points (from a ``deal_end`` event), kept until the next."""
    for event in events:
        if event.get("type") == "deal_end":
            scores = event.get("deal_scores", event.get("scores"))
            if scores is not None:
                return {"deal_no": game.deal_no, "scores": list(scores)}
    return before


def _results(session: Session, now: float) -> list[ResultRecord]:
    """The humans' tally rows of a finished match (none while it runs)."""
    if session.status != "finished" or session.result is None:
        return []
    winners = set(session.result.get("winners", []))
    scores = session.result.get("scores", [])
    return [
        ResultRecord(player.user_id, seat, seat in winners, float(scores[seat]), now)
        for seat, player in enumerate(session.seats)
        if player.user_id is not None
    ]


def _rated(session: Session, results: list[ResultRecord], now: float) -> RatedMatch | None:
    """The finished match to rate, with its humans who have a result row, in the
    season of ``now``."""
    return rated_match(
        session.id,
        session.game_id,
        session.kind,
        session.chat_id,
        session.result,
        [(player.user_id, player.level) for player in session.seats],
        [share.user_id for share in results],
        now,
    )
