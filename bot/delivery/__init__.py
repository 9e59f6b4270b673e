"""Sending and editing the messages that show sessions: newest screen wins.

One module per job:

- :mod:`bot.delivery.slots` — one slot per message; the newest screen waits for its
  chat's turn in the rate limiter, a burst becomes one edit, a failed screen is
  delivered again with back-off, a screen not urgent for its viewer may wait;
- :mod:`bot.delivery.telegram` — the Bot API calls and what Telegram's answers mean
  (not modified, message gone, lost on the way, 5xx, unparsable text);
- :mod:`bot.delivery.leases` — with several workers, each message is delivered
  under its lease;
- :mod:`bot.delivery.replies` — one-off replies, behind the chat's screens,
  coalesced per request;
- :mod:`bot.delivery.service` — :class:`Delivery`, which puts them together.
"""

from bot.delivery.leases import LEASE_POLL
from bot.delivery.replies import BACKLOG, REPEAT, REQUEST, ReplyKey, Request
from bot.delivery.service import DEFER, ChatClosed, Delivery
from bot.delivery.slots import MAX_SLOTS, Showing
from bot.delivery.telegram import (
    EDIT_TRIES,
    RETRY_CAP,
    RETRY_FIRST,
    RETRY_PAUSE,
    RETRY_TRIES,
    Retries,
)

__all__ = [
    "BACKLOG",
    "DEFER",
    "EDIT_TRIES",
    "LEASE_POLL",
    "MAX_SLOTS",
    "REPEAT",
    "REQUEST",
    "RETRY_CAP",
    "RETRY_FIRST",
    "RETRY_PAUSE",
    "RETRY_TRIES",
    "ChatClosed",
    "Delivery",
    "ReplyKey",
    "Request",
    "Retries",
    "Showing",
]
