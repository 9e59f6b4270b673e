"""Presses that apply once, whatever Telegram delivers again.

The front end handles a press (a callback query) inside :func:`pressing` with
the press's key. The first change the handling task commits records the key in
its own transaction (``Store.save_session`` / ``create_session`` with
``press``); the same press delivered again finds the key there and is refused
as ``applied``, with nothing changed. Only the task that handles the press
records it: background work it starts (a computer's turn, a delivery) runs in
other tasks and commits without a key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: How long a recorded press is kept: Telegram gives up on an unconfirmed update
#: long before (it keeps updates for 24 hours at most).
PRESS_TTL = 86400.0


@dataclass
class _Press:
    key: str
    task: asyncio.Task[object] | None
    recorded: bool = False


_PRESS: ContextVar[_Press | None] = ContextVar("press", default=None)


@contextmanager
def pressing(key: str) -> Iterator[None]:
    """Handle the press ``key`` in this block: its first committed change records it."""
    token = _PRESS.set(_Press(key, asyncio.current_task()))
    try:
        yield
    finally:
        _PRESS.reset(token)


def unrecorded_press() -> str | None:
    """The key of the press this task is handling, until a change recorded it."""
    press = _PRESS.get()
    if press is None or press.recorded or press.task is not asyncio.current_task():
        return None
    return press.key


def press_recorded() -> None:
    """The change just committed recorded this task's press: later ones do not."""
    press = _PRESS.get()
    if press is not None and press.task is asyncio.current_task():
        press.recorded = True
