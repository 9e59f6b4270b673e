"""Button data: a compact, versioned, typed codec (at most 64 bytes, always).

A move button carries ``<session>:<version>:<action>`` — the session id, the
session version the button was drawn for, and the rules action (``QS``,
``bid:3``, ``AS:trump`` …). Every other button is a verb: a lowercase word, the
session id (or ``0`` when none applies) and optional arguments, joined by
``:`` — ``join:17``, ``comp:17:easy``, ``opt:17:target:7``.

Telegram clients can be made to send any string as callback data, so
:func:`unpack` trusts nothing: garbled or forged data raises :class:`BadCallback`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BYTES = 64  # Telegram's limit on callback_data

#: verb → how many arguments it carries after the session id
VERBS: dict[str, int] = {
    "new": 1,  # new:0:<game>            open a lobby for a game (game menu)
    "join": 0,  # join:<sid>
    "comp": 1,  # comp:<sid>:<level>       add a computer player
    "comps": 0,  # comps:<sid>             show the computer levels
    "sets": 0,  # sets:<sid>               show the settings menu
    "opt": 2,  # opt:<sid>:<name>:<value>  set a table option
    "timer": 1,  # timer:<sid>:<seconds|off>
    "back": 0,  # back:<sid>               back to the lobby
    "start": 0,  # start:<sid>
    "cancel": 0,  # cancel:<sid>
    "leave": 0,  # leave:<sid>
    "hand": 0,  # hand:<sid>               show my hand (ephemeral)
    "again": 0,  # again:<sid>             rematch
    "score": 0,  # score:<sid>             the chat's tally for this game
    "invite": 0,  # invite:<sid>           private duel: make an invite link
    "vs": 0,  # vs:<sid>                   private duel: play the computer
    "lang": 1,  # lang:0:<ru|en>
}

_ACTION = re.compile(r"^[A-Za-z0-9_:+\-.]{1,40}$")
_ARG = re.compile(r"^[A-Za-z0-9_\-]{1,24}$")


class BadCallback(ValueError):
    """Callback data that this bot did not produce (garbled, forged or outdated)."""


@dataclass(frozen=True)
class Move:
    """A press on a move button: play ``action`` at ``session`` as of ``version``."""

    session: int
    version: int
    action: str


@dataclass(frozen=True)
class Verb:
    """A press on a lobby or menu button."""

    verb: str
    session: int
    args: tuple[str, ...] = ()


Press = Move | Verb


def _checked(data: str) -> str:
    if len(data.encode("utf-8")) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def pack_move(session: int, version: int, action: str) -> str:
    """Data for a move button; raises ValueError if it would not fit."""
    if not _ACTION.match(action):
        raise ValueError(f"not an action: {action!r}")
    return _checked(f"{session}:{version}:{action}")


def pack_verb(verb: str, session: int = 0, *args: str | int) -> str:
    """Data for a verb button; raises ValueError on an unknown verb or bad arity."""
    if VERBS.get(verb) != len(args):
        raise ValueError(f"verb {verb!r} does not take {len(args)} arguments")
    parts = [str(a) for a in args]
    for part in parts:
        if not _ARG.match(part):
            raise ValueError(f"bad verb argument {part!r}")
    return _checked(":".join([verb, str(session), *parts]))


def _number(text: str) -> int:
    if not text.isdigit() or len(text) > 18:
        raise BadCallback(f"not a number: {text!r}")
    return int(text)


def unpack(data: str | None) -> Press:
    """Decode button data; raise :class:`BadCallback` if it is not ours."""
    if not data or len(data.encode("utf-8")) > MAX_BYTES:
        raise BadCallback("empty or oversized callback data")
    head, _, rest = data.partition(":")
    if head.isdigit():
        version, _, action = rest.partition(":")
        if not _ACTION.match(action):
            raise BadCallback(f"bad action in {data!r}")
        return Move(_number(head), _number(version), action)
    arity = VERBS.get(head)
    if arity is None:
        raise BadCallback(f"unknown verb in {data!r}")
    parts = rest.split(":") if rest else []
    if len(parts) != arity + 1:
        raise BadCallback(f"wrong arity in {data!r}")
    args = tuple(parts[1:])
    if not all(_ARG.match(arg) for arg in args):
        raise BadCallback(f"bad argument in {data!r}")
    return Verb(head, _number(parts[0]), args)
