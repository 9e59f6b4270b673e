"""Plays Eleven through SessionManager.act forever, printing each acknowledged move.

Used by tests/e2e/test_sessions_crash.py, which kills this process with SIGKILL.
Usage: python tests/support/sessions_crash_script.py <database file> <seed>
(or python -m tests.support.sessions_crash_script, from the repository).
Each line printed is ``<session id> <move number>``, written only after
``act`` has returned (so the move was committed).
"""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

from sessions import SessionManager

CHAT = -100


class NoComputer:
    """Both seats are human here; a computer is never asked."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        raise AssertionError("no computer seats in this script")


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    manager = await SessionManager.open(f"sqlite:///{path}", NoComputer())
    while True:
        session = await manager.open_in_chat(CHAT)
        if session is None:
            session = await manager.create(CHAT, "group", 1, "Ann", "eleven")
        if session.status == "lobby":  # new, or killed before it started
            if all(player.user_id != 2 for player in session.seats):
                await manager.join(session.id, 2, "Bob")
            await manager.set_option(session.id, 1, "target", 2)
            session = (await manager.start(session.id, 1)).session
        seat = session.to_move
        assert seat is not None
        user = session.seats[seat].user_id
        assert user is not None
        action = rng.choice(session.view(seat)["legal"])
        outcome = await manager.act(session.id, user, session.version, action)
        print(outcome.session.id, outcome.session.moves, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
