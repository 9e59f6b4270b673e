"""Load benchmark: the real ``python -m bot`` against the local fake Bot API.

For each setting (game × G concurrent group games) a fresh bot process is
started on a fresh SQLite file (WAL, synchronous=FULL) with its real PTB HTTP
stack, pointed at the fake Bot API server (tests/support/fake_telegram.py), which runs
here, in the load generator's event loop. Simulated humans with no think time
press the move buttons of their private hand messages, reading the legal moves
from the buttons the fake server holds. A move counts when the fake server
sees the resulting edit of the group's table message; its latency is from the
press (the update queued for ``getUpdates``) to that edit.

The fake server enforces no flood limits here, so the bot runs with
``KOLODA_FLOOD_LIMITS=off`` (no per-chat pacing, no AIORateLimiter throttle):
this measures raw capacity. Production keeps the limits; the flood test
(tests/bot/test_load_flood.py) checks that nothing is lost under them.

Printed per setting: moves/s, latency p50/p95/p99, Bot API calls per move,
the bot's CPU % and peak RSS (and the load generator's CPU %). Then the idle
part: the bot's RSS with 10,000 running but idle games in the database.

    .venv/bin/python bench/load.py                       # 6 settings × 60 s + idle RSS
    .venv/bin/python bench/load.py --seconds 20 --games 50 --only king
    .venv/bin/python bench/load.py --profile /tmp/bot-profile.txt --games 50 --only eleven
    .venv/bin/python bench/load.py --abuse --seconds 60   # one member floods her group
    .venv/bin/python bench/load.py --limits --workers 2 --games 200 --restart 0  # PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from tests.support.buttons import MOVE  # noqa: E402
from tests.support.fake_telegram import (  # noqa: E402
    MESSAGE_METHODS,
    Call,
    FakeTelegram,
    FakeUser,
    FloodLimits,
    StoredMessage,
)

GAMES = {"eleven": 2, "king": 4}
EDIT_TIMEOUT = 15.0  # seconds to wait for the table edit after a press
# ``python -m bot`` under a sampling profiler (py-spy is not installed): SIGPROF
# fires every millisecond of the process's CPU time and the handler (which runs in
# the main thread) counts the stack, so the counts are CPU, not waits. When the bot
# stops, the top functions by own and by inclusive samples are written out.
_PROFILED = """
import collections, runpy, signal, sys
own, inclusive, total = collections.Counter(), collections.Counter(), [0]
def where(frame):
    return f"{frame.f_code.co_filename.split('site-packages/')[-1]}:{frame.f_code.co_name}"
def sample(signum, frame):
    total[0] += 1
    own[where(frame)] += 1
    seen = set()
    while frame is not None:
        seen.add(where(frame))
        frame = frame.f_back
    inclusive.update(seen)
