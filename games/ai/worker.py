"""What a computer-player worker process runs (``sessions/computer.py`` submits these).

Kept in ``games`` so a spawned worker imports the rules and the search only —
never the bot, Telegram or storage.
"""

from __future__ import annotations

import os
import resource
import sys
from dataclasses import dataclass

from games.ai import Budget, Decision, decide
from games.base import View


@dataclass(frozen=True)
class Reply:
    """A worker's answer: the decision, and the worker's pid and memory (RSS, KiB)."""

    decision: Decision
    pid: int
    rss_kib: int


def think(
    game_id: str, view: View, level: str, seed: int, budget: Budget | None, deadline: float | None
) -> Reply:
    """Decide in this worker, searching until ``deadline`` at the latest."""
    decision = decide(game_id, view, level, seed, budget, deadline)
    return Reply(decision, os.getpid(), resident_kib())


def resident_kib() -> int:
    """This process's resident memory now (Linux), else its peak, in KiB."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak // 1024 if sys.platform == "darwin" else peak


def loaded_packages() -> list[str]:
    """The top-level packages imported in this process (tests check a worker's)."""
    return sorted({name.split(".")[0] for name in sys.modules})
