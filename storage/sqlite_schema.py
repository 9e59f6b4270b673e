"""Bring a SQLite file's schema up to date at open (in a thread, before the store's
connections are made): the frozen legacy steps if it predates Alembic, then
Alembic (:mod:`storage.migrate`) in one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

import sqlite3
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

from storage import legacy, migrate


def upgrade_file(target: str, what: str, busy_timeout: float) -> None:
    """Migrate the database at ``target`` (a path, or a ``file:`` URI), waiting at most
    ``busy_timeout`` seconds for another connection's lock; ``what`` names it in
    errors. Raises ``sqlite3.Error`` or :class:`~storage.protocol.DatabaseUnusable`."""
    raw = sqlite3.connect(
        target, isolation_level=None, timeout=busy_timeout, uri=target.startswith("file:"),
        check_same_thread=False,
    )
    engine = sa.create_engine("sqlite://", creator=lambda: raw, poolclass=StaticPool)

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        # the driver would begin a deferred transaction, and none around DDL
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        legacy.sqlite_steps(raw)
        with engine.connect() as connection, connection.begin():
            was_legacy = legacy.sqlite_leave(connection)
            migrate.upgrade(connection, legacy=was_legacy, what=what)
    except sa.exc.DBAPIError as error:
        raise _driver_error(error) from None
    finally:
        engine.dispose()
        raw.close()


def _driver_error(error: sa.exc.DBAPIError) -> Any:
    """The driver's own error inside SQLAlchemy's wrapper (the store reports those)."""
    return error.orig if isinstance(error.orig, sqlite3.Error) else error
