"""Test doubles for the computer players: a seeded random legal move, and one that
also reviews (counted, and held at a gate while a test needs a review running)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from games.ai import Budget
from games.ai.review import Verdict, review_decision


class RandomComputer:
    """Test double for sessions.computer.ComputerPlayer: a seeded random legal move."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """Any legal action, reproducible from the seed."""
        return str(random.Random(seed).choice(view["legal"]))


class Reviewing(RandomComputer):
    """Random moves, and reviews in-process with a small budget, counted; a closed
    ``gate`` holds every review step (a review that runs)."""

    def __init__(self) -> None:
        self.calls = 0
        self.gate = asyncio.Event()
        self.gate.set()

    async def review(self, game_id: str, view: dict[str, Any], chosen: str, seed: int) -> Verdict:
        """The verdict of a 24-world review, once the gate is open."""
        self.calls += 1
        await self.gate.wait()
        return review_decision(game_id, view, chosen, seed, Budget(playouts=24))

    async def calls_reach(self, count: int) -> None:
        """Wait (a few seconds at most) until ``count`` review steps have begun."""
        for _ in range(500):
            if self.calls >= count:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{self.calls} review calls, not {count}")
