"""Soak: 50 concurrent games for 10 minutes, the bot killed with SIGKILL every ~2 minutes.

The real ``python -m bot`` plays against the fake Bot API (as in bench/load.py,
flood limits off) on one SQLite file that survives the kills. Half the tables
play Eleven, half four-human King, with no think time; a finished match is
followed by "Play again". About every two minutes (jittered) the bot is killed
without warning and started again on the same database; players whose press
got no answer press again.

Checked at the end (exit code 1 if any fails):

- no lost move: every press the bot acknowledged (answered without a refusal
  — it answers only after the move is committed) is in the database's move
  log, in order;
- no stuck game: every table made moves after the last restart;
- memory flat: the bot's RSS is sampled every 10 s; the growth from the first
  life's to the last life's steady state is printed (and must stay under 25%).

    .venv/bin/python bench/soak.py [--minutes 10] [--games 50] [--kill-every 120]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

from bench.load import BotProcess, Stats, Table, Traffic, loadavg  # noqa: E402
from tests.support.fake_telegram import FakeTelegram  # noqa: E402

SAMPLE_EVERY = 10.0


async def life(
    bot: BotProcess, until: float, samples: list[tuple[int, float, float]], number: int
) -> None:
    """Sample the bot's RSS until ``until`` (monotonic)."""
    started = time.monotonic()
    while time.monotonic() < until:
        await asyncio.sleep(min(SAMPLE_EVERY, max(0.0, until - time.monotonic())))
        if bot.process.returncode is None:
            samples.append((number, time.monotonic() - started, bot.rss_mb()))


def lost_moves(database: Path, tables: list[Table]) -> list[str]:
    """Acknowledged presses missing from the move log (in order), one line each."""
    logged: dict[int, list[str]] = defaultdict(list)
    with sqlite3.connect(database) as db:
        for session, action in db.execute(
            "SELECT session, action FROM moves WHERE by_computer = 0 ORDER BY session, n"
        ):
            logged[session].append(action)
    problems = []
    for table in tables:
        acked: dict[int, list[str]] = defaultdict(list)
        # answers may come in any order (the next press does not wait for one): by version
        for press in sorted(table.acked, key=lambda p: (p.session, p.version)):
            acked[press.session].append(press.data.split(":", 2)[2])
        for session, actions in acked.items():
            log = iter(logged[session])
            missing = next((i for i, a in enumerate(actions) if a not in log), None)
            if missing is not None:  # not a subsequence of the log, in order
                problems.append(
                    f"session {session}: acknowledged press #{missing + 1} {actions[missing]} "
                    f"of {len(actions)} is not in the log of {len(logged[session])} moves "
                    f"({' '.join(actions[max(0, missing - 3) : missing + 3])} vs "
                    f"{' '.join(logged[session][max(0, missing - 3) : missing + 3])})"
                )
    return problems


async def soak(args: argparse.Namespace) -> int:
    """Run the soak; 0 if every check holds."""
    rng = random.Random(args.seed)
    fake = FakeTelegram()
    fake.keep_calls = False
    await fake.start()
    stats = Stats()
    traffic = Traffic(fake, stats)
    workdir = Path(tempfile.mkdtemp(prefix="koloda-soak-"))
    database = workdir / "soak.sqlite3"
    print(f"soak: {args.games} games, {args.minutes} min, SIGKILL every ~{args.kill_every:.0f} s")
    print(f"database {database}; load average before: {loadavg()}", flush=True)
    bot = await BotProcess.start(fake, database)
    games = ["eleven" if n % 2 == 0 else "king" for n in range(args.games)]
    tables = [Table(fake, traffic.queries, game, n, rng) for n, game in enumerate(games)]
    for table in tables:
        traffic.add(table)
    await asyncio.gather(*(table.open() for table in tables))
    started = time.monotonic()
    stop_at = time.perf_counter() + args.minutes * 60
    stats.recording = True
    players = asyncio.gather(*(table.play(stats, stop_at) for table in tables))
    samples: list[tuple[int, float, float]] = []
    kills, restarts, number = 0, [], 1
    last_start = time.perf_counter()
    end = started + args.minutes * 60
    try:
        while time.monotonic() < end:
            next_kill = min(end, time.monotonic() + args.kill_every * rng.uniform(0.75, 1.25))
            await life(bot, next_kill, samples, number)
            if time.monotonic() >= end - 60:  # the last life must show every table moving
                break
            moves_before = stats.moves
            await bot.kill()
            kills += 1
            restart = time.monotonic()
            bot = await BotProcess.start(fake, database)
            restarts.append(time.monotonic() - restart)
            last_start = time.perf_counter()
            number += 1
            print(
                f"{time.monotonic() - started:6.0f} s: killed (SIGKILL) after {moves_before} moves"
                f" in total; back up in {restarts[-1]:.1f} s",
                flush=True,
            )
        await players
    finally:
        stats.recording = False
        final_rss = bot.rss_mb()
        await bot.stop()
        await fake.stop()
    elapsed = time.monotonic() - started
    stuck = [t.describe() for t in tables if t.last_move_at < last_start]
    lost = lost_moves(database, tables)
    acked = sum(len(t.acked) for t in tables)
    print()
    print(
        f"moves: {stats.moves} in {elapsed:.0f} s ({stats.moves / elapsed:.0f}/s), "
        f"{acked} presses acknowledged, {stats.refusals} refused, {stats.timeouts} timeouts "
        f"(presses retried after a restart), {stats.matches} matches finished"
    )
    print(f"kills: {kills}; restart to polling: {', '.join(f'{r:.1f}' for r in restarts)} s")
    steady = defaultdict(list)  # life → RSS samples once it warmed up (30 s)
    for life_no, at, rss in samples:
        if at >= 30:
            steady[life_no].append(rss)
    print("RSS MiB per life after 30 s (min–max): ", end="")
    print("; ".join(f"#{n} {min(r):.0f}–{max(r):.0f}" for n, r in sorted(steady.items())))
    first = steady.get(1) or [final_rss]
    last = steady.get(number) or [final_rss]
    growth = (max(last) / max(first) - 1) * 100
    print(
        f"memory: first life peak {max(first):.0f} MiB, last life peak {max(last):.0f} MiB "
        f"({growth:+.0f}%), at the end {final_rss:.0f} MiB"
    )
    print(f"lost moves: {len(lost)}; stuck tables: {len(stuck)}; load average after: {loadavg()}")
    for line in lost[:10] + stuck[:10]:
        print("  ", line)
    ok = not lost and not stuck and growth < 25 and stats.moves > 0
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--kill-every", type=float, default=120.0, help="seconds between kills")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(soak(parse_args())))