signal.signal(signal.SIGPROF, sample)
signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
try:
    runpy.run_module("bot", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    with open(sys.argv[1], "w") as out:
        busy = max(1, total[0])
        out.write(f"{total[0]} samples (ms of CPU)\\n\\nown:\\n")
        for name, n in own.most_common(40):
            out.write(f"{100 * n / busy:5.1f}%  {name}\\n")
        out.write("\\ninclusive:\\n")
        for name, n in inclusive.most_common(80):
            out.write(f"{100 * n / busy:5.1f}%  {name}\\n")
"""
_TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- the bot process


class BotProcess:
    """``python -m bot`` pointed at the fake server, with /proc readings."""

    #: the checkout whose bot runs (``--bot-root``: another worktree, for a 'before' run
    #: measured by this very harness)
    root: Path = ROOT

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(
        cls,
        fake: FakeTelegram,
        database: Path,
        profile: str | None = None,
        timeout: float = 600,
        *,
        limits: bool = False,
    ) -> BotProcess:
        """Start the bot and wait until it has registered its commands (it then polls)."""
        env = fake.bot_environment(database, KOLODA_FLOOD_LIMITS="on" if limits else "off")
        env["PYTHONPATH"] = str(cls.root)
        command = [sys.executable, "-m", "bot"]
        if profile:
            command = [sys.executable, "-c", _PROFILED, profile]
        ready = asyncio.Event()

        def on_call(call: Call) -> None:
            if call.method == "setMyCommands":
                ready.set()

        fake.listeners.append(on_call)
        process = await asyncio.create_subprocess_exec(
            *command, cwd=cls.root, env=env, stdout=asyncio.subprocess.DEVNULL
        )
        try:
            await asyncio.wait_for(ready.wait(), timeout)
        finally:
            fake.listeners.remove(on_call)
        return cls(process)

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    def cpu_seconds(self) -> float:
        """User + system CPU time so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS

    def rss_mb(self, key: str = "VmRSS") -> float:
        """``VmRSS`` (now) or ``VmHWM`` (peak) in MiB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
        raise KeyError(key)

    async def stop(self) -> None:
        """SIGTERM (graceful: a profile is written), SIGKILL after 60 s."""
        if self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 60)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()

    async def kill(self) -> None:
        """SIGKILL, no warning (a crash)."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()


def self_cpu_seconds() -> float:
    """The load generator's own CPU time (it runs the fake server too)."""
    times = os.times()
    return times.user + times.system


# ---------------------------------------------------------------- simulated tables


@dataclass
class Stats:
    """What the measured window saw."""

    moves: int = 0
    latencies: list[float] = field(default_factory=list)
    api_calls: int = 0
    refusals: int = 0
    timeouts: int = 0
    failed_calls: int = 0
    matches: int = 0
    recording: bool = False

    def record(self, latency: float) -> None:
        """One move whose table edit was seen."""
        if self.recording:
            self.moves += 1
            self.latencies.append(latency)


@dataclass
class Press:
    """A move button to press."""

    user: FakeUser
    message: StoredMessage
    data: str
    session: int
    version: int
    pressed_at: float = 0.0


class Table:
    """One group chat with its human players, seen through the fake server."""

    def __init__(
        self,
        fake: FakeTelegram,
        queries: dict[str, Table],
        game: str,
        number: int,
        rng: random.Random,
    ) -> None:
        self.fake = fake
        self.queries = queries
        self.game = game
        self.rng = rng
        self.group = fake.group(f"{game} {number}")
        self.players = [fake.user(f"P{number}x{i}") for i in range(GAMES[game])]
        self.private = {u.id: fake.private(u) for u in self.players}
        self.changed = asyncio.Event()
        self.group_changes = 0
        self.group_changed_at = 0.0
        self.hands: dict[int, StoredMessage] = {}
        self.result: StoredMessage | None = None
        self.lobby: StoredMessage | None = None
        self.session = 0
        self.refused = 0
        self.pressed: dict[str, Press] = {}  # query id → press, until answered
        self.acked: list[Press] = []  # presses answered without a refusal
        self.last_move_at = 0.0

    def chats(self) -> Iterator[int]:
        """Every chat this table's traffic goes to."""
        yield self.group.id
        yield from self.private

    def seen(self, call: Call, message: StoredMessage | None) -> None:
        """The fake answered a call in one of our chats."""
        if message is not None and call.chat_id == self.group.id:
            self.group_changes += 1
            self.group_changed_at = time.perf_counter()
            data = [b.get("callback_data") or "" for b in message.buttons()]
            if any(d.startswith("again:") for d in data):
                self.result = message
            if any(d.startswith("start:") for d in data):
                self.lobby = message
        elif message is not None and any(MOVE.match(d) for d in _data(message)):
            self.hands[message.chat_id] = message
        self.changed.set()

    async def wait(self, timeout: float) -> bool:
        """Wait for any change at this table; False on timeout."""
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    #: seconds to wait for each step of opening a table (longer when deliveries are paced)
    open_timeout = 60.0

    async def until(self, condition: Any, timeout: float | None = None) -> None:
        """Wait until ``condition()`` holds."""
        deadline = time.monotonic() + (self.open_timeout if timeout is None else timeout)
        while not condition():
            if time.monotonic() > deadline or not await self.wait(deadline - time.monotonic()):
                if condition():
                    return
                raise TimeoutError(f"{self.group.title}: condition not met")

    async def open(self) -> None:
        """/start in every private chat, /new in the group, everyone joins, the creator deals."""
        await self.seat()
        self.deal()
        await self.until(lambda: self.next_press() is not None)

    async def seat(self) -> None:
        """/start in every private chat, /new in the group, everyone joins the lobby."""
        for user in self.players:
            self.fake.push_command(user, self.private[user.id], "/start")
        self.fake.push_command(self.players[0], self.group, f"/new {self.game}")
        await self.until(lambda: self.lobby is not None)
        assert self.lobby is not None
        session = int(self.lobby.buttons()[0]["callback_data"].split(":")[1])
        for user in self.players[1:]:
            self.fake.push_callback(user, self.group, self.lobby.message_id, f"join:{session}")
        lobby = self.lobby
        await self.until(lambda: all(u.first_name in lobby.text for u in self.players))
        self.session = session

    def deal(self) -> None:
        """The creator presses "Start" on the full lobby."""
        assert self.lobby is not None
        self.fake.push_callback(
            self.players[0], self.group, self.lobby.message_id, f"start:{self.session}"
        )

    def next_press(self) -> Press | None:
        """The move button of whoever is to move in the newest session, if drawn yet."""
        best: Press | None = None
        for user in self.players:
            hand = self.hands.get(user.id)
            if hand is None:
                continue
            for data in _data(hand):
                match = MOVE.match(data)
                if match is None:
                    continue
                session, version = int(match[1]), int(match[2])
                if session < self.session:
                    break
                if best is None or (session, version) > (best.session, best.version):
                    best = Press(user, hand, data, session, version)
        if best is None:
            return None
        choices = [
            d for d in _data(best.message) if d.startswith(f"{best.session}:{best.version}:")
        ]
        best.data = self.rng.choice(choices)
        return best

    async def play(self, stats: Stats, stop_at: float) -> None:
        """Press, wait for the table edit and the next hand, again and again."""
        last = (0, -1)
        while time.perf_counter() < stop_at:
            if self.result is not None and self.result.message_id and self._over():
                await self.rematch(stats)
                last = (0, -1)
                continue
            press = self.next_press()
            if press is None or (press.session, press.version) <= last:
                if not await self.wait(EDIT_TIMEOUT):
                    stats.timeouts += 1
                    if self.pressed:  # our press got no answer (the bot died): press again
                        self.pressed.clear()
                        last = (0, -1)
                continue
            before, refused = self.group_changes, self.refused
            started = time.perf_counter()
            self.session = press.session
            query = self.fake.push_callback(
                press.user, self.private[press.user.id], press.message.message_id, press.data
            )
            self.queries[query], self.pressed[query] = self, press
            last = (press.session, press.version)
            while self.group_changes == before and self.refused == refused:
                if not await self.wait(EDIT_TIMEOUT):
                    stats.timeouts += 1
                    last = (0, -1)  # nothing came (the bot restarted?): press again
                    break
            if self.group_changes > before:
                self.last_move_at = self.group_changed_at
                stats.record(self.group_changed_at - started)
            elif self.refused > refused and stats.recording:
                stats.refusals += 1

    def _over(self) -> bool:
        """The newest session's result is on the table."""
        assert self.result is not None
        data = [b.get("callback_data") or "" for b in self.result.buttons()]
        return any(d == f"again:{self.session}" for d in data)

    def describe(self) -> str:
        """Where this table is, for a report on a stuck table."""
        hands = []
        for user in self.players:
            hand = self.hands.get(user.id)
            shown = (
                sorted({d.rsplit(":", 1)[0] for d in _data(hand) if MOVE.match(d)}) if hand else []
            )
            hands.append(f"{user.first_name}:{','.join(shown) or '-'}")
        result = self.result is not None and self._over()
        return (
            f"{self.group.title}: session {self.session}, hands {' '.join(hands)}, "
            f"result shown {result}, unanswered presses {len(self.pressed)}"
        )

    def answered(self, query: str, refused: bool) -> None:
        """The bot answered one of our presses."""
        press = self.pressed.pop(query, None)
        if refused:
            self.refused += 1
        elif press is not None:
            self.acked.append(press)
        self.changed.set()

    async def rematch(self, stats: Stats) -> None:
        """Play again (a new session with the same seats)."""
        assert self.result is not None
        if stats.recording:
            stats.matches += 1
        old = self.session
        self.fake.push_callback(self.players[0], self.group, self.result.message_id, f"again:{old}")
        shown, self.result = self.result, None
        try:
            await self.until(lambda: (p := self.next_press()) is not None and p.session > old, 60)
        except TimeoutError:  # the press was lost in a restart: press again
            self.result = self.result or shown
            return
        press = self.next_press()
        assert press is not None
        self.session = press.session


def _data(message: StoredMessage) -> list[str]:
    return [b.get("callback_data") or "" for b in message.buttons()]


class Traffic:
    """Routes every answered call to its table and counts them."""

    def __init__(self, fake: FakeTelegram, stats: Stats) -> None:
        self.fake = fake
        self.stats = stats
        self.tables: dict[int, Table] = {}
        self.queries: dict[str, Table] = {}
        fake.listeners.append(self.on_call)

    def add(self, table: Table) -> None:
        """Follow ``table``'s chats."""
        for chat_id in table.chats():
            self.tables[chat_id] = table

    def on_call(self, call: Call) -> None:
        """Listener of the fake server."""
        if call.method == "getUpdates":
            return
        if self.stats.recording:
            self.stats.api_calls += 1
            self.stats.failed_calls += not call.ok
        if call.method == "answerCallbackQuery":
            query = str(call.params.get("callback_query_id"))
            asked = self.queries.pop(query, None)
            if asked is not None:
                asked.answered(query, bool(call.params.get("text")))
            return
        table = self.tables.get(call.chat_id or 0)
        if table is None or not call.ok:
            return
        message = None
        if call.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
            result = call.result if isinstance(call.result, dict) else {}
            message_id = result.get("message_id") or call.params.get("message_id")
            if message_id:  # (an ephemeral message has none)
                message = self.fake.messages.get((call.chat_id or 0, int(message_id)))
        table.seen(call, message)


# ---------------------------------------------------------------- one setting


@dataclass
class Result:
    """One setting's numbers."""

    game: str
    concurrent: int
    seconds: float
    moves: int
    latencies: list[float]
    api_calls: int
    bot_cpu: float
    gen_cpu: float
    peak_rss: float
    refusals: int
    timeouts: int
    failed_calls: int
    matches: int

    def row(self) -> str:
        """A Markdown table row."""
        lat = sorted(self.latencies) or [float("nan")]
        per_move = self.api_calls / self.moves if self.moves else float("nan")
        # CPU per move does not depend on how much of a core the bot got: compare this
        cpu_ms = self.bot_cpu * 10 * self.seconds / self.moves if self.moves else float("nan")
        return (
            f"| {self.game} | {self.concurrent} | {self.moves / self.seconds:.0f} "
            f"| {_pct(lat, 50):.1f} | {_pct(lat, 95):.1f} | {_pct(lat, 99):.1f} "
            f"| {per_move:.2f} | {self.bot_cpu:.0f} | {cpu_ms:.2f} | {self.peak_rss:.0f} "
            f"| {self.gen_cpu:.0f} "
            f"| {self.moves} | {self.refusals}/{self.timeouts}/{self.failed_calls} |"
        )


HEADER = (
    "| game | G | moves/s | p50 ms | p95 ms | p99 ms | API calls/move | bot CPU % "
    "| bot CPU ms/move | bot peak RSS MiB | load-gen CPU % | moves "
    "| refused/timeouts/failed calls |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _pct(values: list[float], p: float) -> float:
    index = min(len(values) - 1, max(0, round(p / 100 * len(values)) - 1))
    return values[index] * 1000


async def run_setting(
    game: str, concurrent: int, seconds: float, workdir: Path, profile: str | None, seed: int
) -> Result:
    """Start a fresh bot, open ``concurrent`` tables, measure ``seconds`` of play."""
    fake = FakeTelegram()
    fake.keep_calls = False
    await fake.start()
    stats = Stats()
    traffic = Traffic(fake, stats)
    database = workdir / f"load-{game}-{concurrent}.sqlite3"
    bot = await BotProcess.start(fake, database, profile)
    rng = random.Random(seed)
    try:
        tables = [Table(fake, traffic.queries, game, n, rng) for n in range(concurrent)]
        for table in tables:
            traffic.add(table)
        await asyncio.gather(*(table.open() for table in tables))
        await asyncio.sleep(0.5)
        cpu0, gen0, wall0 = bot.cpu_seconds(), self_cpu_seconds(), time.perf_counter()
        stats.recording = True
        stop_at = wall0 + seconds
        await asyncio.gather(*(table.play(stats, stop_at) for table in tables))
        stats.recording = False
        wall = time.perf_counter() - wall0
        result = Result(
            game,
            concurrent,
            wall,
            stats.moves,
            stats.latencies,
            stats.api_calls,
            100 * (bot.cpu_seconds() - cpu0) / wall,
            100 * (self_cpu_seconds() - gen0) / wall,
            bot.rss_mb("VmHWM"),
            stats.refusals,
            stats.timeouts,
            stats.failed_calls,
            stats.matches,
        )
    finally:
        await bot.stop()
        await fake.stop()
    return result


# ---------------------------------------------------------------- with Telegram's limits


#: A hand update delivered within this many seconds of its move's commit is current.
HAND_CURRENT = 1.5
#: Seconds of the windows in which every table must show a move (fairness).
FAIR_WINDOW = 60.0


@dataclass
class Budget:
    """What a run with the flood limits on saw: deliveries by kind, lags, hand updates'
    waits, 429s."""

    deliveries: dict[str, int] = field(default_factory=dict)
    lags: list[float] = field(default_factory=list)
    #: seconds from a move's commit (its press answered) to the mover's next hand delivery
    #: and to the next turn's buttons
    hand_waits: list[float] = field(default_factory=list)
    #: the part of ``hand_waits`` that carried the next turn's buttons
    turn_waits: list[float] = field(default_factory=list)
    too_many: int = 0
    recording: bool = False
    #: when the window began (a press made before it, in the warm-up, is not measured)
    since: float = 0.0

    def count(self, call: Call) -> None:
        """Listener of the fake server: every send and edit, by kind."""
        if not self.recording or call.method not in MESSAGE_METHODS:
            return
        if not call.ok:
            self.too_many += bool(call.error and call.error.startswith("Too Many"))
            return
        if "Ephemeral" in call.method or "ephemeral_message_parameters" in call.params:
            kind = "ephemeral"
        elif (call.chat_id or 0) < 0:
            kind = "table"
        else:
            kind = "hand"
        self.deliveries[kind] = self.deliveries.get(kind, 0) + 1


class ThinkingTable(Table):
    """A table whose humans think ``think`` seconds on average before each move, and
    which notes how long each move took to show on the group's table."""

    open_timeout = 900.0

    def __init__(self, *args: Any, think: float, budget: Budget, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.think = think
        self.budget = budget
        self.moves = 0
        self.waiting: list[tuple[float, float]] = []  # (pressed, answered) not yet shown
        self.shown_at: list[float] = []  # when the table showed moves (while recording)
        # hand updates a move owes: the mover's chat → since when (the press, and from its
        # answer, once the change is committed, on), and the next turn's buttons (newer
        # than (session, version)) since when
        self.mover_owed: dict[int, list[float]] = {}
        self.turn_owed: tuple[int, int, float] | None = None
        self.thinking: list[tuple[float, float]] = []  # (buttons seen, pressed): the human's time

    def seen(self, call: Call, message: StoredMessage | None) -> None:
        """A group delivery shows every move answered before it was sent; a hand delivery
        pays what the moves before it owe that hand."""
        now = time.perf_counter()
        if message is not None and call.chat_id == self.group.id and self.waiting:
            shown = [w for w in self.waiting if w[1] <= now]
            self.waiting = [w for w in self.waiting if w[1] > now]
            if self.budget.recording:
                self.budget.lags += [
                    now - pressed for pressed, _ in shown if pressed >= self.budget.since
                ]
                if shown:
                    self.shown_at.append(now)
        elif message is not None and call.chat_id in self.private and self.budget.recording:
            self.budget.hand_waits += [now - t for t in self.mover_owed.pop(call.chat_id, [])]
            if self.turn_owed is not None:
                session, version, since = self.turn_owed
                if any(
                    (int(m[1]), int(m[2])) > (session, version)
                    for d in _data(message) if (m := MOVE.match(d))
                ):
                    self.budget.hand_waits.append(now - since)
                    self.budget.turn_waits.append(now - since)
                    self.turn_owed = None
        super().seen(call, message)

    def answered(self, query: str, refused: bool) -> None:
        """A press answered without a refusal is a move made (committed)."""
        press = self.pressed.get(query)
        if press is not None:
            now = time.perf_counter()
            # a delivery may come before the answer: then the press was the start
            owed = self.mover_owed.get(press.user.id, [])
            if press.pressed_at in owed:
                owed[owed.index(press.pressed_at)] = now
                if refused:
                    owed.remove(now)
            if self.turn_owed == (press.session, press.version, press.pressed_at):
                self.turn_owed = None if refused else (press.session, press.version, now)
        if press is not None and not refused:
            self.moves += self.budget.recording
            self.waiting.append((press.pressed_at, time.perf_counter()))
        super().answered(query, refused)

    def owed(self, now: float) -> list[float]:
        """How long the hand updates still owed at ``now`` have waited."""
        waits = [now - since for owed in self.mover_owed.values() for since in owed]
        return waits + ([now - self.turn_owed[2]] if self.turn_owed is not None else [])

    def longest_unshown(self, started: float, ended: float) -> float:
        """The longest this table waited, within the window, for its next shown move."""
        times = [started, *self.shown_at, ended]
        return max(b - a for a, b in itertools.pairwise(times))

    def longest_bot_wait(self, started: float, ended: float) -> float:
        """The longest this table waited, within the window, for its next shown move,
        less the time its humans spent thinking meanwhile: the bot's own part of the wait
        (a human's think time is drawn from an exponential law, whose longest draw in a
        run of a thousand moves alone passes 20 s)."""
        times = [started, *self.shown_at, ended]
        return max(
            b - a - sum(max(0.0, min(b, t1) - max(a, t0)) for t0, t1 in self.thinking)
            for a, b in itertools.pairwise(times)
        )

    def silent_windows(self, started: float, ended: float) -> int:
        """How many of the window's whole minutes (from ``started``) showed no move here."""
        minutes = int((ended - started) // FAIR_WINDOW)
        shown = {int((at - started) // FAIR_WINDOW) for at in self.shown_at if at >= started}
        return sum(k not in shown for k in range(minutes))

    async def play_thinking(self, stop_at: float) -> None:
        """Think, press the newest move button, and again, until ``stop_at``."""
        last = (0, -1)
        while time.perf_counter() < stop_at:
            if self.result is not None and self.result.message_id and self._over():
                await self.rematch(Stats())
                last = (0, -1)
                continue
            press = self.next_press()
            if press is None or (press.session, press.version) <= last:
                await self.wait(1.0)
                continue
            seen_at = time.perf_counter()
            await asyncio.sleep(self.rng.expovariate(1 / self.think))
            press = self.next_press() or press  # what the buttons show after thinking
            if (press.session, press.version) <= last:
                continue
            press.pressed_at = time.perf_counter()
            self.thinking.append((seen_at, press.pressed_at))
            self.session = press.session
            query = self.fake.push_callback(
                press.user, self.private[press.user.id], press.message.message_id, press.data
            )
            self.queries[query], self.pressed[query] = self, press
            last = (press.session, press.version)
            if self.budget.recording:
                self.mover_owed.setdefault(press.user.id, []).append(press.pressed_at)
                self.turn_owed = (press.session, press.version, press.pressed_at)


@dataclass
class LimitedResult:
    """One limits-on setting's numbers."""

    game: str
    tables: int
    seconds: float
    think: float
    moves: int
    per_table: list[int]
    budget: Budget
    unshown: list[float]
    owed: list[float]  # hand updates not delivered by the end: how long they waited
    longest_unshown: float
    longest_bot_wait: float  # the same less the humans' think time within it
    silent: int  # (table, minute of the window) pairs that showed no move
    minutes: int  # the window's whole minutes
    warmup: float

    def row(self) -> str:
        """A Markdown table row."""
        made = self.moves / self.seconds
        offered = self.tables / self.think
        moves = self.moves or float("nan")
        per_move = {k: v / moves for k, v in sorted(self.budget.deliveries.items())}
        total = sum(per_move.values())
        kinds = ", ".join(f"{k} {v:.2f}" for k, v in per_move.items())
        lags = sorted(self.budget.lags + self.unshown) or [float("nan")]
        counts = sorted(self.per_table)
        waits = self.budget.hand_waits + self.owed
        current = sum(w <= HAND_CURRENT for w in waits) / len(waits) if waits else float("nan")
        turns = sorted(self.budget.turn_waits) or [float("nan")]
        return (
            f"| {self.game} | {self.tables} | {made:.1f} ({offered:.1f}) | {total:.2f} "
            f"({kinds}) | {100 * current:.1f} % of {len(waits)} "
            f"| {_pct(turns, 50) / 1000:.2f} / {_pct(turns, 95) / 1000:.2f} / {turns[-1]:.1f} s "
            f"| {_pct(lags, 50) / 1000:.2f} / {_pct(lags, 95) / 1000:.2f} / "
            f"{lags[-1]:.1f} s | {self.longest_unshown:.1f} s ({self.longest_bot_wait:.1f} s) "
            f"| {self.silent} of {self.tables * self.minutes} "
            f"| {counts[0]} / {counts[len(counts) // 2]} / {counts[-1]} "
            f"| {self.sends_per_second:.1f} | {self.budget.too_many} |"
        )

    @property
    def sends_per_second(self) -> float:
        """Sends and edits a second the token made in the window (its ceiling: 30)."""
        return sum(self.budget.deliveries.values()) / self.seconds


LIMITED_HEADER = (
    "| game | tables | moves/s made (offered) | deliveries per move (by kind) "
    f"| hand updates within {HAND_CURRENT} s of the commit "
    "| commit → the next turn's buttons p50 / p95 / max "
    "| press → table shows it p50 / p95 / max | longest wait of a table for its next "
    "shown move (less its humans' think time) "
    f"| tables' {FAIR_WINDOW:.0f} s windows without a shown move "
    "| moves per table min / median / max | sends+edits/s | 429s |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


@dataclass
class Bots:
    """The bot under test: one process polling, or webhook workers sharing a database."""

    processes: list[BotProcess]

    async def stop(self) -> None:
        """Stop every process."""
        for process in self.processes:
            await process.stop()


async def _paced(
    database: Path, workers: int = 1, pg_url: str | None = None
) -> tuple[FakeTelegram, Budget, Traffic, Bots]:
    """A fake Bot API enforcing Telegram's limits, and the bot with its pacing on: one
    process polling on SQLite, or ``workers`` webhook workers on a fresh database of the
    PostgreSQL server ``pg_url`` (bench/cluster.py's), pacing through one shared budget."""
    fake = FakeTelegram(
        flood=FloodLimits(
            group_per_minute=20, private_per_second=1, private_burst=3, overall_per_second=30
        )
    )
    fake.keep_calls = False
    await fake.start()
    budget = Budget()
    traffic = Traffic(fake, Stats())
    fake.listeners.append(budget.count)
    if workers == 1:
        return fake, budget, traffic, Bots([await BotProcess.start(fake, database, limits=True)])
    from bench.cluster import CONNECTIONS, new_database, start_worker

    assert pg_url is not None, "several workers need a PostgreSQL server"
    url = await new_database(pg_url, database.stem.replace("-", "_"))
    started = [await start_worker(fake, url, True, BotProcess.root) for _ in range(workers)]
    fake.push_webhooks([address for _, address in started], connections=CONNECTIONS)
    return fake, budget, traffic, Bots([process for process, _ in started])


async def run_limited(
    game: str, count: int, seconds: float, think: float, workdir: Path, seed: int,
    warmup: float = 0.0, workers: int = 1, pg_url: str | None = None,
) -> LimitedResult:
    """The bot with its pacing on against a fake enforcing Telegram's limits, and
    ``count`` tables of humans who think ``think`` s on average per move: ``warmup``
    seconds of play (the deals' first hands go out), then ``seconds`` measured.
    ``workers`` > 1: that many webhook workers on PostgreSQL (``pg_url``)."""
    fake, budget, traffic, bot = await _paced(
        workdir / f"limited-{game}-{count}.sqlite3", workers, pg_url
    )
    rng = random.Random(seed)
    try:
        tables = [
            ThinkingTable(fake, traffic.queries, game, n, rng, think=think, budget=budget)
            for n in range(count)
        ]
        for table in tables:
            traffic.add(table)
        await asyncio.gather(*(table.open() for table in tables))
        await asyncio.sleep(3)  # let the deals' deliveries go out
        begun = time.perf_counter()
        started = begun + warmup

        async def measure() -> None:
            await asyncio.sleep(max(0.0, started - time.perf_counter()))
            budget.recording, budget.since = True, time.perf_counter()

        await asyncio.gather(
            measure(), *(t.play_thinking(started + seconds) for t in tables)
        )
        budget.recording = False
        now = time.perf_counter()
        unshown = [now - pressed for t in tables for pressed, _ in t.waiting if pressed >= started]
        return LimitedResult(
            game,
            count,
            now - started,
            think,
            sum(t.moves for t in tables),
            [t.moves for t in tables],
            budget,
            unshown,
            [wait for t in tables for wait in t.owed(now)],
            max(t.longest_unshown(started, now) for t in tables),
            max(t.longest_bot_wait(started, now) for t in tables),
            sum(t.silent_windows(started, now) for t in tables),
            int((now - started) // FAIR_WINDOW),
            warmup,
        )
    finally:
        await bot.stop()
        await fake.stop()


# ---------------------------------------------------------------- a burst of new tables


class BurstTable(ThinkingTable):
    """A ThinkingTable dealt in a burst: when its first screen and each player's first
    hand came after the deal was pressed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dealt_at = 0.0  # the creator pressed "Start" (0: not yet)
        self.first_table = 0.0  # seconds from the deal to the first table screen
        self.first_hands: dict[int, float] = {}  # private chat → seconds to its first hand
        self.first_move = 0.0  # seconds from the deal to the first move shown

    def seen(self, call: Call, message: StoredMessage | None) -> None:
        """The first group and private deliveries after the deal."""
        if message is not None and self.dealt_at:
            after = time.perf_counter() - self.dealt_at
            if call.chat_id == self.group.id:
                if not self.first_table:
                    self.first_table = after
                elif not self.first_move and self.waiting:
                    self.first_move = after
            elif call.chat_id in self.private:
                self.first_hands.setdefault(call.chat_id, after)
        super().seen(call, message)


@dataclass
class BurstResult:
    """A burst of deals: how long tables and hands waited for their first screens."""

    tables: int
    spread: float  # seconds the deals were pressed over
    first_tables: list[float]
    first_hands: list[float]
    hands_before_tables: int  # first hands delivered before the last first table screen
    first_moves: list[float]  # deal → the table's first move shown (nan: none yet)
    moved_first_minute: int  # tables that showed a move within 60 s of their deal
    without_screen: int  # tables still without their first screen at the end
    deliveries: dict[str, int]
    too_many: int

    def row(self) -> str:
        """A Markdown table row."""

        def spread(values: list[float]) -> str:
            found = sorted(values) or [float("nan")]
            p50, p95 = _pct(found, 50) / 1000, _pct(found, 95) / 1000
            return f"{p50:.1f} / {p95:.1f} / {found[-1]:.1f} s"

        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.deliveries.items()))
        return (
            f"| {self.tables} in {self.spread:.0f} s | {spread(self.first_tables)} "
            f"| {spread(self.first_hands)} | {self.hands_before_tables} "
            f"| {spread(self.first_moves)} | {self.moved_first_minute} of {self.tables} "
            f"| {self.without_screen} | {kinds} | {self.too_many} |"
        )


BURST_HEADER = (
    "| deals | deal → table's first screen p50 / p95 / max | deal → player's first hand "
    "p50 / p95 / max | first hands before the last table's first screen "
    "| deal → first move shown p50 / p95 / max | tables moving within 60 s "
    "| tables without a screen at the end | deliveries in the window | 429s |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


async def _quiet(fake: FakeTelegram, seconds: float, timeout: float) -> None:
    """Wait until the fake has seen no message call for ``seconds`` (the lobbies' replies
    are out), at most ``timeout``."""
    last = [time.perf_counter()]

    def on_call(call: Call) -> None:
        if call.method in MESSAGE_METHODS:
            last[0] = time.perf_counter()

    fake.listeners.append(on_call)
    try:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() - last[0] < seconds and time.perf_counter() < deadline:
            await asyncio.sleep(0.5)
    finally:
        fake.listeners.remove(on_call)


async def run_burst(
    count: int, spread: float, seconds: float, think: float, workdir: Path, seed: int
) -> BurstResult:
    """``count`` full four-human King lobbies (opened beforehand, the bot quiet again),
    dealt within ``spread`` seconds; then ``seconds`` of play, humans thinking ``think``
    s: when each table's first screen and each player's first hand came."""
    fake, budget, traffic, bot = await _paced(workdir / f"burst-{count}.sqlite3")
    rng = random.Random(seed)
    try:
        tables = [
            BurstTable(fake, traffic.queries, "king", n, rng, think=think, budget=budget)
            for n in range(count)
        ]
        for table in tables:
            traffic.add(table)
        await asyncio.gather(*(table.seat() for table in tables))
        await _quiet(fake, 5.0, 300.0)
        budget.recording, budget.since = True, time.perf_counter()
        stop_at = time.perf_counter() + seconds

        async def dealt(table: BurstTable) -> None:
            await asyncio.sleep(rng.uniform(0, spread))
            table.dealt_at = time.perf_counter()
            table.deal()
            await table.play_thinking(stop_at)

        await asyncio.gather(*(dealt(t) for t in tables))
        budget.recording = False
        end = time.perf_counter()
        last_table = max(t.dealt_at + t.first_table if t.first_table else end for t in tables)
        hands = [t.dealt_at + after for t in tables for after in t.first_hands.values()]
        missing = [end - t.dealt_at for t in tables for _ in range(4 - len(t.first_hands))]
        return BurstResult(
            count,
            spread,
            [t.first_table or end - t.dealt_at for t in tables],
            [after for t in tables for after in t.first_hands.values()]
            + missing,
            sum(at < last_table for at in hands),
            [t.first_move or end - t.dealt_at for t in tables],
            sum(0 < t.first_move <= 60 for t in tables),
            sum(not t.first_table for t in tables),
            budget.deliveries,
            budget.too_many,
        )
    finally:
        await bot.stop()
        await fake.stop()


# ---------------------------------------------------------------- one member floods her group

#: What the flooding member sends (a command), and the buttons she presses
#: (``{s}``: her table's session), each as often as the others.
FLOOD_COMMANDS = (
    "/score", "/help", "/rules", "/top", "/history", "/stats", "/settings", "/hand", "/join",
)
FLOOD_PRESSES = ("score:{s}", "deal:{s}:0", "hand:{s}", "rules:king", "{s}:0:AS", "sets:{s}")


def _help_start() -> str:
    """The first line of the /help answer (English: the fake's users speak it)."""
    from bot.i18n import t

    return t("en", "help").split("\n")[0]


def _is_table(message: StoredMessage) -> bool:
    """A group message that shows a session (lobby, table, result), not a reply."""
    return any(d.split(":")[0] in ("hand", "again", "start", "join") for d in _data(message))


class ProbedTable(ThinkingTable):
    """A ThinkingTable whose group asks /help now and then (its reply latency), and
    whose own table lags are kept (its own Budget)."""

    help_start = ""

    def __init__(self, *args: Any, probe_every: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe_every = probe_every
        self.asked: list[float] = []  # /help pushed, not answered yet
        self.replies: list[float] = []  # /help → its answer, seconds
        self.probes = 0

    def seen(self, call: Call, message: StoredMessage | None) -> None:
        """A reply in the group is not the table: it answers a probe, or nothing."""
        if message is not None and call.chat_id == self.group.id and not _is_table(message):
            text = str(call.params.get("text", ""))
            if self.asked and text.startswith(self.help_start):
                latency = time.perf_counter() - self.asked.pop(0)
                if self.budget.recording:
                    self.replies.append(latency)
            self.changed.set()
            return
        super().seen(call, message)

    async def probe(self, stop_at: float) -> None:
        """Ask /help every ``probe_every`` seconds on average, until ``stop_at``."""
        while (now := time.perf_counter()) < stop_at:
            await asyncio.sleep(min(stop_at - now, self.rng.expovariate(1 / self.probe_every)))
            if time.perf_counter() < stop_at:
                self.asked.append(time.perf_counter())
                # a new member each time: one user's repeats within 5 s get one answer
                self.probes += 1
                visitor = self.fake.user(f"{self.group.title} visitor {self.probes}")
                self.fake.push_command(visitor, self.group, "/help")


async def flood(table: Table, stop_at: float, rate: float, rng: random.Random) -> int:
    """Its creator sends commands and presses buttons in the group, ``rate`` a second,
    until ``stop_at``: how many."""
    fake, member, sent = table.fake, table.players[0], 0
    while time.perf_counter() < stop_at:
        await asyncio.sleep(1 / rate)
        if rng.random() < 0.5:
            fake.push_command(member, table.group, rng.choice(FLOOD_COMMANDS))
        else:
            data = rng.choice(FLOOD_PRESSES).format(s=table.session)
            message_id = table.lobby.message_id if table.lobby is not None else None
            fake.push_callback(member, table.group, message_id, data)
        sent += 1
    return sent


@dataclass
class AbuseResult:
    """One run of the abuse benchmark (with or without the flood)."""

    flooded: bool
    seconds: float
    moves: int
    replies: list[float]  # other groups' /help → answer
    lags: list[float]  # other groups' press → table shows it
    own_lags: list[float]  # the flooded group's
    flood_updates: int
    flood_replies: int  # sends and edits to the flooded group, tables included
    too_many: int

    def row(self) -> str:
        """A Markdown table row."""

        def spread(values: list[float]) -> str:
            found = sorted(values) or [float("nan")]
            return (
                f"{_pct(found, 50) / 1000:.2f} / {_pct(found, 95) / 1000:.2f} / "
                f"{found[-1]:.2f} s ({len(values)})"
            )

        return (
            f"| {'flood' if self.flooded else 'quiet'} | {self.moves / self.seconds:.1f} "
            f"| {spread(self.replies)} | {spread(self.lags)} | {spread(self.own_lags)} "
            f"| {self.flood_updates} | {self.flood_replies} | {self.too_many} |"
        )


ABUSE_HEADER = (
    "| run | moves/s | other chats' /help → answer p50 / p95 / max (n) "
    "| other tables' press → shown p50 / p95 / max (n) | flooded table's (n) "
    "| flood updates | deliveries to the flooded group | 429s |\n"
    "|---|---|---|---|---|---|---|---|"
)


async def run_abuse(
    count: int, seconds: float, think: float, workdir: Path, seed: int, *, flooded: bool
) -> AbuseResult:
    """``count`` King tables with the limits on (as :func:`run_limited`), each group
    asking /help every 20 s on average; with ``flooded``, the first table's creator
    floods her group with commands and presses, 10 a second."""
    fake, budget, traffic, bot = await _paced(workdir / f"abuse-{flooded}.sqlite3")
    rng = random.Random(seed)
    ProbedTable.help_start = _help_start()
    try:
        tables = [
            ProbedTable(fake, traffic.queries, "king", n, rng, think=think, budget=Budget(),
                        probe_every=20.0)
            for n in range(count)
        ]
        for table in tables:
            traffic.add(table)
        await asyncio.gather(*(table.open() for table in tables))
        await asyncio.sleep(3)  # let the deals' deliveries go out
        flooded_group = tables[0].group.id
        to_flooded = [0]

        def count_flooded(call: Call) -> None:
            if call.chat_id == flooded_group and call.ok and call.method in MESSAGE_METHODS:
                to_flooded[0] += 1

        fake.listeners.append(count_flooded)
        for recording in (budget, *(t.budget for t in tables)):
            recording.recording = True
        started = time.perf_counter()
        stop_at = started + seconds
        work = [t.play_thinking(stop_at) for t in tables]
        work += [t.probe(stop_at) for t in tables[1:]]
        flooding = flood(tables[0], stop_at, 10.0, random.Random(seed)) if flooded else None
        _, updates = await asyncio.gather(asyncio.gather(*work), flooding or asyncio.sleep(0, 0))
        for recording in (budget, *(t.budget for t in tables)):
            recording.recording = False
        now = time.perf_counter()
        others = tables[1:]
        return AbuseResult(
            flooded,
            now - started,
            sum(t.moves for t in tables),
            [r for t in others for r in t.replies] + [now - a for t in others for a in t.asked],
            [lag for t in others for lag in t.budget.lags]
            + [now - pressed for t in others for pressed, _ in t.waiting],
            tables[0].budget.lags + [now - pressed for pressed, _ in tables[0].waiting],
            updates,
            to_flooded[0],
            budget.too_many,
        )
    finally:
        await bot.stop()
        await fake.stop()


# ---------------------------------------------------------------- idle memory


async def seed_idle_games(database: Path, fake: FakeTelegram, count: int) -> list[Press]:
    """``count`` running two-player Eleven games, stored as the bot stores them, every
    message shown current; for each, the press its first player could make now.

    Made with the bot's own SessionManager (faster than 10,000 lobbies through
    Telegram); each table and hand message exists on the fake server and is
    remembered in the database with the version it shows, as after a real game
    start that was delivered.
    """
    from bot.callback import Move
    from sessions import Messages, SessionManager

    class NoComputer:
        async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
            raise AssertionError("no computer seats")

    manager = await SessionManager.open(f"sqlite:///{database}", NoComputer(), cache_size=16)
    messages = Messages(manager.store)
    presses: list[Press] = []
    try:

        async def one(n: int) -> None:
            group = fake.group(f"idle {n}")
            alice, bob = fake.user(f"A{n}"), fake.user(f"B{n}")
            fake.started.update((alice.id, bob.id))
            session = await manager.create(group.id, "group", alice.id, alice.first_name, "eleven")
            await manager.join(session.id, bob.id, bob.first_name)
            started = (await manager.start(session.id, alice.id)).session
            players = [alice, bob]
            for seat, (purpose, chat_id) in enumerate(
                [("hand:0", alice.id), ("hand:1", bob.id), ("table", group.id)]
            ):
                message = fake.seed_message(chat_id, "…")
                await messages.posted(
                    session.id, purpose, chat_id, message.message_id, started.version
                )
                to_move = started.to_move
                if purpose.startswith("hand:") and seat == to_move and started.game is not None:
                    action = started.game.legal_actions(seat)[0]
                    data = Move(session.id, started.version, action).pack()
                    presses.append(
                        Press(players[seat], message, data, session.id, started.version)
                    )

        for start in range(0, count, 200):
            await asyncio.gather(*(one(n) for n in range(start, min(count, start + 200))))
    finally:
        await manager.close()
    return presses


async def restart_numbers(workdir: Path, count: int) -> dict[str, float]:
    """The bot's RSS with an empty database; then a restart with ``count`` open games,
    all current: start-up to polling, deliveries at start-up, the first press's answer
    and table edit, RSS."""
    fake = FakeTelegram(flood=FloodLimits(group_per_minute=20, private_per_second=1))
    fake.keep_calls = False
    await fake.start()
    deliveries = 0
    seen: dict[str, float] = {}

    def on_call(call: Call) -> None:
        nonlocal deliveries
        if call.method in MESSAGE_METHODS:
            deliveries += 1
            seen.setdefault(f"{call.method}:{call.chat_id}", time.perf_counter())
        elif call.method == "answerCallbackQuery":
            seen.setdefault("answer", time.perf_counter())

    fake.listeners.append(on_call)
    numbers: dict[str, float] = {}
    try:
        empty = workdir / "idle-empty.sqlite3"
        bot = await BotProcess.start(fake, empty, limits=True)
        await asyncio.sleep(3)
        numbers["empty_rss"] = bot.rss_mb()
        await bot.stop()

        database = workdir / "idle.sqlite3"
        started = time.perf_counter()
        presses = await seed_idle_games(database, fake, count)
        numbers["seed_seconds"] = time.perf_counter() - started
        deliveries, seen = 0, {}
        started = time.perf_counter()
        bot = await BotProcess.start(fake, database, limits=True)
        # start-up is done (and polling begins) once the command lists are registered
        numbers["startup_seconds"] = time.perf_counter() - started
        await asyncio.sleep(3)  # anything start-up would deliver has gone out by now
        numbers["startup_deliveries"] = deliveries
        press = presses[0]
        pressed = time.perf_counter()
        chat = fake.private(press.user)
        fake.push_callback(press.user, chat, press.message.message_id, press.data)
        while "answer" not in seen or not any(
            key.startswith("editMessageText:-") for key in seen
        ):
            await asyncio.sleep(0.005)
            if time.perf_counter() - pressed > 30:
                break
        numbers["first_answer_seconds"] = seen.get("answer", float("nan")) - pressed
        edited = [v for k, v in seen.items() if k.startswith("editMessageText:-")]
        numbers["first_table_seconds"] = (min(edited) if edited else float("nan")) - pressed
        numbers["idle_rss"] = bot.rss_mb()
        numbers["idle_peak_rss"] = bot.rss_mb("VmHWM")
        await bot.stop()
    finally:
        await fake.stop()
    return numbers


# ---------------------------------------------------------------- main


@contextlib.contextmanager
def postgres(wanted: bool) -> Iterator[str | None]:
    """A throwaway PostgreSQL server's URL for the run (None if not ``wanted``)."""
    if not wanted:
        yield None
        return
    from tests.support.pg_server import throwaway_server

    with throwaway_server("koloda-load-pg") as server:
        yield server.url()


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


async def main(args: argparse.Namespace) -> None:
    """Run the settings asked for; print a Markdown report."""
    print(f"# Koloda load benchmark — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"cores: {os.cpu_count()}, load average before: {loadavg()}, ", end="")
    print(f"{args.seconds:.0f} s per setting")
    BotProcess.root = args.bot_root.resolve()
    print(f"bot: {BotProcess.root}")
    with tempfile.TemporaryDirectory(prefix="koloda-load-") as tmp:
        workdir = Path(tmp)
        if args.limits:
            where = (
                f"{args.workers} webhook workers on PostgreSQL sharing the token's budget"
                if args.workers > 1 else "one worker polling, SQLite"
            )
            print(f"\n## With Telegram's limits on, humans think {args.think:.0f} s on average, "
                  f"{args.warmup:.0f} s of warm-up before the window; {where}\n")
            print(LIMITED_HEADER, flush=True)
            with postgres(args.workers > 1) as pg_url:
                for game in [args.only] if args.only else ["king"]:
                    for count in [args.games] if args.games else [10, 50, 200]:
                        limited = await run_limited(
                            game, count, args.seconds, args.think, workdir, args.seed,
                            args.warmup, args.workers, pg_url,
                        )
                        print(limited.row(), flush=True)
        if args.burst:
            count = args.games or 200
            print(f"\n## A burst: {count} King tables dealt within {args.spread:.0f} s, limits "
                  f"on, humans think {args.think:.0f} s, {args.seconds:.0f} s from the first "
                  "deal\n")
            print(BURST_HEADER, flush=True)
            burst = await run_burst(
                count, args.spread, args.seconds, args.think, workdir, args.seed
            )
            print(burst.row(), flush=True)
        if args.abuse:
            count = args.games or 50
            print(f"\n## One member floods her group: {count} King tables, limits on, "
                  f"humans think {args.think:.0f} s\n")
            print(ABUSE_HEADER, flush=True)
            for flooded in (False, True):
                abused = await run_abuse(
                    count, args.seconds, args.think, workdir, args.seed, flooded=flooded
                )
                print(abused.row(), flush=True)
        special = args.restart_only or args.abuse or args.burst
        if (not args.limits or args.closed) and not special:
            print("\n## Limits off, no think time (raw capacity)\n")
            print(HEADER, flush=True)
            for game in [args.only] if args.only else list(GAMES):
                for concurrent in [args.games] if args.games else [1, 10, 50]:
                    result = await run_setting(
                        game, concurrent, args.seconds, workdir, args.profile, args.seed
                    )
                    print(result.row(), flush=True)
        print(f"\nload average after: {loadavg()}")
        if args.restart and not args.abuse and not args.burst:
            numbers = await restart_numbers(workdir, args.restart)
            print(
                f"\nrestart: empty database RSS {numbers['empty_rss']:.0f} MiB; "
                f"{args.restart} open games, all current (seeded in "
                f"{numbers['seed_seconds']:.0f} s): start-up to polling "
                f"{numbers['startup_seconds']:.1f} s, {numbers['startup_deliveries']:.0f} "
                f"deliveries at start-up, first press answered after "
                f"{numbers['first_answer_seconds']:.2f} s and its table edited after "
                f"{numbers['first_table_seconds']:.2f} s; RSS {numbers['idle_rss']:.0f} MiB "
                f"(peak {numbers['idle_peak_rss']:.0f} MiB)"
            )


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per setting")
    parser.add_argument("--games", type=int, default=0, help="only this many tables")
    parser.add_argument("--only", choices=sorted(GAMES), help="only this game")
    parser.add_argument("--limits", action="store_true", help="Telegram's limits on, think time")
    parser.add_argument("--think", type=float, default=3.0, help="mean think time (--limits)")
    parser.add_argument(
        "--workers", type=int, default=1,
        help="--limits: this many webhook workers on a throwaway PostgreSQL (bench/cluster.py)",
    )
    parser.add_argument("--closed", action="store_true", help="with --limits: the raw part too")
    parser.add_argument(
        "--abuse", action="store_true",
        help="limits on, 50 tables: a quiet run, then one with a member flooding her group",
    )
    parser.add_argument(
        "--warmup", type=float, default=60.0,
        help="with --limits: seconds of play before the measured window",
    )
    parser.add_argument(
        "--burst", action="store_true",
        help="limits on: 200 full lobbies dealt within --spread seconds, first screens",
    )
    parser.add_argument("--spread", type=float, default=10.0, help="--burst: seconds of deals")
    parser.add_argument(
        "--bot-root", type=Path, default=ROOT,
        help="run the bot of this checkout (a 'before' worktree) under this harness",
    )
    parser.add_argument("--restart", type=int, default=10_000, help="open games (0: skip)")
    parser.add_argument("--restart-only", action="store_true", help="only the restart part")
    parser.add_argument("--profile", help="sample the bot's CPU, report to this file")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
