"""Forum topics, as the Bot API shows them to a bot.

A forum supergroup (``Chat.is_forum``) splits its messages into topics; a
message in one carries the topic's ``message_thread_id`` and
``is_topic_message``. The General topic is not a topic in that sense: its
messages carry neither (a reply in it carries a ``message_thread_id`` that names
the replied-to message's thread, with no ``is_topic_message``), and a send with
``message_thread_id=1`` is refused with "message thread not found" — so Koloda
keeps thread 0 for "no topic" and never sends a thread id for it.

A send or edit in a closed topic is refused with ``TOPIC_CLOSED``; one in a
deleted topic with "message thread not found" (or ``TOPIC_DELETED``).
"""

from __future__ import annotations

from typing import Any, Literal

from telegram import MaybeInaccessibleMessage, Message
from telegram.error import BadRequest

#: The General topic's id: sends to it carry no thread id.
GENERAL = 1
#: What became of a topic, by the refusal Telegram answered.
TopicRefusal = Literal["closed", "gone"]


def topic_of(message: MaybeInaccessibleMessage | None) -> int:
    """The forum topic a message is in (its ``message_thread_id``), or 0: not a topic
    message (the General topic, a group without topics, a private chat)."""
    if not isinstance(message, Message) or not message.is_topic_message:
        return 0
    thread = message.message_thread_id or 0
    return thread if thread > GENERAL else 0


def thread_params(thread: int) -> dict[str, Any]:
    """The send parameters that put a message in topic ``thread`` (none for 0 or the
    General topic)."""
    return {"message_thread_id": thread} if thread > GENERAL else {}


def topic_refusal(error: Exception) -> TopicRefusal | None:
    """What a refused send or edit says of its topic: ``closed``, ``gone`` (deleted), or
    None if the refusal is about something else."""
    if not isinstance(error, BadRequest):
        return None
    text = error.message.lower()
    if "topic_closed" in text:
        return "closed"
    if "message thread not found" in text or "topic_deleted" in text:
        return "gone"
    return None


def message_link(chat_id: int, message_id: int | None, thread: int = 0) -> str | None:
    """The ``t.me/c/…`` link to a message of a supergroup, inside its topic if it is in
    one (``t.me/c/<id>/<thread>/<message>``); to the topic itself without a message id;
    None where there is nothing to link to (a private chat, or no message)."""
    internal = str(chat_id)
    if not internal.startswith("-100"):
        return None
    base = f"https://t.me/c/{internal[4:]}"
    if thread > GENERAL:
        return f"{base}/{thread}/{message_id}" if message_id else f"{base}/{thread}"
    return f"{base}/{message_id}" if message_id else None
