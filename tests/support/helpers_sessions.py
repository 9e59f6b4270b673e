"""Test doubles and helpers for the session-layer tests."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from sessions import Session, SessionManager


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class FirstLegal:
    """A computer that plays the first legal action and records what it saw."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, int]] = []

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        self.calls.append((game_id, level, view["seat"]))
        return str(view["legal"][0])


class RandomLegal:
    """A computer that plays a seeded random legal action."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        return str(random.Random(seed).choice(view["legal"]))


class Illegal:
    """A computer that answers nonsense."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        return "nonsense"


class Broken:
    """A computer that crashes."""

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        raise RuntimeError("the computer broke")


class Stuck:
    """A computer whose worker dies while thinking: it never answers."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        self.asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def db_url(path: Path) -> str:
    """A sqlite URL for an absolute file path."""
    return f"sqlite:///{path}"


async def open_manager(
    path: Path, computer: Any = None, clock: FakeClock | None = None, cache_size: int = 1024
) -> SessionManager:
    """A manager on the SQLite file ``path``."""
    return await SessionManager.open(
        db_url(path), computer or FirstLegal(), clock or FakeClock(), cache_size=cache_size
    )


async def duel(
    manager: SessionManager, chat_id: int = -100, users: tuple[int, int] = (1, 2), target: int = 1
) -> Session:
    """A running two-player Eleven between two humans in a group chat."""
    session = await manager.create(chat_id, "group", users[0], f"user{users[0]}", "eleven")
    await manager.join(session.id, users[1], f"user{users[1]}")
    await manager.set_option(session.id, users[0], "target", target)
    return (await manager.start(session.id, users[0])).session


async def play_one(manager: SessionManager, session_id: int, rng: random.Random) -> Session:
    """The human to move plays a random legal action; returns the new session."""
    session = await manager.get(session_id)
    seat = session.to_move
    assert seat is not None
    user = session.seats[seat].user_id
    assert user is not None
    action = rng.choice(session.view(seat)["legal"])
    return (await manager.act(session_id, user, session.version, action)).session


async def play_out(manager: SessionManager, session_id: int, seed: int = 0) -> Session:
    """Random legal human play until the match ends."""
    rng = random.Random(seed)
    session = await manager.get(session_id)
    while session.status == "running":
        session = await play_one(manager, session_id, rng)
    return session
