"""Who reads in which language, and whose private chat the bot can write to.

Both are read on every drawing and written rarely, so they are cached; every
write goes through :class:`Preferences`, which keeps the cache exact.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from sessions.model import Refusal
from storage import Store

LANGUAGES = ("ru", "en")
#: Languages and reachability remembered in memory (least recently used go first).
CACHED = 50_000
SCOPES = ("user", "chat")


class Preferences:
    """Languages (per user, per chat) and reachability (per user), over a Store."""

    def __init__(self, store: Store, *, cached: int = CACHED) -> None:
        self._store = store
        self._cached = cached
        self._values: OrderedDict[tuple[str, int], Any] = OrderedDict()
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
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        writes = self._writes
        value = await read()
        if writes == self._writes:  # no write raced the read: it is current
            self._remember(key, value)
        return value

    def _remember(self, key: tuple[str, int], value: Any) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self._cached:
            self._values.popitem(last=False)
