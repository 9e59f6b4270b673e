"""A test double for the computer players: a seeded random legal move."""

from __future__ import annotations

import random
from typing import Any


class RandomComputer:
    """Test double for sessions.computer.ComputerPlayer: a seeded random legal move."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        """Any legal action, reproducible from the seed."""
        return str(random.Random(seed).choice(view["legal"]))
