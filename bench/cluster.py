"""Cluster benchmark: ``python -m bot`` workers in webhook mode, on PostgreSQL or SQLite.

The same simulated tables as ``bench/load.py`` (imported from it: humans with
no think time pressing the buttons of their private hands), but updates reach
the bot the way Telegram's webhook does: the fake Bot API POSTs them, with the
secret header, round robin to every worker (40 connections, Telegram's default
``max_connections``). Each setting starts fresh workers on a fresh database (a
throwaway PostgreSQL server from ``tests/support/pg_server.py``, fsync off, or an
SQLite file).

Two parts:

- **capacity** (flood limits off, ``KOLODA_FLOOD_LIMITS=off``): King at G
  tables on SQLite with 1 worker and on PostgreSQL with 1 and 2 workers:
  moves/s, press-to-table-edit latency p50/p99, CPU ms per move (all workers
  together);
- **limits on** (the fake enforces Telegram's limits, the workers pace through
  them): King at G tables on PostgreSQL with 1 and 2 workers: moves/s, table
  lag (press to the table edit that shows it) p50/p99, the most sends+edits any
  group got in a minute and the token in a second, and 429s.

    .venv/bin/python bench/cluster.py --seconds 30
    .venv/bin/python bench/cluster.py --seconds 20 --only capacity
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import sys
import tempfile
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from aiohttp import ClientError, ClientSession  # noqa: E402

from bench.load import BotProcess, Stats, Table, Traffic, loadavg  # noqa: E402
from tests.support.fake_telegram import Call, FakeTelegram, FloodLimits  # noqa: E402
from tests.support.pg_server import throwaway_server  # noqa: E402

SECRET = "bench-cluster-secret"
CONNECTIONS = 40
PACED = ("sendMessage", "editMessageText", "editMessageReplyMarkup")


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_worker(
    fake: FakeTelegram, database_url: str, limits: bool, root: Path = ROOT
) -> tuple[BotProcess, str]:
    """One ``python -m bot`` (of the checkout ``root``) in webhook mode; returns it with
    its update URL once healthy."""
    port = free_port()
    env = fake.bot_environment(
        Path("unused"),
        DATABASE_URL=database_url,
        WEBHOOK_URL="https://koloda.example.org/telegram",
        WEBHOOK_SECRET=SECRET,
        PORT=str(port),
        KOLODA_FLOOD_LIMITS="on" if limits else "off",
        PYTHONPATH=str(root),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=root, env=env, stdout=asyncio.subprocess.DEVNULL
    )
    async with ClientSession() as client:
        for _ in range(1200):
            try:
                async with client.get(f"http://127.0.0.1:{port}/healthz") as answer:
                    if answer.status == 200:
                        return BotProcess(process), f"http://127.0.0.1:{port}/telegram"
            except ClientError:
                pass
            if process.returncode is not None:
                raise RuntimeError("a worker exited at start-up")
            await asyncio.sleep(0.1)
    raise RuntimeError("a worker did not become healthy")


class Budget:
    """Every paced call's time per chat, to find the busiest window afterwards."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget the calls counted so far (the measured window starts)."""
        self.by_chat: dict[int, list[float]] = defaultdict(list)
        self.all: list[float] = []
        self.flooded = 0
        self.methods: Counter[str] = Counter()

    def on_call(self, call: Call) -> None:
        """Listener of the fake server."""
        kind = "" if call.chat_id is None else " (group)" if call.chat_id < 0 else " (private)"
        self.methods[call.method + kind] += 1
        if call.method in PACED and call.chat_id is not None:
            if call.ok:
                self.by_chat[call.chat_id].append(call.at)
                self.all.append(call.at)
            elif call.error and call.error.startswith("Too Many Requests"):
                self.flooded += 1

    def group_minute(self) -> int:
        """The most sends+edits one group got in any 60 s."""
        return max((_most(t, 60.0) for c, t in self.by_chat.items() if c < 0), default=0)

    def token_second(self) -> int:
        """The most paced calls of the whole token in any 1 s."""
        return _most(sorted(self.all), 1.0)


def _most(times: list[float], window: float) -> int:
    return max((bisect_left(times, at + window) - i for i, at in enumerate(times)), default=0)


@dataclass
class Row:
    """One setting's numbers."""

    store: str
    workers: int
    tables: int
    limits: bool
    seconds: float
    stats: Stats
    cpu: float
    budget: Budget

    def render(self) -> str:
        """A Markdown table row."""
        lat = sorted(self.stats.latencies) or [float("nan")]
        moves = self.stats.moves
        cpu_ms = 1000 * self.cpu / moves if moves else float("nan")
        return (
            f"| {self.store} | {self.workers} | {self.tables} | {'on' if self.limits else 'off'} "
            f"| {moves / self.seconds:.1f} | {_pct(lat, 50):.0f} | {_pct(lat, 99):.0f} "
            f"| {self.stats.api_calls / moves if moves else float('nan'):.2f} "
            f"| {cpu_ms:.1f} | {self.budget.group_minute()} | {self.budget.token_second()} "
            f"| {self.budget.flooded} | {moves} | {self.stats.refusals}/{self.stats.timeouts} |"
        )


    def methods(self) -> str:
        """Bot API calls per move by method, under the table."""
        moves = self.stats.moves or 1
        by_method = sorted(self.budget.methods.items(), key=lambda item: -item[1])
        return "  per move: " + ", ".join(f"{m} {n / moves:.2f}" for m, n in by_method)


