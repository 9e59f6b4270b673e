"""Fixtures of the storage tests: an empty store of each backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Store, open_store


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, db_dir: Path) -> str:
    """The URL of an empty database of one backend."""
    if request.param == "sqlite":
        return f"sqlite:///{db_dir / 'contract.sqlite3'}"
    url: str = request.getfixturevalue("pg_database")
    return url


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    """An opened store on ``store_url``, closed after the test."""
    opened = await open_store(store_url)
    yield opened
    await opened.close()
