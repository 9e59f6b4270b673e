"""One user flooding the Mini App's API: what another chat's moves wait meanwhile.

Runs the real bot in-process (``tests/support/harness.py``) against the fake Bot API,
SQLite, with its page server on 127.0.0.1. Two two-player tables in two groups: the
victims' (Eleven) and the flooder's (the flooder is its first player). A subprocess
(its own core, so the load generator does not share the bot's event loop) sends the
flooder's requests as fast as it can over ``--connections`` connections for
``--seconds`` seconds: in turn ``GET api/view`` of an Eleven table and ``POST
api/move`` with a stale version (refused once the table is read), or with
``--record`` the dearest ask, 📜 Deal 1 of a Rummy table whose first deal was played
out (the record rebuilt at each ask). Meanwhile the victims move through the page's
API (``POST api/move``), the player to move tapping a legal card ``--think`` seconds
after the last answer; each move's answer time is taken (a victim's tap answered
429 is counted apart, and tapped again).

Four parts, each ``--seconds`` long: no flood (the baseline); the flood with the pace
lifted (a bucket of 10⁹ tokens: the bot before the pace); the flood paced but each
429 answered at once (``hold`` 0); the flood with the bot's pace (bot.miniapp.pace).
Printed per part: the victims' moves, their taps refused 429, their answer time
p50 / p95 / max in ms, and the flooder's answers by status.

    .venv/bin/python bench/miniapp_flood.py
    .venv/bin/python bench/miniapp_flood.py --seconds 20 --connections 4 --think 0.2 --record
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: bench/ must not shadow the games package
    sys.path[0] = str(ROOT)

import aiohttp  # noqa: E402

from bot.miniapp.pace import UserPace  # noqa: E402
from tests.support.computers import RandomComputer  # noqa: E402
from tests.support.fake_telegram import FakeTelegram  # noqa: E402
from tests.support.harness import Harness  # noqa: E402
from tests.support.miniapp import PageClient, init_data, start_miniapp  # noqa: E402
from tests.support.tables import Table, finish_first_deal, mover, open_table  # noqa: E402

#: A pace that never refuses: the bot as it was before the pace.
UNPACED = UserPace(burst=10**9, rate=1e9)


async def flood(base: str, data: str, link: str, seconds: float, connections: int,
                record: bool) -> None:
    """The flooder (run in the subprocess): requests without pause; prints its tally."""
    statuses: Counter[int] = Counter()
    headers = {"X-Telegram-Init-Data": data}
    deadline = time.monotonic() + seconds

    async def one_connection(http: aiohttp.ClientSession) -> None:
        turn = 0
        while time.monotonic() < deadline:
            turn += 1
            if record:
                request = http.post(f"{base}api/move", headers=headers,
                                    json={"t": link, "version": 0, "action": "deal:1"})
            elif turn % 2:
                request = http.get(f"{base}api/view", params={"t": link}, headers=headers)
            else:
                request = http.post(f"{base}api/move", headers=headers,
                                    json={"t": link, "version": 0, "action": "2C"})
            async with request as answer:
                await answer.read()
                statuses[answer.status] += 1

    connector = aiohttp.TCPConnector(limit=connections)
    async with aiohttp.ClientSession(connector=connector) as http:
        await asyncio.gather(*(one_connection(http) for _ in range(connections)))
    print(json.dumps({str(status): count for status, count in sorted(statuses.items())}))


async def victims_move(harness: Harness, http: aiohttp.ClientSession, base: str,
                       table: Table, think: float, until: asyncio.Event,
                       refused: list[float]) -> list[float]:
    """The victims' moves through the page's API until ``until``; each answer's seconds
    (a tap answered 429 in ``refused``)."""
    token = harness.fake.token
    times: list[float] = []
    while not until.is_set():
        session = await harness.kol.manager.get(table.session_id)
        if session.status != "running":
            table = await open_table(harness)  # the match is over: a new one
            continue
        player, _, version = await mover(harness, table)
        seat = session.seat_of(player.id)
        assert seat is not None
        card = session.view(seat)["legal"][0]
        page = PageClient(http, base, init_data(player, token))
        started = time.perf_counter()
        status, body = await page.move(session.link, version, card)
        if status == 429:  # a victim past the pace: counted, and tapped again
            refused.append(time.perf_counter() - started)
            await asyncio.sleep(think)
            continue
        times.append(time.perf_counter() - started)
        assert status == 200 and body.get("ok"), (status, body)
        await asyncio.sleep(think)
    return times


async def part(harness: Harness, base: str, victims: Table, flooder: Table | None,
               args: argparse.Namespace) -> str:
    """One part: the victims' moves for ``args.seconds``, flooded by Carol or not."""
    done = asyncio.Event()
    tally = "-"
    refused: list[float] = []
    async with aiohttp.ClientSession() as http:
        moving = asyncio.create_task(victims_move(harness, http, base, victims, args.think,
                                                 done, refused))
        if flooder is None:
            await asyncio.sleep(args.seconds)
        else:
            carol = flooder.alice
            link = (await harness.kol.manager.get(flooder.session_id)).link
            process = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--flood", base, init_data(carol, harness.fake.token),
                link, "--seconds", str(args.seconds), "--connections", str(args.connections),
                *(["--record"] if args.record else []), stdout=asyncio.subprocess.PIPE,
            )
            out, _ = await process.communicate()
            tally = out.decode().strip()
        done.set()
        times = await moving
    ms = sorted(1000 * s for s in times)
    p95 = ms[max(0, round(0.95 * len(ms)) - 1)]
    return (f"{len(ms):6d} {len(refused):5d} {statistics.median(ms):8.1f} {p95:8.1f} "
            f"{ms[-1]:8.1f}   {tally}")


