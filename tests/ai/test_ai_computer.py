"""sessions/computer.py: the process pool keeps the event loop free, and survives a broken pool."""

from __future__ import annotations

import asyncio
import logging
import select
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from games.ai import DEFAULT_BUDGETS, PLAYBOOKS, Budget, choose, decide
from games.ai.worker import loaded_packages
from sessions.computer import ComputerPlayer
from tests.support.ai import opening


def budget_recorder(budgets: list[Budget | None]) -> Callable[[int], Executor]:
    """An executor factory whose threads note the budget of every search submitted."""

    class Recording(ThreadPoolExecutor):
        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            budgets.append(args[4])
            return super().submit(fn, *args, **kwargs)

    return Recording


async def test_other_work_goes_on_while_a_strong_search_runs() -> None:
    view = opening("king")
    computer = ComputerPlayer(workers=1, budgets={"strong": Budget(seconds=0.8)})
    try:
        await computer.choose("king", view, "easy", 0)  # no pool needed for easy
        ticks = 0
        searching = asyncio.create_task(computer.choose("king", view, "strong", 1))

        async def other_session() -> None:
            nonlocal ticks
            while not searching.done():
                ticks += 1
                await asyncio.sleep(0.01)

        await asyncio.gather(searching, other_session())
        assert searching.result() in view["legal"]
        # ~0.8 s of search (plus the worker's start) at one tick per 10 ms.
        assert ticks >= 30
    finally:
        computer.close()


async def test_the_pool_gives_the_same_choice_as_the_search_in_process() -> None:
    view = opening("eleven")
    budget = Budget(playouts=30)
    computer = ComputerPlayer(workers=1, budgets={"normal": budget})
    try:
        chosen = await computer.choose("eleven", view, "normal", 5)
    finally:
        computer.close()
    assert chosen == choose("eleven", view, "normal", 5, budget)


class BrokenPool(Executor):
    """An executor whose workers have died: every submission fails as a broken pool."""

    def __init__(self) -> None:
        self.shut = False

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_exception(BrokenProcessPool("a worker died"))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.shut = True


async def test_a_broken_pool_is_replaced_and_the_decision_falls_back_to_easy() -> None:
    view = opening("two_ten_jack")
    made: list[Executor] = []

    def factory(workers: int) -> Executor:
        pool: Executor = BrokenPool() if not made else ThreadPoolExecutor(workers)
        made.append(pool)
        return pool

    budget = Budget(playouts=20)
    computer = ComputerPlayer(workers=1, budgets={"strong": budget}, executor_factory=factory)
    try:
        fallback = await computer.choose("two_ten_jack", view, "strong", 9)
        assert fallback == choose("two_ten_jack", view, "easy", 9)
        broken = made[0]
        assert isinstance(broken, BrokenPool) and broken.shut
        searched = await computer.choose("two_ten_jack", view, "strong", 9)
        assert searched == choose("two_ten_jack", view, "strong", 9, budget)
        assert len(made) == 2
    finally:
        computer.close()


async def test_bad_requests_are_refused_before_reaching_the_pool() -> None:
    view = opening("eleven")
    made: list[int] = []

    def factory(workers: int) -> Executor:
        made.append(workers)
        return ThreadPoolExecutor(workers)

    computer = ComputerPlayer(workers=1, executor_factory=factory)
    with pytest.raises(ValueError):
        await computer.choose("eleven", view, "godlike", 0)
    with pytest.raises(ValueError):
        await computer.choose("chess", view, "strong", 0)
    with pytest.raises(ValueError):
        await computer.choose("eleven", {**view, "legal": []}, "strong", 0)
    assert made == []
    computer.close()
    with pytest.raises(RuntimeError):
        await computer.choose("eleven", view, "easy", 0)


async def test_workers_import_only_the_games_package_and_report_their_memory() -> None:
    view = opening("oh_hell")
    computer = ComputerPlayer(workers=1, budgets={"strong": Budget(playouts=10)})
    try:
        assert await computer.choose("oh_hell", view, "strong", 2) in view["legal"]
        pool = computer._pool
        assert pool is not None
        packages = await asyncio.wrap_future(pool.submit(loaded_packages))
    finally:
        computer.close()
    assert "games" in packages
    assert not {"bot", "telegram", "storage", "aiosqlite", "aiohttp", "tests"} & set(packages)
    memory = computer.worker_memory()
    assert len(memory) == 1 and all(kib > 1000 for kib in memory.values())


