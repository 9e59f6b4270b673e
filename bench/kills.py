"""Ephemeral hands across worker kills: does every turn reach the player's "🃏 My hand"?

Two ``python -m bot`` workers in webhook mode share one PostgreSQL database (a
throwaway server from ``tests/support/pg_server.py``). The fake Bot API
(``tests/support/fake_telegram.py``, Telegram's flood limits on) POSTs every
update to the workers in turn; an update a dead worker cannot take is sent
again to the next one, as Telegram retries. In one group a King match is
played by two humans and two (easy) computers. Each human presses "🃏 My hand"
on the table once, which gives her an ephemeral hand in the group (Bot API
10.2), and from then on plays her moves from it: when it shows her turn's
buttons she thinks (exponential, ``--think`` s on average) and presses one.
During the match one worker is SIGKILLed three times and started again a few
seconds later.

For every turn of a human, the bench checks whether her ephemeral hand showed
that turn's buttons, and when: the delay is from the turn's start (the commit
of the move before it, from the move log's time) to the fake's answer to the
send or edit that first put a button of the turn on her ephemeral hand. A
human whose ephemeral hand still lacks her turn's buttons after 15 s plays
from her private hand instead (so the match goes on; that turn counts as never
reached). The same is then run with one worker and no kills, the control.

Printed per run: human turns, reached within 10 s, the p50 / p95 / max delay,
reached later, never reached, the turns played from the private hand, and
ERROR lines or tracebacks in the workers' logs; then how long each move (human
or computer) took to show on the group's table (from its commit to the fake's
answer to the first table edit that left a worker after it), and the slow turns
with how long after a kill they started.

    .venv/bin/python bench/kills.py                     # ~4 min: 2 workers + kills, 1 worker
    .venv/bin/python bench/kills.py --seconds 60 --seed 7 --only kills

``--seed`` fixes the bench's choices (think times, which card, when the kills
come and how long the worker stays down); the deal itself comes from the
bot's own random seed, and the timing of two processes is never exact, so
two runs with one seed play the same schedule, not the same cards.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, web

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from bench.cluster import SECRET, new_database  # noqa: E402
from bench.load import loadavg  # noqa: E402
from sessions.manager import SessionManager  # noqa: E402
from tests.support.buttons import MOVE  # noqa: E402
from tests.support.computers import RandomComputer  # noqa: E402
from tests.support.fake_telegram import Call, FakeTelegram, FakeUser, FloodLimits  # noqa: E402
from tests.support.pg_server import throwaway_server  # noqa: E402
from tests.support.webhook import WebhookWorker  # noqa: E402

REACH = 10.0  # the target: a turn's buttons on the ephemeral hand within this many seconds
FALLBACK = 15.0  # then the human plays from her private hand
RETRY = 20.0  # a press that changed nothing (lost with a killed worker) is pressed again
EPHEMERAL_EDITS = ("editEphemeralMessageText", "editEphemeralMessageReplyMarkup")


def _moves(markup: Any, session: int) -> list[str]:
    """The move buttons of ``session`` in an inline keyboard."""
    rows = (markup or {}).get("inline_keyboard", []) if isinstance(markup, dict) else []
    return [
        data for row in rows for b in row
        if (m := MOVE.match(data := b.get("callback_data") or "")) and int(m[1]) == session
    ]


def _version(data: str) -> int:
    match = MOVE.match(data)
    assert match is not None
    return int(match[2])


@dataclass
class Shown:
    """One send or edit of an ephemeral hand the fake carried out."""

    at: float  # wall clock, as the move log's times
    versions: frozenset[int]
    method: str = ""


@dataclass
class Run:
    """What one run saw."""

    workers: int
    kills: list[float] = field(default_factory=list)  # wall clock of each SIGKILL
    shown: dict[int, list[Shown]] = field(default_factory=lambda: defaultdict(list))
    from_private: int = 0
    presses: int = 0
    ended: float = 0.0
    began: float = 0.0  # wall clock of the first move of play
    restarts: list[float] = field(default_factory=list)  # the victim healthy again
    #: (wall clock the request left, came back, worker, Bot API method): who made each call
    made: list[tuple[float, float, str, str]] = field(default_factory=list)
    #: (wall clock, worker, line) of the workers' INFO lines about redrawing
    redraws: list[tuple[float, str, str]] = field(default_factory=list)
    #: wall clock of the fake's answer to each edit of a group's message (the table)
    table_edits: list[float] = field(default_factory=list)
    #: wall clock of each move's commit (the move log's times)
    moves: list[float] = field(default_factory=list)

    def on_call(self, call: Call) -> None:
        """Listener of the fake server: every ephemeral hand's buttons as they change."""
        if not call.ok:
            return
        if call.method == "editMessageText" and (call.chat_id or 0) < 0:
            self.table_edits.append(time.time())
            return
        if call.method == "sendMessage" and "ephemeral_message_parameters" in call.params:
            receiver = int(call.params["ephemeral_message_parameters"]["receiver_user_id"])
        elif call.method in EPHEMERAL_EDITS:
            receiver = int(call.params["receiver_user_id"])
        else:
            return
        versions = frozenset(_version(d) for d in _moves(call.params.get("reply_markup"), 1))
        self.shown[receiver].append(Shown(time.time(), versions, call.method))

    def table_lags(self) -> list[float]:
        """For each move, seconds from its commit to the answer to the first table edit
        whose request left a worker after the commit (so it was drawn after it)."""
        left = sorted(
            (max((gone for gone, back, _, method in self.made
                  if method == "editMessageText" and gone <= at <= back), default=at), at)
            for at in self.table_edits
        )
        lags = []
        for moved in self.moves:
            answered = next((at for gone, at in left if gone >= moved), None)
            if answered is not None:
                lags.append(answered - moved)
        return sorted(lags)

    def maker(self, shown: Shown) -> str:
        """The worker whose request put ``shown`` on the hand (its Bot API call spans it)."""
        spans = [(gone, worker) for gone, back, worker, method in self.made
                 if method == shown.method and gone <= shown.at <= back]
        return min(spans)[1] if spans else "?"


