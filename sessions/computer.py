"""The computer players behind the session layer, thinking off the event loop.

:class:`ComputerPlayer` honours the session layer's ``Computer`` protocol
(docs/sessions-api.md): ``await choose(game_id, view, level, seed)``. Searches
(normal, strong, and easy's sampled bids) run in a process pool with one worker
per core, so a computer thinking in one chat never delays an update in another;
instant decisions are answered in-process. If the pool breaks (a worker died),
it is replaced and that one decision falls back to the easy policy in-process.

Waiting is bounded: each request gets an absolute deadline when the computer
becomes "to move" (now + the level's budget), and the worker searches only
until then — with a queue ahead of it, it gets fewer samples (possibly none: an
instant rule-of-thumb move), never a later answer. Each request's share of the
budget also shrinks with the requests in flight, so a busy pool spreads its
time over all the tables instead of serving the first ones fully. Should a
reply still be late by :data:`MARGIN_SECONDS`, the easy move is played instead.
The pool takes one search per worker at a time; the rest wait here, queued per
chat (:data:`sessions.model.TURN_OWNER`) and let in by turns, one chat after
another: one chat's many searches never hold back another chat's computer.
Workers import only ``games`` (``games.ai.worker``), report their memory, and
die with the bot; they are started with it (:meth:`ComputerPlayer.start`).

Reviews after a deal (:meth:`ComputerPlayer.review`, one decision per job) run in
the same pool at **low priority**: a review step waits while any computer move
waits, at most :data:`REVIEW_WORKERS` of them hold a worker at a time, and each
is bounded by its budget (:data:`games.ai.review.REVIEW_BUDGET`, half a second),
so a computer move queued behind one waits at most that long, and its own
deadline (set when it was asked) never moves.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from games import ai
from games.ai import HARD_CAP_SECONDS, Budget, level_budget
from games.ai.review import REVIEW_BUDGET, Verdict
from games.ai.worker import Reply, ReviewReply, die_with, judge, loaded_packages, think
from sessions.model import TURN_OWNER

log = logging.getLogger(__name__)

ExecutorFactory = Callable[[int], Executor]

#: How late past its deadline a worker's reply may be before the easy move is played.
MARGIN_SECONDS = 0.4
#: The wall time easy's sampled decisions (bids, trumps) may take.
EASY_SECONDS = 0.5
#: How many review steps (low priority) may hold a worker at once.
REVIEW_WORKERS = 1


def process_pool(workers: int) -> Executor:
    """A pool of ``workers`` fresh processes (spawned: the bot's threads are not copied)
    that die with this process, however it ends."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with,
        initargs=(os.getpid(),),
    )