HEADER = (
    "| store | workers | G | limits | moves/s | p50 ms | p99 ms | API calls/move "
    "| CPU ms/move (all workers) "
    "| max group sends/min | max token sends/s | 429s | moves | refused/timeouts |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def _pct(values: list[float], p: float) -> float:
    index = min(len(values) - 1, max(0, round(p / 100 * len(values)) - 1))
    return values[index] * 1000


async def run_setting(
    store: str, workers: int, tables: int, limits: bool, seconds: float, workdir: Path,
    pg_url: str | None, number: int,
) -> Row:
    """Fresh workers on a fresh database; open ``tables`` King tables; measure ``seconds``."""
    # Telegram tolerates short bursts in a private chat; a group gets exactly 20 a minute
    fake = FakeTelegram(flood=FloodLimits(private_burst=3) if limits else None)
    fake.keep_calls = False
    await fake.start()
    stats = Stats()
    traffic = Traffic(fake, stats)
    budget = Budget()
    fake.listeners.append(budget.on_call)
    if store == "sqlite":
        url = f"sqlite:///{workdir / f'cluster-{number}.sqlite3'}"
    else:
        assert pg_url is not None
        url = await new_database(pg_url, f"bench_{number}")
    started = [await start_worker(fake, url, limits) for _ in range(workers)]
    processes = [p for p, _ in started]
    fake.push_webhooks([u for _, u in started], connections=CONNECTIONS)
    rng = random.Random(number)
    try:
        opened = [Table(fake, traffic.queries, "king", n, rng) for n in range(tables)]
        for table in opened:  # 200 tables open through the token's 30 a second: a minute or two
            table.open_timeout = 300.0
        for table in opened:
            traffic.add(table)
        try:
            await asyncio.gather(*(table.open() for table in opened))
        except TimeoutError:
            statuses: defaultdict[int, int] = defaultdict(int)
            for _, _, status in fake.webhook_posts:
                statuses[status] += 1
            print("webhook answers:", dict(statuses), "undelivered:", fake.undelivered())
            for table in opened:
                for m in fake.chat_messages(table.group.id):
                    print(table.group.title, m.message_id, m.text[:200].replace("\n", " | "))
            raise
        await asyncio.sleep(0.5)
        cpu0, wall0 = sum(p.cpu_seconds() for p in processes), time.perf_counter()
        budget.reset()  # count only the measured window
        stats.recording = True
        await asyncio.gather(*(table.play(stats, wall0 + seconds) for table in opened))
        stats.recording = False
        wall = time.perf_counter() - wall0
        cpu = sum(p.cpu_seconds() for p in processes) - cpu0
    finally:
        for process in processes:
            await process.stop()
        await fake.stop()
    return Row(store, workers, tables, limits, wall, stats, cpu, budget)


async def new_database(server_url: str, name: str) -> str:
    import asyncpg

    connection = await asyncpg.connect(server_url)
    try:
        await connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await connection.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    finally:
        await connection.close()
    return server_url.rsplit("/", 1)[0] + f"/{name}"


async def main(args: argparse.Namespace) -> None:
    """Run the settings; print a Markdown report."""
    settings: list[tuple[str, int, int, bool]] = []
    if args.only in (None, "capacity"):
        settings += [("sqlite", 1, args.games, False), ("postgres", 1, args.games, False),
                     ("postgres", 2, args.games, False)]
    if args.only in (None, "limits"):
        settings += [("postgres", 1, args.limited, True), ("postgres", 2, args.limited, True)]
    print(f"# Koloda cluster benchmark — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"cores: {os.cpu_count()}, load average before: {loadavg()}, "
          f"{args.seconds:.0f} s per setting, King, webhook mode\n")
    print(HEADER, flush=True)
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="koloda-cluster-", dir=shm if shm.is_dir() else None))
    servers = throwaway_server("koloda-cluster-pg") if args.pg is None else nullcontext(None)
    try:
        with servers as server:
            pg_url = args.pg or (server.url() if server is not None else None)
            for number, (store, workers, tables, limits) in enumerate(settings):
                row = await run_setting(
                    store, workers, tables, limits, args.seconds, folder, pg_url, number
                )
                print(row.render(), flush=True)
                print(row.methods(), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average after: {loadavg()}")


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds per setting")
    parser.add_argument("--games", type=int, default=50, help="G for the capacity part")
    parser.add_argument("--limited", type=int, default=200, help="G with the limits on")
    parser.add_argument("--only", choices=("capacity", "limits"), help="only one part")
    parser.add_argument("--pg", help="a PostgreSQL server URL to use instead of a throwaway one")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
