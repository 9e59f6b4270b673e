"""Shared fixtures: a fake Bot API server and the bot running against it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

# The helpers' asserts explain a failure as the tests' own do (before they are imported).
pytest.register_assert_rewrite("tests.support")

from tests.support.computers import RandomComputer  # noqa: E402

# A real PostgreSQL server for the storage tests: the fixtures of tests/support/pg_server.py.
from tests.support.pg_server import pg_database, pg_server  # noqa: E402, F401

# CI runs the same examples every time (a red build is reproducible); local runs explore.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

if TYPE_CHECKING:  # the bot is imported only by the tests that run it
    import aiohttp

    from storage import Store
    from tests.support.fake_telegram import FakeTelegram
    from tests.support.harness import Harness


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A fake Bot API server on a random local port."""
    from tests.support.fake_telegram import FakeTelegram

    server = FakeTelegram()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def db_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for test databases: in memory (/dev/shm) when the machine has it.

    The store commits with synchronous=FULL; on a tmpfs those syncs cost nothing.
    """
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="koloda-test-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def harness(fake: FakeTelegram, db_dir: Path) -> AsyncIterator[Harness]:
    """The bot polling the fake server, with random computer players."""
    from tests.support.harness import start_harness

    running = await start_harness(fake, db_dir / "koloda.sqlite3", RandomComputer())
    yield running
    await running.stop()


@pytest.fixture
async def mini(fake: FakeTelegram, db_dir: Path) -> AsyncIterator[tuple[Harness, str]]:
    """The bot with its Mini App, and the page's local address."""
    from tests.support.miniapp import start_miniapp

    harness, base = await start_miniapp(fake, db_dir / "koloda.sqlite3", RandomComputer())
    yield harness, base
    await harness.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client, as a page's browser."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, db_dir: Path) -> str:
    """The URL of an empty database of one backend."""
    if request.param == "sqlite":
        return f"sqlite:///{db_dir / 'contract.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    """An opened store on ``store_url`` (each backend in turn), closed after the test."""
    from storage import open_store

    opened = await open_store(store_url)
    yield opened
    await opened.close()
