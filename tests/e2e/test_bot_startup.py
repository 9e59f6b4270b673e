"""Start-up failures of ``python -m bot``: one line on stderr, a non-zero exit, the
database file untouched, Telegram never polled.

Each case runs the real entry point as a subprocess against the fake Bot API,
at LOG_LEVEL=INFO, so any extra log line (PTB's own ERROR records, a
traceback) would show up in stderr.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage.legacy import SQLITE_MARK
from tests.support.bot_process import run_to_exit, start_bot
from tests.support.fake_telegram import FakeTelegram

pytestmark = pytest.mark.slow


def _refused_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("koloda: "), stderr
    return lines[0]


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


async def _refused(fake: FakeTelegram, database: Path, **extra: str) -> str:
    """Run the bot on ``database`` until it stops: exit 2, one line; nothing changed."""
    before = _files(database.parent)
    environment = fake.bot_environment(database, **{"LOG_LEVEL": "INFO", **extra})
    code, stderr = await run_to_exit(environment)
    assert code == 2, stderr
    assert _files(database.parent) == before  # not a byte, no -wal or -shm file either
    assert not fake.calls_of("getUpdates")  # it never started polling
    return _one_line(stderr)


def _future_schema(path: Path) -> None:
    made = sqlite3.connect(path)
    made.execute("CREATE TABLE sessions (id INTEGER PRIMARY KEY)")
    made.execute(f"PRAGMA user_version = {SQLITE_MARK + 1}")
    made.commit()
    made.close()


@pytest.mark.parametrize(
    "content",
    [os.urandom(8192), b"just a text file, not a database\n" * 200],
    ids=["random-bytes", "text"],
)
async def test_a_corrupt_database_file_stops_start_up_in_one_line(
    fake: FakeTelegram, tmp_path: Path, content: bytes
) -> None:
    database = tmp_path / "koloda.sqlite3"
    database.write_bytes(content)
    line = await _refused(fake, database)
    assert "is not a usable SQLite database" in line and str(database) in line


async def test_a_newer_schema_stops_start_up_in_one_line(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    database = tmp_path / "koloda.sqlite3"
    _future_schema(database)
    line = await _refused(fake, database)
    assert f"schema version {SQLITE_MARK + 1}, newer than this code's" in line


async def test_a_database_another_process_holds_stops_start_up_in_one_line(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    database = tmp_path / "koloda.sqlite3"
    made = sqlite3.connect(database)
    made.execute("CREATE TABLE t (x)")
    made.commit()
    made.close()
    holder = subprocess.Popen(  # another process in the middle of a write
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE')\n"
         "print('locked', flush=True)\n"
         "sys.stdin.readline()\n",
         str(database)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        before = database.read_bytes()
        code, stderr = await run_to_exit(fake.bot_environment(database, LOG_LEVEL="INFO"))
        assert code == 2, stderr
        assert "is locked by another process" in _one_line(stderr)
        assert database.read_bytes() == before
    finally:
        holder.communicate("\n", timeout=30)


async def test_a_second_bot_on_the_same_database_stops_in_one_line(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    database = tmp_path / "koloda.sqlite3"
    first = await start_bot(fake, database)
    try:
        code, stderr = await run_to_exit(fake.bot_environment(database, LOG_LEVEL="INFO"))
        assert code == 2, stderr
        assert "is in use by another Koloda process" in _one_line(stderr)
        assert first.returncode is None  # the running one goes on
    finally:
        first.send_signal(signal.SIGTERM)
        await asyncio.wait_for(first.wait(), 30)


async def test_an_unreachable_postgresql_stops_start_up_without_its_password(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    url = f"postgresql://koloda:s3cret-pw@127.0.0.1:{_refused_port()}/koloda"
    code, stderr = await run_to_exit(
        fake.bot_environment(tmp_path / "unused.sqlite3", LOG_LEVEL="INFO", DATABASE_URL=url)
    )
    assert code == 2, stderr
    line = _one_line(stderr)
    assert "cannot open DATABASE_URL" in line and "127.0.0.1" in line
    assert "s3cret-pw" not in stderr
    assert not fake.calls_of("getUpdates")


async def test_an_unreachable_bot_api_is_one_line(tmp_path: Path) -> None:
    fake = FakeTelegram()  # never started: only for its environment
    env = fake.bot_environment(
        tmp_path / "koloda.sqlite3",
        LOG_LEVEL="INFO",
        TELEGRAM_API_URL=f"http://127.0.0.1:{_refused_port()}/bot",
    )
    code, stderr = await run_to_exit(env)
    assert code == 1, stderr
    assert "cannot reach the Bot API" in _one_line(stderr)


async def test_a_token_telegram_rejects_is_one_line(fake: FakeTelegram, tmp_path: Path) -> None:
    env = fake.bot_environment(
        tmp_path / "koloda.sqlite3",
        LOG_LEVEL="INFO",
        TELEGRAM_BOT_TOKEN="999:wrong-token-wrong-token-wrong",
    )
    code, stderr = await run_to_exit(env)
    assert code == 2, stderr
    assert "Telegram rejected TELEGRAM_BOT_TOKEN" in _one_line(stderr)


@pytest.mark.parametrize(
    ("name", "value"),
    [("PORT", "²"), ("LOG_LEVEL", "chatty"), ("KOLODA_LEASE_SECONDS", "３0")],
)
async def test_a_malformed_number_or_log_level_stops_start_up_in_one_line(
    fake: FakeTelegram, tmp_path: Path, name: str, value: str
) -> None:
    line = await _refused(fake, tmp_path / "koloda.sqlite3", **{name: value})
    assert line.startswith(f"koloda: {name} must be") and repr(value) in line