class Human:
    """A player who plays from her ephemeral hand in the group."""

    def __init__(self, fake: FakeTelegram, user: FakeUser, group: Any, run: Run,
                 rng: random.Random, think: float) -> None:
        self.fake, self.user, self.group, self.run = fake, user, group, run
        self.rng, self.think = rng, think
        self.first_seen: dict[int, float] = {}  # version → when the private hand showed it

    def ephemeral(self) -> list[str]:
        """The move buttons of her newest ephemeral message in the group."""
        mine = [m for m in self.fake.chat_messages(self.group.id, ephemeral=True)
                if m.ephemeral_for == self.user.id]
        return _moves(mine[-1].reply_markup, 1) if mine else []

    def private(self) -> list[str]:
        """The move buttons of her private hand."""
        hand = self.fake.last_message(self.user.id, containing="🃏")
        return _moves(hand.reply_markup, 1) if hand is not None else []

    async def play(self, stop_at: float, over: Any) -> None:
        """Press her turn's buttons until ``stop_at`` or the match is over."""
        last, pressed_at = -1, 0.0
        while time.monotonic() < stop_at and not over():
            now = time.monotonic()
            ephemeral, private = self.ephemeral(), self.private()
            newest = max((_version(d) for d in private), default=-1)
            self.first_seen.setdefault(newest, now)
            stalled = now - pressed_at > RETRY
            choices: list[str] = []
            if ephemeral and (_version(ephemeral[0]) > last or stalled):
                choices = ephemeral
            elif (private and (newest > last or stalled)
                  and now - self.first_seen[newest] >= FALLBACK):
                choices, self.run.from_private = private, self.run.from_private + 1
            if not choices:
                await asyncio.sleep(0.1)
                continue
            await asyncio.sleep(self.rng.expovariate(1 / self.think) if self.think else 0)
            data = self.rng.choice(choices)
            self.fake.push_callback(self.user, self.group, None, data)
            last, pressed_at = _version(data), time.monotonic()
            self.run.presses += 1


