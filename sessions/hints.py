"""Hints asked for more than once: one search per seat in flight, one answer per
(session, version, seat).

A press on 💡 Hint while that seat's search runs waits for the same answer; a
press at a version already answered is the cached answer, with no new search;
a press at a newer version while an older search still runs is refused
(``hint_busy``) rather than starting a second search for the same player. A
failed search is forgotten, so the next press tries again.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from sessions.model import Refusal

#: how many seats' last answers a worker keeps (the oldest go first)
KEPT = 4096


class HintSearches:
    """The hint searches of one worker, keyed by (session, seat)."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._answers: OrderedDict[tuple[int, int], tuple[int, asyncio.Future[str]]] = (
            OrderedDict()
        )

    async def answer(
        self, session_id: int, seat: int, version: int, search: Callable[[], Awaitable[str]]
    ) -> tuple[str, bool]:
        """The hint for ``seat`` at ``version`` and whether it is new (``search`` ran
        for this press), searching only if no answer for that version exists or runs."""
        key = (session_id, seat)
        held = self._answers.get(key)
        if held is not None and held[0] == version:
            return await asyncio.shield(held[1]), False
        if held is not None and not held[1].done():
            raise Refusal("hint_busy")
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._answers[key] = (version, future)
        self._answers.move_to_end(key)
        while len(self._answers) > self._kept:
            self._answers.popitem(last=False)
        try:
            found = await search()
        except BaseException as error:
            if key in self._answers and self._answers[key][1] is future:
                del self._answers[key]
            if isinstance(error, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(error)
                future.exception()  # retrieved: waiting presses get it, nobody else must
            raise
        future.set_result(found)
        return found, True
