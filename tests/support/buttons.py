"""A move button's callback data, read as the tests read it: ``session:version:action``."""

from __future__ import annotations

import re

MOVE = re.compile(r"^(\d+):(\d+):(.+)$")


def version_of(data: str) -> int:
    """The session version a move button's data carries."""
    move = MOVE.match(data)
    assert move is not None, data
    return int(move[2])


def action_of(data: str) -> str:
    """The action a move button's data carries."""
    move = MOVE.match(data)
    assert move is not None, data
    return move[3]
