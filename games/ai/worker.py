"""What a computer-player worker process runs (``sessions/computer.py`` submits these).

Kept in ``games`` so a spawned worker imports the rules and the search only —
never the bot, Telegram or storage.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass

from games.ai import Budget, Decision, decide
from games.ai.review import Verdict, review_decision
from games.base import View


@dataclass(frozen=True)
class Reply:
    """A worker's answer: the decision, and the worker's pid and memory (RSS, KiB)."""

    decision: Decision
    pid: int
    rss_kib: int


#: prctl(2)'s option that signals this process when its parent dies (Linux).
PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent where prctl is not available.
WATCH_EVERY = 1.0


def die_with(parent: int) -> None:
    """Run first in each new worker: end it when the bot (process ``parent``) dies.

    A bot killed outright (SIGKILL, the OOM killer) cannot shut its pool down,
    and its workers would live on holding its output pipes. On Linux the kernel
    kills the worker with its parent (``PR_SET_PDEATHSIG``); elsewhere a thread
    looks once a second and ends the worker when its parent is gone.
    """
    if not _kernel_kills_with_parent():
        threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()
    if os.getppid() != parent:  # it died before we were set up
        os._exit(0)


def _kernel_kills_with_parent() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(0)


def think(
    game_id: str, view: View, level: str, seed: int, budget: Budget | None, deadline: float | None
) -> Reply:
    """Decide in this worker, searching until ``deadline`` at the latest."""
    decision = decide(game_id, view, level, seed, budget, deadline)
    return Reply(decision, os.getpid(), resident_kib())


@dataclass(frozen=True)
class ReviewReply:
    """A worker's review of one decision, with the worker's pid and memory (RSS, KiB)."""

    verdict: Verdict
    pid: int
    rss_kib: int


def judge(
    game_id: str, view: View, chosen: str, seed: int, budget: Budget | None, deadline: float | None
) -> ReviewReply:
    """Review one decision in this worker (``games.ai.review``), until ``deadline``."""
    verdict = review_decision(game_id, view, chosen, seed, budget, deadline)
    return ReviewReply(verdict, os.getpid(), resident_kib())


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
