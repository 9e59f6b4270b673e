"""Koloda's schema, once for both backends: one SQLAlchemy ``MetaData``.

A fresh database is created from :data:`METADATA`; an existing one is brought
to it by the Alembic revisions in ``storage/alembic/versions`` (see
``docs/storage.md``, "Adding a column"). The types say what each backend
keeps: SQLite INTEGER / REAL / TEXT (JSON as text, flags as 0/1), PostgreSQL
BIGINT (Telegram's ids need 52 bits) / DOUBLE PRECISION / jsonb / BOOLEAN.
Times are seconds (``time.time()``) on both.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, get_args, get_origin, get_type_hints

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from storage.records import SessionRecord

#: ids, versions and counts that may exceed 32 bits (INTEGER on SQLite keeps
#: 64, and ``sessions.id`` stays SQLite's rowid)
BigInt = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
#: seconds since the epoch, points, ratings
Real: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
#: a JSON value: jsonb on PostgreSQL, its text on SQLite
Json = sa.Text().with_variant(JSONB(), "postgresql")
#: a flag: BOOLEAN on PostgreSQL, 0/1 on SQLite
Flag = sa.Boolean().with_variant(sa.Integer(), "sqlite")

METADATA = sa.MetaData()
#: the sessions /history lists (the same clause in the index and in the query)
HISTORY_WHERE = "status = 'finished' OR topic_state = 'gone'"

#: SQLite keeps these tables clustered by their primary key (no rowid)
_LITE: dict[str, Any] = {"sqlite_with_rowid": False}


def _cascade() -> sa.ForeignKey:
    return sa.ForeignKey("sessions.id", ondelete="CASCADE")


def _partial(table: sa.Table, name: str, *columns: str, where: str,
             unique: bool = False) -> sa.Index:
    """An index of ``table``'s rows ``where`` holds (the same clause on both backends)."""
    clause = sa.text(where)
    return sa.Index(
        name, *(table.c[column] for column in columns), unique=unique,
        sqlite_where=clause, postgresql_where=clause,
    )


#: the column type of each field type of a record
_TYPES: dict[type, Any] = {int: BigInt, float: Real, bool: Flag, str: sa.Text, dict: Json}


def record_columns(record: type, declared: Sequence[sa.Column[Any]]) -> list[sa.Column[Any]]:
    """The columns of ``record``'s fields, in their order: the ``declared`` one of a
    field's name, else one made from the field's type (see :class:`SessionRecord`).
    ``seats`` is a table of its own."""
    by_name = {column.name: column for column in declared}
    hints = get_type_hints(record)
    columns = []
    for each in fields(record):
        if each.name == "seats":
            continue
        column = by_name.pop(each.name, None)
        if column is None:
            hint = hints[each.name]
            kinds = set(get_args(hint)) if isinstance(hint, types.UnionType) else {hint}
            (kind,) = kinds - {type(None)}
            column = sa.Column(each.name, _TYPES[get_origin(kind) or kind],
                               nullable=type(None) in kinds)
        columns.append(column)
    assert not by_name, f"declared columns without a field: {sorted(by_name)}"
    return columns


# A session field's column comes from its type; only the columns that need more
# (a key, a check, a server default, NOT NULL over an optional field) are declared.
sessions = sa.Table(
    "sessions", METADATA,
    *record_columns(SessionRecord, [
        sa.Column("id", BigInt, sa.Identity(always=False), primary_key=True),
        sa.Column("kind", sa.Text, sa.CheckConstraint("kind IN ('group', 'private')"),
                  nullable=False),
        sa.Column("status", sa.Text, sa.CheckConstraint(
            "status IN ('lobby', 'running', 'finished', 'cancelled')"), nullable=False),
        sa.Column("version", BigInt, nullable=False, server_default="0"),
        sa.Column("moves", BigInt, nullable=False, server_default="0"),
        sa.Column("updated", Real, nullable=False),
        sa.Column("thread", BigInt, nullable=False, server_default="0"),
        sa.Column("topic_state", sa.Text,
                  sa.CheckConstraint("topic_state IN ('closed', 'gone')")),
    ]),
)
# one lobby or running game per group chat and topic (thread 0: no topic)
_partial(sessions, "sessions_open_group", "chat_id", "thread", unique=True,
         where="kind = 'group' AND status IN ('lobby', 'running')")
_partial(sessions, "sessions_open", "status", where="status IN ('lobby', 'running')")
_partial(sessions, "sessions_due", "due", where="due IS NOT NULL")
# /history: the finished matches, and those cut short by their topic's deletion
_partial(sessions, "sessions_finished", "chat_id", "updated", where=HISTORY_WHERE)
_partial(sessions, "sessions_ended", "updated", where="status IN ('finished', 'cancelled')")
_partial(sessions, "sessions_lobby_updated", "updated", where="status = 'lobby'")
sa.Index("sessions_link", sessions.c.link, unique=True)

