"""Turn timers: one armed deadline per session, on the event loop.

Deadlines are wall-clock times from the injected clock (they are stored and
must survive a restart); the delay until one is due is computed from the same
clock, so a test clock that jumps forward plus :meth:`TurnTimers.fire_due`
fires timers without real waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]
#: Called with (session id, version) when that version's turn has expired.
Expiry = Callable[[int, int], None]


@dataclass
class _Armed:
    version: int
    deadline: float
    handle: asyncio.TimerHandle | None


class TurnTimers:
    """The armed turn deadlines of every running session."""

    def __init__(self, clock: Clock, on_expiry: Expiry) -> None:
        self._clock = clock
        self._on_expiry = on_expiry
        self._armed: dict[int, _Armed] = {}

    def arm(self, session_id: int, version: int, deadline: float) -> None:
        """Expire ``version`` of the session at ``deadline``; replaces any older timer.

        A deadline already passed expires at once.
        """
        self.disarm(session_id)
        delay = deadline - self._clock()
        if delay <= 0:
            self._on_expiry(session_id, version)
            return
        handle = asyncio.get_running_loop().call_later(delay, self._due, session_id, version)
        self._armed[session_id] = _Armed(version, deadline, handle)

    def disarm(self, session_id: int) -> None:
        """Forget the session's timer, if any."""
        armed = self._armed.pop(session_id, None)
        if armed is not None and armed.handle is not None:
            armed.handle.cancel()

    def deadline(self, session_id: int) -> tuple[int, float] | None:
        """The armed (version, deadline) of a session, or None."""
        armed = self._armed.get(session_id)
        return None if armed is None else (armed.version, armed.deadline)

    def fire_due(self) -> int:
        """Expire every timer whose deadline the clock has reached; returns how many."""
        now = self._clock()
        due = [(sid, a.version) for sid, a in self._armed.items() if a.deadline <= now]
        for session_id, version in due:
            self.disarm(session_id)
            self._on_expiry(session_id, version)
        return len(due)

    def close(self) -> None:
        """Cancel every timer."""
        for session_id in list(self._armed):
            self.disarm(session_id)

    def _due(self, session_id: int, version: int) -> None:
        armed = self._armed.get(session_id)
        if armed is not None and armed.version == version:
            del self._armed[session_id]
            self._on_expiry(session_id, version)