class ComputerPlayer:
    """Chooses moves for computer seats; ``close()`` when the bot stops.

    ``budgets`` overrides the thinking budget per level (tests pass playout
    budgets to make results reproducible); ``executor_factory`` builds the pool.
    """

    def __init__(
        self,
        workers: int | None = None,
        budgets: Mapping[str, Budget] | None = None,
        executor_factory: ExecutorFactory = process_pool,
        review_budget: Budget | None = None,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._budgets = dict(budgets or {})
        self._factory = executor_factory
        self._pool: Executor | None = None
        self._closed = False
        self._in_flight = 0
        self._memory: dict[int, int] = {}
        self._searching = 0  # searches in the pool: at most one per worker
        #: searches waiting for a worker, per chat, chats in the order they are let in
        self._waiting: OrderedDict[int | None, deque[asyncio.Future[None]]] = OrderedDict()
        self._review_budget = review_budget or REVIEW_BUDGET
        self._reviewing = 0  # review steps in the pool: at most REVIEW_WORKERS
        #: review steps waiting for a worker, served only when no move waits
        self._reviews: deque[asyncio.Future[None]] = deque()

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """One of ``view["legal"]`` for the seat whose view it is, at ``level``.

        Raises ValueError for an unknown game or level or a view with no legal
        action, and RuntimeError once closed.
        """
        if self._closed:
            raise RuntimeError("the computer player is closed")
        ai.check_request(game_id, view, level)
        if not ai.needs_thought(game_id, view, level):
            return ai.choose(game_id, view, level, seed)
        submitted = time.time()
        budget, deadline = self._budget(game_id, level, submitted)
        full = deadline - submitted
        self._in_flight += 1
        try:
            try:
                await asyncio.wait_for(
                    self._take_worker(TURN_OWNER.get()), deadline + MARGIN_SECONDS - time.time()
                )
            except TimeoutError:
                log.warning("a %s %s move waited too long; playing the easy move", level, game_id)
                return ai.choose(game_id, view, "easy", seed)
            try:
                reply = await self._search(game_id, view, level, seed, budget, deadline)
            finally:
                self._free_worker()
        finally:
            self._in_flight -= 1
        if reply is None:
            return ai.choose(game_id, view, "easy", seed)
        self._note(game_id, level, reply, full, time.time() - submitted)
        return reply.decision.action

    async def _search(
        self,
        game_id: str,
        view: dict[str, Any],
        level: str,
        seed: int,
        budget: Budget | None,
        deadline: float,
    ) -> Reply | None:
        """The worker's reply, or None if it was late or the pool broke."""
        pool = self._ensure_pool()
        try:
            future = pool.submit(think, game_id, view, level, seed, budget, deadline)
            waiting = asyncio.wrap_future(future)
            try:
                reply: Reply = await asyncio.wait_for(
                    asyncio.shield(waiting), deadline + MARGIN_SECONDS - time.time()
                )
            except TimeoutError:
                future.cancel()
                log.warning("a %s %s move was late; playing the easy move", level, game_id)
                return None
        except BrokenProcessPool:
            log.warning("the computer players' process pool broke; starting a new one")
            self._replace_pool(pool)
            return None
        return reply

    async def _take_worker(self, owner: int | None) -> None:
        """Wait for a free worker: at once if one is free and nobody waits, else in
        ``owner``'s queue, let in by turns with the other chats' queues."""
        if self._searching < self.workers and not self._waiting:
            self._searching += 1
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(owner, deque()).append(ready)
        try:
            await ready
        except BaseException:
            if ready.done() and not ready.cancelled():
                self._free_worker()  # the worker came just as this wait was given up
            else:
                queue = self._waiting.get(owner)
                if queue is not None and ready in queue:
                    queue.remove(ready)
                    if not queue:
                        del self._waiting[owner]
            raise

    def _free_worker(self, review: bool = False) -> None:
        """A search (or a review step) is done: its worker goes to the next chat's first
        waiting search, else — while fewer than :data:`REVIEW_WORKERS` review — to the
        first waiting review step."""
        if review:
            self._reviewing -= 1
        while self._waiting:
            owner, queue = next(iter(self._waiting.items()))
            ready = queue.popleft()
            if queue:
                self._waiting.move_to_end(owner)
            else:
                del self._waiting[owner]
            if not ready.done():
                ready.set_result(None)
                return
        while self._reviews and self._reviewing < REVIEW_WORKERS:
            ready = self._reviews.popleft()
            if not ready.done():
                self._reviewing += 1
                ready.set_result(None)
                return
        self._searching -= 1

    async def _take_review_worker(self) -> None:
        """Wait for a worker at low priority: only when no computer move waits for one
        and fewer than :data:`REVIEW_WORKERS` review steps hold one."""
        if (
            self._searching < self.workers
            and not self._waiting
            and not self._reviews
            and self._reviewing < REVIEW_WORKERS
        ):
            self._searching += 1
            self._reviewing += 1
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._reviews.append(ready)
        try:
            await ready
        except BaseException:
            if ready.done() and not ready.cancelled():
                self._free_worker(review=True)  # the worker came just as this was given up
            elif ready in self._reviews:
                self._reviews.remove(ready)
            raise

    async def review(self, game_id: str, view: dict[str, Any], chosen: str, seed: int) -> Verdict:
        """The review of one decision (``games.ai.review.review_decision``) in the pool,
        at low priority, bounded by the review budget. A step that is late or meets a
        broken pool is returned as not evaluated (``evaluated`` False).

        Raises ValueError for an unknown game or a move the view does not offer, and
        RuntimeError once closed.
        """
        if self._closed:
            raise RuntimeError("the computer player is closed")
        if game_id not in ai.PLAYBOOKS or chosen not in view.get("legal", ()):
            raise ValueError(f"nothing to review: {game_id!r}, {chosen!r}")
        unjudged = Verdict(chosen, chosen, 0.0, 0.0, 0, evaluated=False)
        await self._take_review_worker()
        try:
            budget = self._review_budget
            seconds = min(budget.seconds or HARD_CAP_SECONDS, HARD_CAP_SECONDS)
            deadline = time.time() + seconds  # counted from when the worker was free
            pool = self._ensure_pool()
            try:
                future = pool.submit(judge, game_id, view, chosen, seed, budget, deadline)
                try:
                    reply: ReviewReply = await asyncio.wait_for(
                        asyncio.shield(asyncio.wrap_future(future)), seconds + MARGIN_SECONDS
                    )
                except TimeoutError:
                    future.cancel()
                    log.warning("a %s review step was late; left unjudged", game_id)
                    return unjudged
            except BrokenProcessPool:
                log.warning("the computer players' process pool broke; starting a new one")
                self._replace_pool(pool)
                return unjudged
        finally:
            self._free_worker(review=True)
        self._memory[reply.pid] = reply.rss_kib
        return reply.verdict

    def start(self) -> list[Future[list[str]]]:
        """Start the worker processes now, in the background (each takes about a second
        to spawn and import the rules), so the first computer move does not wait for
        them; one warm-up job per worker, whose futures are returned."""
        pool = self._ensure_pool()
        return [pool.submit(loaded_packages) for _ in range(self.workers)]

    def worker_memory(self) -> dict[int, int]:
        """The resident memory (KiB) each worker reported with its latest reply, by pid."""
        return dict(self._memory)

    def _budget(self, game_id: str, level: str, now: float) -> tuple[Budget | None, float]:
        """This request's budget (its share of the level's) and its absolute deadline."""
        budget = self._budgets.get(level) or level_budget(game_id, level)
        if budget is None:  # easy: a sampled bid or contract, bounded by its worlds
            return None, now + EASY_SECONDS
        seconds = budget.seconds if budget.seconds is not None else HARD_CAP_SECONDS
        deadline = now + seconds
        share = self.workers / max(self.workers, self._in_flight + 1)
        if budget.seconds is None or share >= 1.0:
            return budget, deadline
        shared = Budget(seconds=max(0.001, budget.seconds * share), playouts=budget.playouts)
        return shared, deadline

    def _note(self, game_id: str, level: str, reply: Reply, full: float, waited: float) -> None:
        """Log a search that got less than its level's budget; keep the worker's memory."""
        self._memory[reply.pid] = reply.rss_kib
        decision = reply.decision
        if decision.cut_short or decision.budget_seconds < full - 1e-6:
            log.debug(
                "%s %s under load: %d samples in %.0f ms of a %.0f ms budget "
                "(%.0f ms from request to move%s)",
                level,
                game_id,
                decision.samples,
                decision.seconds * 1000,
                full * 1000,
                waited * 1000,
                ", cut short by the queue" if decision.cut_short else "",
            )
        log.debug("worker %d holds %d KiB", reply.pid, reply.rss_kib)

    def close(self, wait: bool = False) -> None:
        """Stop the worker processes; pending searches are cancelled.

        ``wait``: return only once the workers are gone (the last thing before
        the process exits: a pool still winding down then races the
        interpreter's own exit hook, which can print a traceback).
        """
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None

    def _ensure_pool(self) -> Executor:
        if self._pool is None:
            self._pool = self._factory(self.workers)
        return self._pool

    def _replace_pool(self, broken: Executor) -> None:
        """Drop ``broken`` unless a concurrent decision already replaced it."""
        if self._pool is broken:
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = None