class Tagger:
    """Between one worker and the fake Bot API: notes which worker made each call (in
    ``run.made``), so a late turn says who drew it."""

    def __init__(self, upstream: str, name: str, run: Run) -> None:
        self.upstream, self.name, self.run = upstream.rsplit("/", 1)[0], name, run
        self.runner: web.AppRunner | None = None
        self.client: ClientSession | None = None
        self.url = ""

    async def start(self) -> None:
        """Listen on a free port; ``url`` is the TELEGRAM_API_URL its worker uses."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{path:.*}", self.forward)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        port = server.sockets[0].getsockname()[1]
        self.client = ClientSession()
        self.url = f"http://127.0.0.1:{port}/bot"

    async def forward(self, request: web.Request) -> web.Response:
        """Pass the call on, note who made it and when."""
        assert self.client is not None
        body, gone = await request.read(), time.time()
        headers = {k: v for k, v in request.headers.items() if k.lower() == "content-type"}
        async with self.client.request(request.method, self.upstream + request.path_qs,
                                       data=body, headers=headers) as answer:
            payload, status = await answer.read(), answer.status
            kind = answer.headers.get("Content-Type", "application/json")
        self.run.made.append((gone, time.time(), self.name, request.path.rsplit("/", 1)[-1]))
        return web.Response(body=payload, status=status, headers={"Content-Type": kind})

    async def stop(self) -> None:
        """Stop listening."""
        if self.client is not None:
            await self.client.close()
        if self.runner is not None:
            await self.runner.cleanup()


#: The workers' INFO lines that say a message was drawn again, and why.
REDRAWN = re.compile(r"stayed behind|were behind|drawing|koloda is up|dead")


def redraw_lines(log: Path, worker: str) -> list[tuple[float, str, str]]:
    """(wall clock, worker, line) of a worker's log lines about drawing again."""
    found = []
    for line in log.read_text(errors="replace").splitlines():
        if REDRAWN.search(line) and line[:4].isdigit():
            stamp, millis = line[:19], int(line[20:23])
            at = time.mktime(time.strptime(stamp, "%Y-%m-%d %H:%M:%S")) + millis / 1000
            found.append((at, worker, line[24:].strip()))
    return found


async def open_match(fake: FakeTelegram, humans: list[FakeUser], group: Any) -> None:
    """/start in private, /new king in the group, Bob joins, two computers, deal."""
    alice, bob = humans
    for user in humans:
        fake.push_command(user, fake.private(user), "/start")
    fake.push_command(alice, group, "/new king")
    await fake.wait_until(lambda: (t := fake.last_message(group.id)) is not None
                          and "join:1" in str(t.reply_markup), 60)
    table = fake.last_message(group.id)
    assert table is not None
    for user, data in ((bob, "join:1"), (alice, "comp:1:easy"), (alice, "comp:1:easy")):
        await fake.answer(fake.push_callback(user, group, table.message_id, data), 60)
    await fake.wait_until(lambda: table.text.count("🤖") >= 2 and "Bob" in table.text, 60)
    await fake.answer(fake.push_callback(alice, group, table.message_id, "start:1"), 60)
    await fake.wait_until(lambda: "hand:1" in str(table.reply_markup), 60)
    for user in humans:  # each opens her ephemeral hand in the group
        await fake.answer(fake.push_callback(user, group, table.message_id, "hand:1"), 60)


async def kill_schedule(victim: WebhookWorker, run: Run, window: float, kills: int,
                        rng: random.Random) -> None:
    """SIGKILL ``victim`` ``kills`` times, evenly over the window, down 1–5 s each time."""
    began = time.monotonic()
    for k in range(kills):
        at = began + window * (k + 1 + rng.uniform(-0.2, 0.2)) / (kills + 1)
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        await victim.kill()
        run.kills.append(time.time())
        await asyncio.sleep(rng.uniform(1.0, 5.0))
        await victim.start()
        run.restarts.append(time.time())


async def one_run(workers: int, kills: int, args: argparse.Namespace, pg_url: str,
                  folder: Path, number: int) -> tuple[Run, list[Turn], int]:
    """Fresh database, fake and workers; the match for ``args.seconds``; its turns."""
    fake = FakeTelegram(flood=FloodLimits(private_burst=3))
    await fake.start()
    run = Run(workers)
    fake.listeners.append(run.on_call)
    url = await new_database(pg_url, f"bench_kills_{number}")
    env = {"DATABASE_URL": url, "WEBHOOK_URL": "https://koloda.example.org/telegram",
           "WEBHOOK_SECRET": SECRET, "KOLODA_FLOOD_LIMITS": "on"}
    if args.lease:
        env["KOLODA_LEASE_SECONDS"] = str(args.lease)
    env["LOG_LEVEL"] = "INFO"  # the lines about drawing again (REDRAWN)
    logs = [folder / f"workers-{number}-w{n}.log" for n in range(workers)]
    taggers = [Tagger(fake.api_url, f"w{n}", run) for n in range(workers)]
    for tagger in taggers:
        await tagger.start()
    pool = [WebhookWorker(fake, {**env, "TELEGRAM_API_URL": tagger.url}, log)
            for tagger, log in zip(taggers, logs, strict=True)]
    rng = random.Random(f"{args.seed}:{workers}:{kills}")
    humans = [fake.user("Alice"), fake.user("Bob")]
    group = fake.group("Kills")
    try:
        await asyncio.gather(*(w.start() for w in pool))
        fake.push_webhooks([w.url for w in pool], connections=4)
        await open_match(fake, humans, group)
        table = fake.last_message(group.id)
        assert table is not None
        stop_at = time.monotonic() + args.seconds
        run.began = time.time()
        players = [Human(fake, u, group, run, random.Random(rng.random()), args.think)
                   for u in humans]
        tasks = [asyncio.create_task(p.play(stop_at, lambda: "game over" in table.text))
                 for p in players]
        if kills:
            tasks.append(asyncio.create_task(
                kill_schedule(pool[0], run, args.seconds, kills, rng)))
        await asyncio.gather(*tasks)
        run.ended = time.time()
    finally:
        await asyncio.gather(*(w.stop() for w in pool))
        await fake.stop()
        for tagger in taggers:
            await tagger.stop()
    errors = sum(1 for log in logs for line in log.read_text(errors="replace").splitlines()
                 if " ERROR " in line or line.startswith("Traceback"))
    run.redraws = sorted(r for n, log in enumerate(logs) for r in redraw_lines(log, f"w{n}"))
    turns = await turns_of(url, run, humans)
    if args.trace:
        write_trace(Path(f"{args.trace}.{number}"), fake, run)
    return run, turns, errors


