"""The bot's HTTP client for Bot API calls: PTB's httpx request, never over-queued.

httpcore's connection pool rescans every pooled connection for every request,
and for each idle one asks the socket whether it is still open (a ``poll`` and
a ``getpeername``); with one connection per concurrent request that work grows
with the square of the concurrency. Under load (hundreds of edits in flight)
it was a third of the bot's CPU. :class:`BoundedRequest` keeps a small pool
and lets only as many requests into httpx as there are connections; the rest
wait their turn on a semaphore, which costs nothing per waiter.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.request import HTTPXRequest

#: Connections to the Bot API (and requests in flight). Telegram itself allows
#: a bot about 30 messages a second, which a handful of connections carries; on
#: loopback 4 gave 40 % more moves/s than 16 (2 was no better than 4).
CONNECTIONS = 4


class BoundedRequest(HTTPXRequest):
    """:class:`HTTPXRequest` with at most ``connections`` requests inside httpx."""

    def __init__(self, connections: int = CONNECTIONS, **kwargs: Any) -> None:
        # pool_timeout only bounds the wait for a free connection, which the
        # semaphore makes (nearly) instant; waiting for the semaphore is free.
        super().__init__(connection_pool_size=connections, **kwargs)
        self._in_flight = asyncio.Semaphore(connections)

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """One HTTP request, after waiting for a free connection."""
        async with self._in_flight:
            return await super().do_request(*args, **kwargs)
