"""``python -m sessions.rerate URL``: recompute every rating from the stored results.

Ratings are written live, with each finished match's results in one
transaction; this rebuilds the ``ratings``, ``season_ratings`` and
``rating_changes`` tables from
the ``results`` (and the matches' seats and final scores), oldest match first,
with the same computation (:mod:`sessions.ratings`) — for a changed model or
fixed computer ratings, or a damaged rating table. Safe while the bot runs:
it is one transaction.

:func:`fill_seasons` runs the same rebuild at start-up, once, on a store whose
seasons are still empty (upgraded past revision 0004, which adds them empty).
"""

from __future__ import annotations

import asyncio
import logging
import sys

from sessions.ratings import rebuild
from storage import DatabaseUnusable, TallyStore, open_store

log = logging.getLogger(__name__)


async def rerate(url: str) -> int:
    """Recompute the ratings of the store at ``url``; the number of matches rated."""
    store = await open_store(url)
    try:
        return await store.rerate(rebuild)
    finally:
        await store.close()


async def fill_seasons(store: TallyStore) -> int:
    """Rate the seasons of the matches finished before the upgrade that added them, if
    no season is rated yet (else nothing); the number of matches rated."""
    count = await store.fill_seasons(rebuild)
    if count:
        log.info("filled the seasons of %d matches finished before the upgrade", count)
    return count


def main(argv: list[str] | None = None) -> int:
    """The command line: one line saying how many matches were rated; on failure one
    line on stderr and exit code 1 (2 for bad usage)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m sessions.rerate DATABASE_URL", file=sys.stderr)
        return 2
    try:
        count = asyncio.run(rerate(args[0]))
    except (DatabaseUnusable, ValueError) as error:
        print(f"sessions.rerate: {error}", file=sys.stderr)
        return 1
    print(f"rated {count} matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