async def main(args: argparse.Namespace) -> None:
    fake = FakeTelegram()
    await fake.start()
    with tempfile.TemporaryDirectory(prefix="koloda-flood-") as folder:
        harness, base = await start_miniapp(fake, Path(folder) / "koloda.sqlite3",
                                            RandomComputer())
        try:
            victims = await open_table(harness, title="Victims")
            if args.record:
                flooder = await open_table(harness, "rummy", title="Flood")
                await finish_first_deal(harness, flooder, random.Random(1).choice)
            else:
                flooder = await open_table(harness, title="Flood")
            paced = harness.app.bot_data.pace
            assert paced is not None
            asked = "the Rummy deal 1 record" if args.record else "view and stale move"
            print(f"{args.seconds:g} s a part, flooder: {args.connections} connections, {asked}, "
                  f"no think time; victims' think time {args.think:g} s; "
                  f"pace burst {paced.burst}, {paced.rate:g}/s")
            print(f"{'part':<22} {'moves':>6} {'429s':>5} {'p50 ms':>8} {'p95 ms':>8} "
                  f"{'max ms':>8}   flooder's answers by status")
            print(f"{'no flood':<22} " + await part(harness, base, victims, None, args))
            harness.app.bot_data.pace = UNPACED
            print(f"{'flood, no pace':<22} " + await part(harness, base, victims, flooder, args))
            harness.app.bot_data.pace = UserPace(hold=0.0)
            print(f"{'flood, paced, no hold':<22} "
                  + await part(harness, base, victims, flooder, args))
            harness.app.bot_data.pace = paced
            print(f"{'flood, paced':<22} " + await part(harness, base, victims, flooder, args))
        finally:
            await harness.stop()
            await fake.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds a part")
    parser.add_argument("--connections", type=int, default=4, help="the flooder's")
    parser.add_argument("--think", type=float, default=0.2,
                        help="seconds the victims wait between moves")
    parser.add_argument("--record", action="store_true",
                        help="flood with a Rummy table's 📜 Deal record (the dearest ask)")
    parser.add_argument("--flood", nargs=3, metavar=("BASE", "INITDATA", "TABLE"),
                        help=argparse.SUPPRESS)  # the subprocess's part
    arguments = parser.parse_args()
    if arguments.flood:
        base, signed, table = arguments.flood
        asyncio.run(flood(base, signed, table, arguments.seconds, arguments.connections,
                          arguments.record))
    else:
        asyncio.run(main(arguments))