def write_trace(path: Path, fake: FakeTelegram, run: Run) -> None:
    """Every Bot API call but getUpdates, with the worker that made it, for reading a
    slow turn (``--trace``)."""
    began = fake.calls[0].at if fake.calls else 0.0
    wall = time.time() - time.monotonic()  # the fake stamps calls on the monotonic clock
    with path.open("w") as out:
        for at in run.kills:
            out.write(f"{at - wall - began:8.2f} SIGKILL\n")
        for at in run.restarts:
            out.write(f"{at - wall - began:8.2f} w0 up again\n")
        for call in fake.calls:
            who = call.params.get("receiver_user_id") or (
                call.params.get("ephemeral_message_parameters") or {}).get("receiver_user_id", "")
            moves = sorted({_version(d) for d in _moves(call.params.get("reply_markup"), 1)})
            state = "ok" if call.ok else f"ERR {call.error}"
            maker = run.maker(Shown(call.at + wall, frozenset(), call.method))
            out.write(f"{call.at - began:8.2f} {maker} {call.method} chat={call.chat_id} {who} "
                      f"moves={moves} {state}\n")


@dataclass
class Turn:
    """One turn of a human and when her ephemeral hand first showed it."""

    user: int
    started: float
    delay: float | None  # None: never shown while it was her turn


async def turns_of(url: str, run: Run, humans: list[FakeUser]) -> list[Turn]:
    """Every human turn in the move log (and the one pending at the end, if judged)."""
    manager = await SessionManager.open(url, RandomComputer())
    try:
        session = await manager.get(1)
        log = await manager.replay_log(1)
    finally:
        await manager.close()
    run.moves = [move.time for move in log]
    owner = {n: seat.user_id for n, seat in enumerate(session.seats)}
    ids = {u.id for u in humans}
    spans: list[tuple[int, float, int, int, float]] = []  # user, start, low, high, end
    for before, move in itertools.pairwise(log):
        user = owner.get(move.seat)
        if user in ids and before.version is not None and move.version is not None:
            spans.append((user, before.time, before.version, move.version, move.time))
    user = owner.get(session.to_move) if session.to_move is not None else None
    pending = session.status == "running" and user in ids and log
    late = bool(log) and run.ended - log[-1].time >= REACH
    if pending and late and user is not None and log[-1].version is not None:
        spans.append((user, log[-1].time, log[-1].version, session.version, run.ended))
    turns = []
    for user, start, low, high, end in spans:
        seen = [s.at for s in run.shown[user]
                if s.at <= end and any(low < v <= high for v in s.versions)]
        turns.append(Turn(user, start, min(seen) - start if seen else None))
    return turns


def report(run: Run, turns: list[Turn], errors: int) -> str:
    """One Markdown row."""
    delays = sorted(t.delay for t in turns if t.delay is not None)
    within = sum(d <= REACH for d in delays)
    spread = "– / – / –"
    if delays:
        p95 = delays[min(len(delays) - 1, max(0, round(0.95 * len(delays)) - 1))]
        spread = f"{statistics.median(delays):.2f} / {p95:.2f} / {delays[-1]:.2f}"
    return (f"| {run.workers} | {len(run.kills)} | {len(turns)} | {within} | {spread} "
            f"| {len(delays) - within} | {len(turns) - len(delays)} | {run.from_private} "
            f"| {run.presses} | {errors} |")


