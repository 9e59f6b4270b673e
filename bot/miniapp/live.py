"""Open pages and the committed versions they wait for.

Every open page stream (:mod:`bot.miniapp.server`) waits here for its
session's next committed version. Two things wake it: the presenter, which
draws every change this process commits (:meth:`Pages.changed`), and — where
other workers share the store — a poll of the stored versions of the
sessions that have open pages, every :data:`POLL` seconds (one indexed
``SELECT version`` per watched session), so a commit made on another worker
is seen within a second.

It also keeps Telegram's budget: while a seated player's page is open, the
presenter asks :meth:`Pages.held` before it edits their hand message; a held
hand is owed, and drawn once their last page closes (:attr:`Pages.on_closed`).
Where other workers share the store, a page open on any of them holds the hand
(:mod:`bot.miniapp.presence`), so the worker where a page closes always draws the
hand then: another may have held it (a hand already current costs no call).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterator
from typing import Any

from bot.miniapp.presence import Presence
from sessions import Session

log = logging.getLogger(__name__)

#: Seconds between polls of the stored versions (a shared store only).
POLL = 0.5
#: Pages one user may have open at once in this process, over all tables: each holds
#: a connection and a task, so one user opening thousands would starve everybody.
PAGES_PER_USER = 8

VersionOf = Callable[[int], Awaitable[int | None]]
Closed = Callable[[int, int], Coroutine[Any, Any, None]]


class TooManyPages(Exception):
    """The user has as many pages open as one may (:data:`PAGES_PER_USER`)."""


class Pages:
    """The open pages of this process, by session and user (``presence``: written to
    the store shared with other workers, and theirs read back)."""

    def __init__(
        self,
        version_of: VersionOf | None = None,
        poll: float = POLL,
        presence: Presence | None = None,
        per_user: int = PAGES_PER_USER,
    ) -> None:
        #: where other workers commit too: the stored version of a session
        self._version_of = version_of
        #: where other workers draw too: the pages open on every worker
        self._presence = presence
        self._poll = poll
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._versions: dict[int, int] = {}
        self._open: Counter[tuple[int, int]] = Counter()
        self._per_user = per_user
        #: the pages each user has open, seated or watching, over all tables
        self._pages_of: Counter[int] = Counter()
        self._owed: set[tuple[int, int]] = set()
        self._poller: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False
        #: awaited when a user's last page of a session closes and a hand is owed (with
        #: other workers: always, once the store has forgotten the page)
        self.on_closed: Closed | None = None

    # ------------------------------------------------------------ the presenter's side

    def changed(self, session: Session) -> None:
        """A change of ``session`` was committed here: wake its pages."""
        self._seen(session.id, session.version)

    async def held(self, session: Session, user_ids: Collection[int]) -> set[int]:
        """Those of ``user_ids`` with a page of ``session`` open — here, or on any worker
        sharing the store — so their hand messages need not be edited now (they are
        owed, and drawn when the page closes)."""
        if session.status != "running":
            return set()
        here = {user for user in user_ids if self._open[(session.id, user)]}
        self._owed.update((session.id, user) for user in here)
        if self._presence is None or len(here) == len(user_ids):
            return here
        try:
            anywhere = await self._presence.users(session.id)
        except Exception as error:  # the store is down a moment: the hands are edited
            log.info("open pages of session %s not read: %s", session.id, error)
            return here
        return here | (anywhere & set(user_ids))

    # ------------------------------------------------------------ the streams' side

    @contextlib.contextmanager
    def watch(
        self, session_id: int, user_id: int, seated: bool = True
    ) -> Iterator[asyncio.Event]:
        """While in this block ``user_id`` has a page of ``session_id`` open (``seated``:
        as a player, whose hand edits it may hold; else a spectator): the event is set at
        each new version. :class:`TooManyPages` on entering, at the user's cap."""
        if self._pages_of[user_id] >= self._per_user:
            raise TooManyPages(f"user {user_id} has {self._per_user} pages open")
        self._pages_of[user_id] += 1
        event = asyncio.Event()
        self._waiters.setdefault(session_id, set()).add(event)
        key = (session_id, user_id)
        if seated:
            self._open[key] += 1
            if self._presence is not None and self._open[key] == 1:
                self._presence.opened(key)
        self._start_polling()
        try:
            yield event
        finally:
            waiting = self._waiters.get(session_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[session_id]
                    self._versions.pop(session_id, None)
            self._pages_of[user_id] -= 1
            if self._pages_of[user_id] <= 0:
                del self._pages_of[user_id]
            if seated:
                self._open[key] -= 1
                if self._open[key] <= 0:
                    del self._open[key]
                    self._close(key)

    def is_open(self, session_id: int, user_id: int) -> bool:
        """Whether the user has a page of the session open here."""
        return self._open[(session_id, user_id)] > 0

    @property
    def watched(self) -> int:
        """How many sessions have open pages."""
        return len(self._waiters)

    async def close(self) -> None:
        """Stop polling and the catch-ups in flight (the bot stops)."""
        tasks = [*self._tasks, *([self._poller] if self._poller else [])]
        self._poller, self._stopped = None, True
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._presence is not None:
            await self._presence.close()

    # ------------------------------------------------------------ inside

    def _seen(self, session_id: int, version: int) -> None:
        if version <= self._versions.get(session_id, -1):
            return
        self._versions[session_id] = version
        for event in self._waiters.get(session_id, ()):
            event.set()

    def _close(self, key: tuple[int, int]) -> None:
        owed = key in self._owed
        self._owed.discard(key)
        if self._presence is None:
            if owed and self.on_closed is not None:
                self._spawn(self._catch_up(key, None))
        elif not self._stopped:  # another worker may have held it: always drawn
            self._spawn(self._catch_up(key, self._presence.closed(key)))

    async def _catch_up(self, key: tuple[int, int], forgotten: asyncio.Event | None) -> None:
        if forgotten is not None:
            await forgotten.wait()  # no worker holds the hand for this page any more
        if self.on_closed is not None:
            await self.on_closed(*key)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _start_polling(self) -> None:
        if self._version_of is None or self._poller is not None:
            return
        self._poller = asyncio.get_running_loop().create_task(self._polling())

    async def _polling(self) -> None:
        assert self._version_of is not None
        while True:
            await asyncio.sleep(self._poll)
            for session_id in list(self._waiters):
                try:
                    version = await self._version_of(session_id)
                except Exception as error:  # the store is down a moment: the next poll
                    log.info("page poll: no version of session %s: %s", session_id, error)
                    continue
                if version is not None:
                    self._seen(session_id, version)
