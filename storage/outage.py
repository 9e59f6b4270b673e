"""Is an error an outage of the store (try again later) or a bug (trying again won't help)?

An outage is the database being unreachable or unable to write for now: a
connection refused, dropped or timed out, the file locked by another process, a
disk error, a full disk, a server shutting down or restarting, a serialization
conflict. The same request can succeed once it is over, so an update that
failed this way is not acknowledged to Telegram and is handled again. Anything
else is deterministic: the same update would fail the same way every time.
"""

from __future__ import annotations

import errno
import sqlite3

import asyncpg

#: SQLite's primary result codes that mean "not now": BUSY, LOCKED, NOMEM,
#: READONLY, IOERR, FULL, CANTOPEN, PROTOCOL.
_SQLITE_OUTAGE = frozenset({5, 6, 7, 8, 10, 13, 14, 15})
#: Socket errors of a server that cannot be reached for now.
_NETWORK_ERRNOS = frozenset(
    {
        errno.ECONNREFUSED, errno.ECONNRESET, errno.ECONNABORTED, errno.EHOSTUNREACH,
        errno.ENETUNREACH, errno.ENETDOWN, errno.ETIMEDOUT, errno.EPIPE, errno.EIO,
        errno.ENOSPC,
    }
)
#: PostgreSQL error classes of an outage: connection exceptions (08), transaction
#: rollbacks such as a serialization failure or a deadlock (40), insufficient
#: resources (53), operator intervention such as a shutdown or a restart (57), system
#: errors (58).
_PG_OUTAGE_CLASSES = ("08", "40", "53", "57", "58")
#: A standby or a database in recovery refuses writes for now.
_PG_OUTAGE_STATES = frozenset({"25006", "55P03"})
#: What asyncpg says about a pool or connection that went away (InterfaceError).
_GONE = ("pool is closing", "pool is closed", "connection is closed", "connection was closed")


def unavailable(error: BaseException) -> bool:
    """True if ``error`` (or what caused it) says the store is unavailable for now."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _outage(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _outage(error: BaseException) -> bool:
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF in _SQLITE_OUTAGE
        text = str(error).lower()
        return any(word in text for word in ("locked", "busy", "disk", "unable to open"))
    if isinstance(error, asyncpg.PostgresError):
        state = str(getattr(error, "sqlstate", "") or "")
        if "not currently accepting connections" in str(error):  # ALLOW_CONNECTIONS false
            return True
        return state.startswith(_PG_OUTAGE_CLASSES) or state in _PG_OUTAGE_STATES
    if isinstance(error, asyncpg.InterfaceError):
        return any(words in str(error).lower() for words in _GONE)
    if isinstance(error, ValueError):  # aiosqlite, on a connection it has closed
        return str(error) in ("Connection closed", "no active connection")
    if isinstance(error, ConnectionError | TimeoutError):
        return True
    if isinstance(error, OSError):
        return error.errno in _NETWORK_ERRNOS or error.__class__.__name__ == "gaierror"
    return False
