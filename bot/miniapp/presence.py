"""The pages open on this worker, written to the shared store for every worker to see.

With several workers (PostgreSQL) a page's stream lives on one worker while a
move may be drawn by another: that one asks the store who has a page of the
session open (:meth:`Presence.users`) before it edits a hand. Each worker keeps
its open pages in the store (``OpenPages.keep_pages``) at once when one opens or
closes, and every :data:`REFRESH` seconds, each standing :data:`EXPIRY` seconds
unless refreshed: a worker that dies stops holding hands back within seconds
(at once when a beat finds it dead, ``Liveness.beat``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from storage import OpenPages

log = logging.getLogger(__name__)

#: Seconds between two writes of this worker's open pages while any is open.
REFRESH = 2.0
#: Seconds a written page stands without a refresh (three refreshes missed).
EXPIRY = 3 * REFRESH

Key = tuple[int, int]


class Presence:
    """This worker's open pages (session, user) in the store, and everyone's read back."""

    def __init__(
        self,
        store: OpenPages,
        worker: str,
        *,
        refresh: float = REFRESH,
        expiry: float = EXPIRY,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._worker = worker
        self._refresh = refresh
        self._expiry = expiry
        self._clock = clock
        self._open: set[Key] = set()
        #: closed here and not yet forgotten by the store: set once they are
        self._closing: list[asyncio.Event] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    def opened(self, key: Key) -> None:
        """A first page of ``key`` opened here: the store learns it now."""
        self._open.add(key)
        self._write_soon()

    def closed(self, key: Key) -> asyncio.Event:
        """The last page of ``key`` here closed: the event is set once the store has
        forgotten it (a hand drawn after that is not held back by it)."""
        self._open.discard(key)
        forgotten = asyncio.Event()
        self._closing.append(forgotten)
        self._write_soon()
        return forgotten

    async def users(self, session_id: int) -> set[int]:
        """The users with a page of the session open on any worker (one indexed read)."""
        return set(await self._store.page_users(session_id, self._clock()))

    async def close(self) -> None:
        """Stop writing (the bot stops; its pages lapse within :data:`EXPIRY` seconds)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    def _write_soon(self) -> None:
        self._wake.set()
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._writing())

    async def _writing(self) -> None:
        while True:
            if not self._wake.is_set() and (self._open or self._closing):
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._refresh):
                        await self._wake.wait()
            elif not self._wake.is_set():
                await self._wake.wait()  # nothing open: nothing to refresh
            self._wake.clear()
            closing, self._closing = self._closing, []
            try:
                await self._store.keep_pages(
                    self._worker, sorted(self._open), self._clock() + self._expiry
                )
            except Exception as error:  # the store is down a moment: the next refresh
                log.info("open pages not written: %s", error)
                self._closing = closing + self._closing
                continue
            for forgotten in closing:
                forgotten.set()
