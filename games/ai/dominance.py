"""Dominated moves: never play a move another legal move beats in every sampled world.

Both kinds of search compare their moves *paired* — every move played in the
same sampled worlds —, so each move has one result per world. A move that
another is at least as good as in every world and better in at least one is
*dominated*: whatever the real deal is among those sampled, the other move is
no worse. The exact endings (``games.ai.endgame``) choose only among the
undominated moves, and so does the flat search's race
(``games.ai.estimate.best_option``), where a rule of thumb's move that is
still level by the standard errors can nonetheless be dominated. The endings'
values are exact, so one world decides; a race's come from playouts that
often tie, so there the other move must be ahead in several worlds
(``games.ai.estimate.DOMINANCE_EVIDENCE``).
:data:`ENABLED` lets the benchmark measure the levels without the filter.
"""

from __future__ import annotations

from typing import Any

#: Whether the searches leave dominated moves out (the benchmark turns it off to compare).
ENABLED = True


def dominates(other: list[float], mine: list[float], evidence: int = 1) -> bool:
    """True if ``other`` is at least as good as ``mine`` in every world and better
    in at least ``evidence`` of them."""
    if not all(o >= m for o, m in zip(other, mine, strict=True)):
        return False
    return sum(o > m for o, m in zip(other, mine, strict=True)) >= evidence


def undominated(table: dict[Any, list[float]], evidence: int = 1) -> list[Any]:
    """The moves no other move beats in every world (ties excepted): for each
    dominated move there is one at least as good everywhere and better in
    ``evidence`` worlds or more. Every move of ``table`` has one result per
    world, the same worlds for all."""
    if not ENABLED:
        return list(table)
    return [
        move
        for move, mine in table.items()
        if not any(
            dominates(other, mine, evidence) for rival, other in table.items() if rival != move
        )
    ]
