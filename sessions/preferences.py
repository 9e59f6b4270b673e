"""Who reads in which language, and whose private chat the bot can write to.

Both are read on every drawing and written rarely, so they are cached; every
write goes through :class:`Preferences`, which keeps its own cache exact. With
several workers on one store (``ttl``), another worker's write is not seen
here, so a cached value is trusted only for ``ttl`` seconds: a user who unblocks
the bot gets her hands from every worker again within that time.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from sessions.model import Refusal
from storage import PreferenceStore

LANGUAGES = ("ru", "en")
#: Languages and reachability remembered in memory (least recently used go first).
CACHED = 50_000
SCOPES = ("user", "chat")
#: Seconds a cached value stands when other workers write the same store.
SHARED_TTL = 2.0


class Preferences:
    """Languages (per user, per chat) and reachability (per user), over the store's
    preferences role.

    ``ttl``: seconds (on ``clock``) a cached value is served before it is read
    again — for several workers, which write the same store (None: forever).
    """

    def __init__(
        self,
        store: PreferenceStore,
        *,
        cached: int = CACHED,
        ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._cached = cached
        self._ttl = ttl
        self._clock = clock
        #: key → (value, when it was read or written)
        self._values: OrderedDict[tuple[str, int], tuple[Any, float]] = OrderedDict()
        self._writes = 0

    async def set_language(self, scope: str, key: int, lang: str) -> None:
        """Store the language (``ru`` | ``en``) of a ``user`` or ``chat``."""
        if scope not in SCOPES:
            raise Refusal("bad_option", "scope")
        if lang not in LANGUAGES:
            raise Refusal("bad_option", "lang")
        await self._write((scope, key), lang, self._store.set_language(scope, key, lang))

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a ``user`` or ``chat``, None if never set."""
        if scope not in SCOPES:
            raise Refusal("bad_option", "scope")
        found: str | None = await self._read(
            (scope, key), lambda: self._store.language(scope, key)
        )
        return found

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark the user's private chat reachable or not (after a 403)."""
        key = ("reachable", user_id)
        await self._write(key, reachable, self._store.set_reachable(user_id, reachable))

    async def reachable(self, user_id: int) -> bool:
        """True unless the user was marked unreachable."""
        found: bool = await self._read(
            ("reachable", user_id), lambda: self._store.reachable(user_id)
        )
        return found

    async def _write(self, key: tuple[str, int], value: Any, write: Awaitable[None]) -> None:
        self._writes += 1
        try:
            await write
        finally:
            self._values.pop(key, None)
        self._remember(key, value)

    async def _read(self, key: tuple[str, int], read: Callable[[], Awaitable[Any]]) -> Any:
        """A cached value, else ``read()`` from the store (and cached)."""
        found = self._values.get(key)
        if found is not None and (self._ttl is None or self._clock() - found[1] < self._ttl):
            self._values.move_to_end(key)
            return found[0]
        writes = self._writes
        value = await read()
        if writes == self._writes:  # no write raced the read: it is current
            self._remember(key, value)
        return value

    def _remember(self, key: tuple[str, int], value: Any) -> None:
        self._values[key] = (value, self._clock())
        self._values.move_to_end(key)
        while len(self._values) > self._cached:
            self._values.popitem(last=False)
