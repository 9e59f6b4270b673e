"""Bring a database's schema up to date: Alembic, for both backends.

Called by each backend at open, on a SQLAlchemy connection inside a
transaction it has begun (SQLite: ``BEGIN IMMEDIATE`` on the claimed file;
PostgreSQL: under the migration advisory lock):

- a database Alembic already keeps is upgraded to the newest revision;
- a database made before Alembic, brought to its legacy head by
  :mod:`storage.legacy`, is stamped with the baseline revision ``0001`` and
  then upgraded;
- an empty one is created from :data:`storage.schema.METADATA` and stamped
  with the newest revision.

A revision this code does not know means a newer Koloda wrote the database:
:class:`~storage.protocol.DatabaseUnusable`, and nothing is changed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from storage.protocol import DatabaseUnusable
from storage.schema import METADATA

#: the revision a database made before Alembic is stamped with
BASELINE = "0001"
_SCRIPTS = Path(__file__).with_name("alembic")
# Alembic tells of its plugins (as it is imported) and its context at INFO on every
# open; the bot logs at INFO, and a start-up that goes well says nothing of its schema.
# So Alembic is imported only here, after its logger is quietened.
logging.getLogger("alembic").setLevel(logging.WARNING)

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory


def _config(connection: sa.Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.attributes["connection"] = connection
    return config


def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(_SCRIPTS))


def head() -> str:
    """The newest revision this code knows."""
    revision = _scripts().get_current_head()
    assert revision is not None
    return revision


def unknown_revision(revisions: tuple[str, ...] | list[str]) -> str | None:
    """The first of ``revisions`` this code does not know (a newer Koloda's), or None."""
    known = {script.revision for script in _scripts().walk_revisions()}
    return next((revision for revision in revisions if revision not in known), None)


def newer_message(what: str, revision: str) -> str:
    """The operator's line for a database of a newer revision than this code's."""
    return (
        f"{what} has schema revision {revision}, newer than this code's {head()}:"
        " run a newer Koloda (nothing was changed)"
    )


def upgrade(connection: sa.Connection, *, legacy: bool, what: str) -> None:
    """Bring the schema to the newest revision, in ``connection``'s transaction.

    ``legacy``: the database was made before Alembic (and stands at its legacy
    head); ``what`` names it in an error ("the database /path").
    """
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    config = _config(connection)
    current = MigrationContext.configure(connection).get_current_heads()
    newer = unknown_revision(current)
    if newer is not None:
        raise DatabaseUnusable(newer_message(what, newer))
    if current:
        command.upgrade(config, "head")
    elif legacy:
        command.stamp(config, BASELINE)
        command.upgrade(config, "head")
    else:
        METADATA.create_all(connection)
        command.stamp(config, "head")