def table_lag(run: Run) -> str:
    """A move's lag to the group's table: p50 / p95 / max."""
    lags = run.table_lags()
    if not lags:
        return "no table edit after a move"
    p95 = lags[min(len(lags) - 1, max(0, round(0.95 * len(lags)) - 1))]
    return (f"move → table edit p50 / p95 / max {statistics.median(lags):.2f} / {p95:.2f} / "
            f"{lags[-1]:.2f} s over {len(lags)} of {len(run.moves)} moves")


def slow_turns(run: Run, turns: list[Turn]) -> list[str]:
    """The turns over the target, each with its story: when it began (the commit of the
    move before it), the kills and restarts near it, which worker first put its buttons
    on the hand, and the workers' lines about drawing again meanwhile; seconds from the
    start of play."""
    lines = []
    for turn in turns:
        if turn.delay is not None and turn.delay <= REACH:
            continue
        since = "no kill near it"
        for kill in run.kills:
            if kill <= turn.started:
                since = f"{turn.started - kill:.1f} s after a kill"
            elif kill <= turn.started + REACH:
                since = f"a kill {kill - turn.started:.1f} s into the turn"
        shown = "never" if turn.delay is None else f"{turn.delay:.1f} s"
        lines.append(f"  user {turn.user}: {shown} ({since})")
        end = turn.started + (turn.delay if turn.delay is not None else 2 * FALLBACK)
        lines.append("    " + story(run, turn, end))
        lines += [f"    {at - run.began:7.1f} {worker}: {line}" for at, worker, line in run.redraws
                  if turn.started - REACH <= at <= end]
    return lines


def story(run: Run, turn: Turn, end: float) -> str:
    """When a late turn began, the kills and restarts around it, and who reached it."""
    def rel(at: float) -> str:
        return f"{at - run.began:.1f}"

    near = [(at, "kill") for at in run.kills] + [(at, "w0 up again") for at in run.restarts]
    events = [f"{what} {rel(at)}" for at, what in sorted(near)
              if turn.started - 2 * REACH <= at <= end]
    reached = ""
    if turn.delay is not None:
        at = turn.started + turn.delay
        first = next((s for s in run.shown[turn.user] if abs(s.at - at) < 1e-6), None)
        reached = f"; reached {rel(at)} by {run.maker(first) if first else '?'}"
    return f"began {rel(turn.started)}; " + ", ".join(events or ["no kill"]) + reached


HEADER = (
    "| workers | kills | human turns | within 10 s | delay p50 / p95 / max s | reached later "
    "| never reached | played from the private hand | presses | worker ERRORs |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


async def main(args: argparse.Namespace) -> None:
    """Both runs (or one, ``--only``); a Markdown report."""
    settings = [(2, 3), (1, 0)]
    if args.only == "kills":
        settings = settings[:1]
    elif args.only == "control":
        settings = settings[1:]
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# Ephemeral hands across worker kills — {now}")
    print(f"load average before: {loadavg()}, {args.seconds:.0f} s of play per run, "
          f"think {args.think} s, seed {args.seed}, King, 2 humans + 2 computers\n")
    print(HEADER, flush=True)
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="koloda-kills-", dir=shm if shm.is_dir() else None))
    details: list[str] = []
    try:
        with throwaway_server("koloda-kills-pg") as server:
            for number, (workers, kills) in enumerate(settings):
                run, turns, errors = await one_run(
                    workers, kills, args, server.url(), folder, number
                )
                print(report(run, turns, errors), flush=True)
                details += [f"{workers} worker(s): {table_lag(run)}",
                            f"{workers} worker(s): turns over {REACH:.0f} s"] + (
                    slow_turns(run, turns) or ["  none"])
    finally:
        if args.keep:
            print(f"\nworkers' logs kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("\n" + "\n".join(details))
    print(f"\nload average after: {loadavg()}")


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=100.0, help="seconds of play per run")
    parser.add_argument("--think", type=float, default=1.0, help="a human's mean think time, s")
    parser.add_argument("--seed", type=int, default=1, help="the bench's choices")
    parser.add_argument("--only", choices=("kills", "control"), help="one run only")
    parser.add_argument("--lease", type=float, help="KOLODA_LEASE_SECONDS (default: the bot's)")
    parser.add_argument("--trace", help="write every run's Bot API calls to TRACE.<run>")
    parser.add_argument("--keep", action="store_true", help="keep the workers' logs")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
