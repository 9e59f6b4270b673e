"""A worker's background loop, started once and stopped on the way down."""

from __future__ import annotations

import asyncio
import contextlib


class Periodic:
    """:meth:`start` runs :meth:`_run` (a subclass's loop) as a task; :meth:`stop` ends it."""

    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin looking (in the background)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop looking (again: nothing)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        raise NotImplementedError