def test_a_passed_deadline_answers_at_once_with_the_easy_move() -> None:
    view = opening("king")
    decision = decide("king", view, "strong", 4, deadline=time.time() - 1.0)
    assert decision.cut_short and decision.samples == 0
    assert decision.action == choose("king", view, "easy", 4)


def test_a_deadline_never_stretches_a_playout_budget() -> None:
    view = opening("eleven")
    budget = Budget(playouts=40)
    decision = decide("eleven", view, "strong", 4, budget, deadline=time.time() + 60)
    assert not decision.cut_short
    assert decision.action == choose("eleven", view, "strong", 4, budget)


async def test_under_load_each_request_gets_a_share_of_the_budget_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = opening("two_ten_jack")
    budgets: list[Budget | None] = []

    computer = ComputerPlayer(
        workers=1,
        budgets={"strong": Budget(seconds=0.05)},
        executor_factory=budget_recorder(budgets),
    )
    caplog.set_level(logging.DEBUG, logger="sessions.computer")
    try:
        moves = await asyncio.gather(
            *(computer.choose("two_ten_jack", view, "strong", n) for n in range(5))
        )
    finally:
        computer.close()
    assert all(move in view["legal"] for move in moves)
    seconds = [b.seconds for b in budgets if b is not None]
    assert seconds == pytest.approx([0.05, 0.025, 0.05 / 3, 0.0125, 0.01])
    assert sum("under load" in record.getMessage() for record in caplog.records) >= 4


async def test_a_normal_computer_gets_its_games_sample_cap_also_under_load() -> None:
    budgets: list[Budget | None] = []

    computer = ComputerPlayer(workers=1, executor_factory=budget_recorder(budgets))
    try:
        for game_id in ("rummy", "mau_mau", "king"):
            view = opening(game_id)
            await asyncio.gather(*(computer.choose(game_id, view, "normal", n) for n in range(2)))
        await computer.choose("rummy", opening("rummy"), "strong", 0)
    finally:
        computer.close()
    caps = [b.playouts for b in budgets if b is not None]
    rummy, mau_mau = (PLAYBOOKS[g].normal_samples for g in ("rummy", "mau_mau"))
    assert rummy is not None and mau_mau is not None and PLAYBOOKS["king"].normal_samples is None
    king = DEFAULT_BUDGETS["normal"].playouts  # King sets no cap of its own: the usual one
    assert caps == [rummy, rummy, mau_mau, mau_mau, king, king, None]  # strong: its time only
    assert king is not None and max(rummy, mau_mau) < king


def test_start_spawns_every_worker_before_the_first_move() -> None:
    computer = ComputerPlayer(workers=2)
    try:
        warm_ups = computer.start()
        assert len(warm_ups) == 2
        for warm_up in warm_ups:
            assert "games" in warm_up.result(timeout=60)
        pool = computer._pool
        assert isinstance(pool, ProcessPoolExecutor)
        assert len(pool._processes) == 2  # both spawned: no move waits for a spawn
    finally:
        computer.close()


_KILLED_BOT = """
import multiprocessing, sys, time
from sessions.computer import ComputerPlayer

computer = ComputerPlayer(workers=2)
for warm_up in computer.start():
    warm_up.result(timeout=60)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    """True if the process exists and is not a zombie (an unreaped dead child)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_bot_killed_outright() -> None:
    # the bot's workers must not outlive a SIGKILL holding its output pipe open
    bot = subprocess.Popen(
        [sys.executable, "-c", _KILLED_BOT],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert bot.stdout is not None
    try:
        workers = [int(pid) for pid in bot.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
        bot.kill()
        bot.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers)
        ready, _, _ = select.select([bot.stdout], [], [], 10)
        assert ready and bot.stdout.read() == b""  # end of file: nobody holds the pipe
    finally:
        bot.kill()
        bot.stdout.close()
