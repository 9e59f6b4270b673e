"""``python -m storage.copy SRC DST``: copy a whole store into an empty one.

For moving from SQLite to PostgreSQL (any store URL to any other works)::

    python -m storage.copy sqlite:///koloda.sqlite3 postgresql://koloda@db/koloda

or, to keep passwords out of the process list, with the URLs in the environment::

    KOLODA_COPY_FROM=sqlite:///koloda.sqlite3 KOLODA_COPY_TO=postgresql://… python -m storage.copy

Every session keeps its id (buttons already sent name it), with its seats,
moves, results, messages, invites, and every user and chat with their
languages; PostgreSQL's session id sequence is then moved past the highest id,
so new sessions do not collide. The destination is migrated first and must be
empty; the copy is one transaction there (a failure leaves it empty), read
from one snapshot of the source. Leases on background work are not copied:
they last seconds. Stop the bot first: what it writes to the source after the
snapshot is not copied. Opening the source migrates it too, as the bot would.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from storage.open import open_store
from storage.protocol import DatabaseUnusable, Store
from storage.tables import TABLES, Copyable, NotEmpty
from storage.url import MEMORY, parse_database_url


async def copy_store(source: str, destination: str) -> dict[str, int]:
    """Copy every row of the store at ``source`` into the empty store at ``destination``.

    Returns the number of rows copied per table. Raises :class:`NotEmpty` if
    the destination holds data, :class:`DatabaseUnusable` if either cannot be
    used (a SQLite source that does not exist included), ValueError for a bad URL.
    """
    if not destination.startswith(("postgresql://", "postgres://")):
        parse_database_url(destination)  # a bad URL fails before anything is opened
    if not source.startswith(("postgresql://", "postgres://")):
        path = parse_database_url(source)
        if path == MEMORY or not Path(path).is_file():
            raise DatabaseUnusable(f"the source database {path} does not exist")
    if source == destination:
        raise ValueError("the source and the destination are the same database")
    src = await open_store(source)
    try:
        dst = await open_store(destination)
        try:
            return await _copy(src, dst)
        finally:
            await dst.close()
    finally:
        await src.close()


async def _copy(src: Store, dst: Store) -> dict[str, int]:
    if not (isinstance(src, Copyable) and isinstance(dst, Copyable)):
        raise TypeError(f"cannot copy from {type(src).__name__} to {type(dst).__name__}")
    return await dst.import_tables(src.export_tables(TABLES))


def main(argv: list[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """The command line: copy SRC into DST and say what was copied (one line);
    on failure one line on stderr and exit code 1 (2 for bad usage). Without
    arguments the URLs come from ``KOLODA_COPY_FROM`` and ``KOLODA_COPY_TO``, so
    passwords stay out of the process list."""
    args = sys.argv[1:] if argv is None else argv
    environ = os.environ if env is None else env
    if not args:
        args = [environ.get(name, "").strip() for name in ("KOLODA_COPY_FROM", "KOLODA_COPY_TO")]
    if len(args) != 2 or not all(args) or args[0].startswith("-"):
        print("usage: python -m storage.copy SRC_URL DST_URL  (e.g. sqlite:///koloda.sqlite3"
              " postgresql://user@host/db), or set KOLODA_COPY_FROM and KOLODA_COPY_TO",
              file=sys.stderr)
        return 2
    try:
        counts = asyncio.run(copy_store(args[0], args[1]))
    except (NotEmpty, DatabaseUnusable, ValueError) as error:
        print(f"storage.copy: {error}" + (" (copy only into an empty database)"
                                         if isinstance(error, NotEmpty) else ""),
              file=sys.stderr)
        return 1
    print("copied " + ", ".join(f"{counts[table.name]} {table.name}" for table in TABLES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
