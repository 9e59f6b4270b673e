"""Reviews in the computer players' pool run at low priority: a queued computer move
goes before a queued review step, and one review step holds a worker at a time."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from games.ai import Budget
from games.ai.worker import judge, think
from sessions.computer import ComputerPlayer
from tests.support.ai import opening


def recorder(order: list[str], gate: threading.Event) -> type[Executor]:
    """An executor noting what each job is (``move:<seed>``, ``review:<seed>``) when it
    starts; the first job waits for ``gate``, so the others queue behind it."""

    class Recording(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            kind = "move" if fn is think else "review" if fn is judge else "other"

            def noted() -> Any:
                order.append(f"{kind}:{args[3]}")
                if len(order) == 1:
                    gate.wait(5)
                return fn(*args, **kwargs)

            return super().submit(noted)

    return Recording


async def test_a_queued_computer_move_runs_before_a_queued_review() -> None:
    view = opening("king")
    chosen = view["legal"][0]
    order: list[str] = []
    gate = threading.Event()
    computer = ComputerPlayer(
        workers=1, budgets={"strong": Budget(playouts=2)},
        executor_factory=recorder(order, gate), review_budget=Budget(playouts=2),
    )
    try:
        first = asyncio.create_task(computer.choose("king", view, "strong", 1))
        await asyncio.sleep(0.05)  # the first move holds the one worker
        review = asyncio.create_task(computer.review("king", view, chosen, 2))
        await asyncio.sleep(0)  # the review is queued first …
        move = asyncio.create_task(computer.choose("king", view, "strong", 3))
        await asyncio.sleep(0)  # … and the move after it
        gate.set()
        await asyncio.gather(first, move)
        verdict = await review
    finally:
        computer.close()
    assert order == ["move:1", "move:3", "review:2"]
    assert verdict.evaluated and verdict.chosen == chosen


async def test_one_review_step_at_a_time_and_moves_take_the_other_workers() -> None:
    view = opening("eleven")
    chosen = view["legal"][0]
    order: list[str] = []
    gate = threading.Event()
    computer = ComputerPlayer(
        workers=2, budgets={"strong": Budget(playouts=2)},
        executor_factory=recorder(order, gate), review_budget=Budget(playouts=2),
    )
    try:
        reviews = [asyncio.create_task(computer.review("eleven", view, chosen, n)) for n in (1, 2)]
        await asyncio.sleep(0.05)  # the first review step holds a worker, waiting at the gate
        assert order == ["review:1"]  # the second waits although a worker is free
        move = asyncio.create_task(computer.choose("eleven", view, "strong", 3))
        await asyncio.wait_for(asyncio.shield(move), 5)  # the free worker serves the move
        assert order == ["review:1", "move:3"]
        gate.set()
        await asyncio.gather(*reviews)
    finally:
        computer.close()
    assert order == ["review:1", "move:3", "review:2"]