seats = sa.Table(
    "seats", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", BigInt),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("level", sa.Text, sa.CheckConstraint("level IN ('easy', 'normal', 'strong')")),
    sa.Column("timeouts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("stands_in_for", BigInt),
    sa.CheckConstraint("(user_id IS NULL) <> (level IS NULL)"),
    **_LITE,
)
_partial(seats, "seats_user", "user_id", where="user_id IS NOT NULL")
_partial(seats, "seats_stands_in", "stands_in_for", where="stands_in_for IS NOT NULL")

moves = sa.Table(
    "moves", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("n", sa.Integer, sa.CheckConstraint("n >= 1"), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("by_computer", Flag, nullable=False),
    sa.Column("time", Real, nullable=False),
    sa.Column("version", BigInt),
    **_LITE,
)
sa.Index("moves_version", moves.c.session, moves.c.version)

messages = sa.Table(
    "messages", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("purpose", sa.Text, primary_key=True),
    sa.Column("chat_id", BigInt),
    sa.Column("message_id", BigInt),
    sa.Column("inline_message_id", sa.Text),
    sa.Column("shown", BigInt, nullable=False, server_default="0"),
    sa.Column("wanted", BigInt, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text),
    sa.Column("lease_until", Real),
    sa.Column("receiver", BigInt),
    **_LITE,
)
_partial(messages, "messages_behind", "session", where="shown < wanted")

# one row per human per finished match; the tally is a GROUP BY over it
results = sa.Table(
    "results", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("user_id", BigInt, primary_key=True),
    sa.Column("chat_id", BigInt),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("won", Flag, nullable=False),
    sa.Column("points", Real, nullable=False),
    sa.Column("time", Real, nullable=False),
    sa.Column("seq", BigInt),
    **_LITE,
)
sa.Index("results_chat", results.c.chat_id, results.c.game)
sa.Index("results_user", results.c.user_id, results.c.game)
sa.Index("results_seq", results.c.seq)
# a group's members (who finished a match there): the daily deal's group boards
sa.Index("results_members", results.c.chat_id, results.c.user_id)
# a chat's season tally (/score season): its results of one month
sa.Index("results_chat_time", results.c.chat_id, results.c.time)
#: the order matches were rated in (PostgreSQL; SQLite's single writer counts)
RATING_SEQ = sa.Sequence("rating_seq", metadata=METADATA)

users = sa.Table(
    "users", METADATA,
    sa.Column("id", BigInt, primary_key=True, autoincrement=False),
    sa.Column("name", sa.Text),
    sa.Column("language", sa.Text),
    sa.Column("reachable", Flag, nullable=False, server_default=sa.true()),
)

chats = sa.Table(
    "chats", METADATA,
    sa.Column("id", BigInt, primary_key=True, autoincrement=False),
    sa.Column("language", sa.Text),
)

invites = sa.Table(
    "invites", METADATA,
    sa.Column("code", sa.Text, primary_key=True),
    sa.Column("session", BigInt, _cascade(), nullable=False),
    sa.Column("creator", BigInt, nullable=False),
    sa.Column("expires", Real, nullable=False),
    sa.Column("used_by", BigInt),
    **_LITE,
)
sa.Index("invites_expires", invites.c.expires)
_partial(invites, "invites_used", "used_by", where="used_by IS NOT NULL")

# the lease on a session's background work (timers, computer turns)
claims = sa.Table(
    "claims", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True, autoincrement=False),
    sa.Column("version", BigInt, nullable=False),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("until", Real, nullable=False),
)

def _rating_columns() -> list[sa.Column[Any]]:
    """A rating's numbers (``ratings``, ``season_ratings``)."""
    return [
        sa.Column("mu", Real, nullable=False),
        sa.Column("sigma", Real, nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    ]


ratings = sa.Table(
    "ratings", METADATA,
    sa.Column("scope", BigInt, primary_key=True),
    sa.Column("game", sa.Text, primary_key=True),
    sa.Column("user_id", BigInt, primary_key=True),
    *_rating_columns(),
    **_LITE,
)
sa.Index("ratings_user", ratings.c.user_id, ratings.c.scope)
sa.Index(
    "ratings_order", ratings.c.scope, ratings.c.game,
    sa.text("(mu - 3 * sigma) DESC"), ratings.c.played.desc(), ratings.c.user_id,
)

# the ratings of each season (a UTC calendar month, numbered from January 1970): the
# all-time ones' columns after a month, every player starting each month afresh
season_ratings = sa.Table(
    "season_ratings", METADATA,
    sa.Column("month", BigInt, primary_key=True, autoincrement=False),
    sa.Column("scope", BigInt, primary_key=True),
    sa.Column("game", sa.Text, primary_key=True),
    sa.Column("user_id", BigInt, primary_key=True),
    *_rating_columns(),
    **_LITE,
)
sa.Index(
    "season_ratings_order", season_ratings.c.month, season_ratings.c.scope,
    season_ratings.c.game, sa.text("(mu - 3 * sigma) DESC"), season_ratings.c.played.desc(),
    season_ratings.c.user_id,
)

_RATING = ("mu", "sigma", "played", "wins")
rating_changes = sa.Table(
    "rating_changes", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("scope", BigInt, primary_key=True),
    sa.Column("user_id", BigInt, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    *(sa.Column(f"{name}_before", Real if name in ("mu", "sigma") else sa.Integer,
                nullable=False) for name in _RATING),
    *(sa.Column(name, Real if name in ("mu", "sigma") else sa.Integer, nullable=False)
      for name in _RATING),
    **_LITE,
)

hint_uses = sa.Table(
    "hint_uses", METADATA,
    sa.Column("session", BigInt, _cascade(), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("used", sa.Integer, nullable=False),
    **_LITE,
)

# the flood budget shared by every worker: per chat (key 0: the whole bot) the
# time its next send or edit may go, and the latest booking: when it opens (``slot``)
# and which worker booked it (``owner``), so a worker found dead gives it back
send_slots = sa.Table(
    "send_slots", METADATA,
    sa.Column("key", BigInt, primary_key=True, autoincrement=False),
    sa.Column("next", Real, nullable=False),
    sa.Column("owner", sa.Text),
    sa.Column("slot", Real),
)

# the workers sharing the store, each beating once a second while it runs
# (bot/cluster.py): one silent for a few seconds died, and what it had in hand is
# drawn again by the others at once
workers = sa.Table(
    "workers", METADATA,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("beat", Real, nullable=False),
    **_LITE,
)

# the Mini App's pages open on each worker (bot/miniapp/presence.py): a seated
# player's hand edits are held back while a row of theirs stands (``until``, refreshed
# every few seconds: a dead worker's pages stop holding within seconds)
open_pages = sa.Table(
    "open_pages", METADATA,
    sa.Column("session", BigInt, primary_key=True, autoincrement=False),
    sa.Column("user_id", BigInt, primary_key=True, autoincrement=False),
    sa.Column("worker", sa.Text, primary_key=True),
    sa.Column("until", Real, nullable=False),
    **_LITE,
)

# the presses whose change was committed: a press Telegram delivers again applies once
presses = sa.Table(
    "presses", METADATA,
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("session", BigInt, nullable=False),
    sa.Column("time", Real, nullable=False),
    **_LITE,
)
sa.Index("presses_time", presses.c.time)

# the daily deal: one seed per day and game, drawn from `secrets` by the first
# player of the day and kept secret until the day is over
daily_deals = sa.Table(
    "daily_deals", METADATA,
    sa.Column("day", BigInt, primary_key=True, autoincrement=False),
    sa.Column("game", sa.Text, primary_key=True),
    sa.Column("seed", BigInt, nullable=False),
    **_LITE,
)

# one play per player, day and game (the key refuses a second); ``standing`` is set
# when it finishes (higher is better), and the board is read in its order
daily_plays = sa.Table(
    "daily_plays", METADATA,
    sa.Column("day", BigInt, primary_key=True, autoincrement=False),
    sa.Column("game", sa.Text, primary_key=True),
    sa.Column("user_id", BigInt, primary_key=True),
    sa.Column("session", BigInt, _cascade(), nullable=False),
    sa.Column("started", Real, nullable=False),
    sa.Column("points", Real),
    sa.Column("standing", Real),
    sa.Column("finished", Real),
    **_LITE,
)
_BOARD_WHERE = sa.text("standing IS NOT NULL")
sa.Index(
    "daily_plays_board", daily_plays.c.day, daily_plays.c.game, daily_plays.c.standing.desc(),
    daily_plays.c.finished, daily_plays.c.user_id,
    sqlite_where=_BOARD_WHERE, postgresql_where=_BOARD_WHERE,
)
sa.Index("daily_plays_user", daily_plays.c.user_id, daily_plays.c.day)

def _posts(name: str, period: str) -> sa.Table:
    """A table of once-per-period posts: one row per ``period`` and group chat, taken
    once (``posted``) by the worker (``owner``) that sends it."""
    return sa.Table(
        name, METADATA,
        sa.Column(period, BigInt, primary_key=True, autoincrement=False),
        sa.Column("chat_id", BigInt, primary_key=True),
        sa.Column("owner", sa.Text),
        sa.Column("posted", Real),
        **_LITE,
    )


# the closed daily boards' posts: one row per day and group
daily_posts = _posts("daily_posts", "day")

# the season champions' posts: one row per month and group
season_posts = _posts("season_posts", "month")
