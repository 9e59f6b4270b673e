"""The PostgreSQL :class:`~storage.protocol.Store`: every SQL statement for PostgreSQL.

For several workers on one database (``DATABASE_URL=postgresql://…``): an
asyncpg pool, each write one transaction on one pooled connection. A session is
saved as ``UPDATE … WHERE id = $1 AND version = $2`` (under READ COMMITTED the
second of two racing updates waits for the first, then finds another version
and touches no row); a lease on due work is one atomic
``INSERT … ON CONFLICT … DO UPDATE … WHERE``. Stored state is jsonb, encoded
and decoded with orjson exactly as SQLite's text is (number keys become
strings), so both backends hand back the same values.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import orjson

from games import REGISTRY
from storage.pg_migrations import MIGRATION_LOCK, PG_MIGRATIONS
from storage.protocol import (
    ChatBusy,
    DatabaseUnusable,
    InviteUsed,
    PressRepeated,
    StaleVersion,
)
from storage.ratings import (
    LEADERBOARD_LIMIT,
    STORED_RESULTS,
    STORED_SEATS,
    STORED_SESSIONS,
    RatedMatch,
    Rating,
    RatingChange,
    RatingRow,
    rate,
    replay_ratings,
    stored_matches,
)
from storage.records import (
    InviteRecord,
    InviteUse,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    TallyRow,
)
from storage.tables import TABLES, NotEmpty, Table

#: Connections per worker: a move takes one for a few milliseconds.
POOL_MAX = 10
#: Seconds to wait for a connection to the server before giving up (start-up
#: must not hang on an unreachable host).
CONNECT_TIMEOUT = 10.0
#: How long a starting worker waits for another one's migration (the advisory
#: lock) before it gives up with DatabaseUnusable instead of hanging.
MIGRATION_WAIT = "60s"

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

if TYPE_CHECKING:  # asyncpg's classes are generic in its stubs only
    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record]
    Pool: TypeAlias = asyncpg.Pool[asyncpg.Record]
    #: A connection taken from the pool (what every statement runs on).
    Tx: TypeAlias = PoolConnectionProxy[asyncpg.Record]

_SESSION_COLUMNS = (
    "chat_id, kind, game, status, creator, options, timer, seed, version, moves, state,"
    " deadline, result, created, updated, due, last_deal, hints, link"
)
_SELECT_SESSION = (
    "SELECT s.*, COALESCE((SELECT jsonb_agg("
    "jsonb_build_array(user_id, name, level, timeouts, stands_in_for)"
    " ORDER BY seat) FROM seats WHERE session = s.id), '[]'::jsonb) AS seat_rows"
    " FROM sessions AS s WHERE s.id = $1"
)
_SELECT_MOVES = "SELECT n, seat, action, by_computer, time, version FROM moves"
_TALLY = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, COUNT(*) AS played,"
    " SUM(r.won::int) AS wins, SUM(r.points) AS points"
    " FROM results AS r LEFT JOIN users AS u ON u.id = r.user_id"
)
_TALLY_ORDER = (
    " GROUP BY r.user_id, u.name, r.game"
    " ORDER BY wins DESC, points DESC, played ASC, r.user_id, r.game"
)
_SCOPES = {"user": "users", "chat": "chats"}
#: the best ``limit`` ratings of one game in a scope (the ratings_order index, in its
#: order), ranked among themselves — every better rating is among them — with how many
#: players the game has there
_TOP = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " RANK() OVER (ORDER BY r.mu - 3 * r.sigma DESC) AS rank,"
    " (SELECT COUNT(*) FROM ratings WHERE scope = $1 AND game = $2) AS of"
    " FROM (SELECT * FROM ratings WHERE scope = $1 AND game = $2"
    " ORDER BY mu - 3 * sigma DESC, played DESC, user_id LIMIT $3) AS r"
    " LEFT JOIN users AS u ON u.id = r.user_id ORDER BY rank, r.played DESC, r.user_id"
)
#: one user's ratings in a scope, each ranked by counting the better ones (an index range)
_RANKS = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " 1 + (SELECT COUNT(*) FROM ratings AS b WHERE b.scope = r.scope AND b.game = r.game"
    " AND b.mu - 3 * b.sigma > r.mu - 3 * r.sigma) AS rank,"
    " (SELECT COUNT(*) FROM ratings AS c WHERE c.scope = r.scope AND c.game = r.game) AS of"
    " FROM ratings AS r LEFT JOIN users AS u ON u.id = r.user_id"
    " WHERE r.user_id = $1 AND r.scope = $2 ORDER BY r.game"
)
_MESSAGE_COLUMNS = "purpose, chat_id, message_id, inline_message_id, shown, wanted, receiver"
_CHANGE_COLUMNS = (
    "session, scope, user_id, game, mu_before, sigma_before, played_before, wins_before,"
    " mu, sigma, played, wins"
)


def _dump_json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


async def _init_connection(connection: Connection) -> None:
    """jsonb in and out as Python values, through orjson (as SQLite's text)."""
    await connection.set_type_codec(
        "jsonb", encoder=_dump_json, decoder=orjson.loads, schema="pg_catalog", format="text"
    )


class PostgresStore:
    """The store for several workers: one PostgreSQL database (``postgresql://…``)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        """Connect a pool to ``url`` and bring the schema up to date.

        Raises :class:`DatabaseUnusable` (one line, the password left out) if the
        server cannot be reached, refuses the login, has no such database, or
        holds a schema newer than this code.
        """
        where = _redacted(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=POOL_MAX,
                timeout=CONNECT_TIMEOUT,
                init=_init_connection,
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            raise DatabaseUnusable(f"cannot use the database at {where}: {_line(error)}") from None
        store = cls(pool)
        try:
            await store._migrate(where)
        except BaseException as error:
            await pool.close()
            if isinstance(error, asyncpg.PostgresError | asyncpg.InterfaceError | OSError):
                raise DatabaseUnusable(
                    f"cannot bring the database at {where} up to date: {_line(error)}"
                ) from None
            raise
        return store

    async def ping(self, timeout: float) -> None:
        """A connection from the pool answers a query within ``timeout`` seconds."""
        async with self.pool.acquire(timeout=timeout) as connection:
            await connection.fetchval("SELECT 1", timeout=timeout)

    async def close(self) -> None:
        """Wait for the connections in use and close the pool."""
        await self.pool.close()

    async def schema_version(self) -> int:
        """The schema version stored in the database (0 before the first migration)."""
        async with self.pool.acquire() as connection:
            return await _schema_version(connection)

    async def _migrate(self, where: str) -> None:
        """Apply the missing migrations, each in its own transaction.

        Each transaction first takes an advisory lock, so of several workers
        starting at once one migrates while the others wait and then find
        nothing left to do.
        """
        async with self.pool.acquire() as connection:
            while True:
                async with connection.transaction():
                    await connection.execute(f"SET LOCAL lock_timeout = '{MIGRATION_WAIT}'")
                    await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                    await connection.execute(
                        "CREATE TABLE IF NOT EXISTS schema_version ("
                        " version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())"
                    )
                    current = await _schema_version(connection)
                    if current > len(PG_MIGRATIONS):
                        raise DatabaseUnusable(
                            f"the database at {where} has schema version {current}, newer than"
                            f" this code's {len(PG_MIGRATIONS)}: run a newer Koloda"
                        )
                    if current == len(PG_MIGRATIONS):
                        return
                    await connection.execute(PG_MIGRATIONS[current])
                    await connection.execute(
                        "INSERT INTO schema_version (version) VALUES ($1)", current + 1
                    )

    # ------------------------------------------------------------ sessions

    async def create_session(
        self,
        record: SessionRecord,
        *,
        invite: InviteRecord | None = None,
        press: str | None = None,
    ) -> int:
        """Insert a new session with its seats; its id (:class:`ChatBusy` if taken)."""
        async with self.pool.acquire() as tx, tx.transaction():
            try:
                session_id: int = await tx.fetchval(
                    f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES"
                    " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,"
                    " $18, $19)"
                    " RETURNING id",
                    *_session_values(record), record.link,
                )
            except asyncpg.UniqueViolationError as error:
                if error.constraint_name == "sessions_open_group":
                    raise ChatBusy(str(record.chat_id)) from None
                raise
            if press is not None:
                await _record_press(tx, press, session_id, record.updated or record.created)
            await _write_seats(tx, session_id, record.seats)
            if invite is not None:
                await _insert_invite(tx, InviteRecord(
                    invite.code, session_id, invite.creator, invite.expires, invite.used_by
                ))
            return session_id

    async def save_session(
        self,
        record: SessionRecord,
        based_on: int,
        *,
        seats: bool = False,
        move: MoveRecord | None = None,
        results: Sequence[ResultRecord] = (),
        invite: InviteUse | None = None,
        wanted: Sequence[str] = (),
        rated: RatedMatch | None = None,
        press: str | None = None,
    ) -> None:
        """Store ``record`` over version ``based_on`` with what goes with it, in one
        transaction (:class:`StaleVersion`, :class:`InviteUsed`, :class:`PressRepeated`)."""
        async with self.pool.acquire() as tx, tx.transaction():
            status = await tx.execute(
                "UPDATE sessions SET chat_id = $1, kind = $2, game = $3, status = $4,"
                " creator = $5, options = $6, timer = $7, seed = $8, version = $9, moves = $10,"
                " state = $11, deadline = $12, result = $13, created = $14, updated = $15,"
                " due = $16, last_deal = $17, hints = $18 WHERE id = $19 AND version = $20",
                *_session_values(record),
                record.id,
                based_on,
            )
            if status != "UPDATE 1":
                raise StaleVersion(f"session {record.id} is no longer at version {based_on}")
            if press is not None:
                await _record_press(tx, press, record.id, record.updated or record.created)
            if invite is not None:
                status = await tx.execute(
                    "UPDATE invites SET used_by = $1 WHERE code = $2 AND used_by IS NULL",
                    invite.user_id,
                    invite.code,
                )
                if status != "UPDATE 1":
                    raise InviteUsed(invite.code)
            if seats:
                await tx.execute("DELETE FROM seats WHERE session = $1", record.id)
                await _write_seats(tx, record.id, record.seats)
            if move is not None:
                await tx.execute(
                    "INSERT INTO moves (session, n, seat, action, by_computer, time, version)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    record.id, move.n, move.seat, move.action, move.by_computer,
                    float(move.time), move.version,
                )
            if results:
                await tx.executemany(
                    "INSERT INTO results (session, user_id, chat_id, game, seat, won, points,"
                    " time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    [
                        (record.id, share.user_id, record.chat_id, record.game, share.seat,
                         share.won, float(share.points), float(share.time))
                        for share in results
                    ],
                )
            if wanted:
                await tx.execute(
                    "UPDATE messages SET wanted = GREATEST(wanted, $1)"
                    " WHERE session = $2 AND purpose = ANY($3::text[])",
                    record.version,
                    record.id,
                    list(wanted),
                )
            if rated is not None:
                await _rate(tx, rated)

    async def load_session(self, session_id: int) -> SessionRecord | None:
        """The stored session with its seats (one statement: one snapshot), or None."""
        row = await self.pool.fetchrow(_SELECT_SESSION, session_id)
        return None if row is None else _session_record(row)

    async def session_version(self, session_id: int) -> int | None:
        """The stored version of a session, or None."""
        version: int | None = await self.pool.fetchval(
            "SELECT version FROM sessions WHERE id = $1", session_id
        )
        return version

    async def open_session_ids(
        self, *, chat_id: int | None = None, user_id: int | None = None
    ) -> list[int]:
        """Ids of lobby and running sessions (of a group chat, of a user: seated, or
        played for by a computer)."""
        sql = "SELECT id FROM sessions WHERE status IN ('lobby', 'running')"
        params: list[Any] = []
        if chat_id is not None:
            params.append(chat_id)
            sql += f" AND kind = 'group' AND chat_id = ${len(params)}"
        if user_id is not None:
            params.append(user_id)
            sql += (
                " AND id IN (SELECT session FROM seats"
                f" WHERE user_id = ${len(params)} OR stands_in_for = ${len(params)})"
            )
        return await self._ids(sql + " ORDER BY id", *params)

    async def ended_session_ids(self, since: float) -> list[int]:
        """Ids of sessions finished or cancelled at ``since`` or later."""
        return await self._ids(
            "SELECT id FROM sessions WHERE status IN ('finished', 'cancelled') AND updated >= $1"
            " ORDER BY id",
            float(since),
        )

    async def chat_session_ids(self, chat_id: int) -> list[int]:
        """Ids of every lobby or running session created in ``chat_id``."""
        return await self._ids(
            "SELECT id FROM sessions WHERE chat_id = $1 AND status IN ('lobby', 'running')"
            " ORDER BY id",
            chat_id,
        )

    async def finished_session_ids(self, chat_id: int, limit: int) -> list[int]:
        """The chat's last ``limit`` finished sessions, newest first."""
        return await self._ids(
            "SELECT id FROM sessions WHERE chat_id = $1 AND status = 'finished'"
            " ORDER BY updated DESC, id DESC LIMIT $2",
            chat_id,
            limit,
        )

    async def moves_of(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        rows = await self.pool.fetch(f"{_SELECT_MOVES} WHERE session = $1 ORDER BY n", session_id)
        return [_move(row) for row in rows]

    async def move_at_version(self, session_id: int, version: int) -> MoveRecord | None:
        """The move made at session ``version``, if one was."""
        row = await self.pool.fetchrow(
            f"{_SELECT_MOVES} WHERE session = $1 AND version = $2 ORDER BY n LIMIT 1",
            session_id,
            version,
        )
        return None if row is None else _move(row)

    # ------------------------------------------------------------ presses

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` is recorded."""
        found = await self.pool.fetchval("SELECT 1 FROM presses WHERE key = $1", key)
        return found is not None

    async def forget_presses(self, before: float) -> int:
        """Forget the presses recorded before ``before``; how many."""
        status: str = await self.pool.execute("DELETE FROM presses WHERE time < $1", before)
        return int(status.split()[-1])

    # ------------------------------------------------------------ background work

    async def due_session_ids(self, now: float) -> list[int]:
        """Running sessions whose background work is due."""
        return await self._ids(
            "SELECT id FROM sessions WHERE due IS NOT NULL AND due <= $1 AND status = 'running'"
            " ORDER BY due, id",
            float(now),
        )

    async def claim(
        self, session_id: int, version: int, owner: str, now: float, until: float
    ) -> bool:
        """Take the lease on the session's background work at ``version`` (one atomic
        upsert: of two workers racing for it, one gets it)."""
        taken = await self.pool.fetchval(
            "INSERT INTO claims (session, version, owner, until) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (session) DO UPDATE SET version = EXCLUDED.version,"
            " owner = EXCLUDED.owner, until = EXCLUDED.until"
            " WHERE claims.version < EXCLUDED.version OR claims.owner = EXCLUDED.owner"
            " OR claims.until <= $5"
            " RETURNING TRUE",
            session_id,
            version,
            owner,
            float(until),
            float(now),
        )
        return taken is True

    async def reserve_send(self, key: int, interval: float, now: float) -> float:
        """Take ``key``'s next send slot (one atomic upsert: the row lock orders workers)."""
        at = await self.pool.fetchval(
            "INSERT INTO send_slots (key, next) VALUES ($1, $2::float8 + $3::float8)"
            " ON CONFLICT (key) DO UPDATE"
            " SET next = GREATEST(send_slots.next, $2::float8) + $3::float8"
            " RETURNING next - $3::float8",
            key,
            float(now),
            float(interval),
        )
        return float(at)

    # ------------------------------------------------------------ tally

    async def chat_tally(self, chat_id: int, game: str | None = None) -> list[TallyRow]:
        """Per user and game in one chat: played, wins, points; best first."""
        if game is None:
            rows = await self.pool.fetch(_TALLY + " WHERE r.chat_id = $1" + _TALLY_ORDER, chat_id)
        else:
            rows = await self.pool.fetch(
                _TALLY + " WHERE r.chat_id = $1 AND r.game = $2" + _TALLY_ORDER, chat_id, game
            )
        return _tally_rows(rows)

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across every chat."""
        return _tally_rows(
            await self.pool.fetch(_TALLY + " WHERE r.user_id = $1" + _TALLY_ORDER, user_id)
        )

    # ------------------------------------------------------------ ratings

    async def rating_changes(self, session_id: int) -> list[RatingChange]:
        """What the finished match did to its humans' ratings."""
        rows = await self.pool.fetch(
            f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE session = $1"
            " ORDER BY scope, user_id",
            session_id,
        )
        return [_change(tuple(row)) for row in rows]

    async def leaderboard(
        self, scope: int, game: str | None = None, *, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of ``scope`` per game, best first, with ranks."""
        rows: list[RatingRow] = []
        for each in [game] if game is not None else sorted(REGISTRY):
            rows += [_rating_row(row) for row in await self.pool.fetch(_TOP, scope, each, limit)]
        return rows

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's ratings in ``scope`` with their ranks."""
        return [_rating_row(row) for row in await self.pool.fetch(_RANKS, user_id, scope)]

    async def rerate(self) -> int:
        """Recompute every rating from the stored results, in one transaction (the
        rating tables locked against matches finishing meanwhile)."""
        async with self.pool.acquire() as tx, tx.transaction():
            await tx.execute("LOCK TABLE ratings, rating_changes IN EXCLUSIVE MODE")
            matches = await _stored_matches(tx)
            ratings, changes = replay_ratings(matches)
            await tx.execute("DELETE FROM rating_changes")
            await tx.execute("DELETE FROM ratings")
            await tx.executemany(
                "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7)",
                [(*key, r.mu, r.sigma, r.played, r.wins) for key, r in ratings.items()],
            )
            await _insert_changes(tx, changes)
        return len(matches)

    # ------------------------------------------------------------ hints

    async def use_hint(self, session_id: int, seat: int) -> int:
        """Count a hint for ``seat``; how many it has had now."""
        used: int = await self.pool.fetchval(
            "INSERT INTO hint_uses (session, seat, used) VALUES ($1, $2, 1)"
            " ON CONFLICT (session, seat) DO UPDATE SET used = hint_uses.used + 1"
            " RETURNING used",
            session_id,
            seat,
        )
        return used

    async def hint_uses(self, session_id: int) -> dict[int, int]:
        """The hints each seat has had (seats without any left out)."""
        rows = await self.pool.fetch(
            "SELECT seat, used FROM hint_uses WHERE session = $1 ORDER BY seat", session_id
        )
        return {int(row[0]): int(row[1]) for row in rows}

    # ------------------------------------------------------------ messages

    async def set_message(self, session_id: int, ref: MessageRef) -> None:
        """Remember (or replace) the message of ``ref.purpose``."""
        await self.pool.execute(
            "INSERT INTO messages (session, purpose, chat_id, message_id, inline_message_id,"
            " shown, wanted, receiver)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (session, purpose) DO UPDATE"
            " SET chat_id = EXCLUDED.chat_id, message_id = EXCLUDED.message_id,"
            " inline_message_id = EXCLUDED.inline_message_id, shown = EXCLUDED.shown,"
            " wanted = GREATEST(messages.wanted, EXCLUDED.wanted), receiver = EXCLUDED.receiver,"
            " lease_owner = NULL, lease_until = NULL",
            session_id, ref.purpose, ref.chat_id, ref.message_id, ref.inline_message_id,
            ref.shown, ref.wanted, ref.receiver,
        )

    async def drop_message(self, session_id: int, purpose: str) -> None:
        """Forget the message of ``purpose``."""
        await self.pool.execute(
            "DELETE FROM messages WHERE session = $1 AND purpose = $2", session_id, purpose
        )

    async def messages_of(self, session_id: int) -> list[MessageRef]:
        """Every remembered message of a session, by purpose."""
        rows = await self.pool.fetch(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session = $1 ORDER BY purpose",
            session_id,
        )
        return [MessageRef(*row) for row in rows]

    async def mark_shown(self, session_id: int, purpose: str, version: int) -> None:
        """The message of ``purpose`` now shows ``version`` (never an older one)."""
        await self.pool.execute(
            "UPDATE messages SET shown = GREATEST(shown, $1) WHERE session = $2 AND purpose = $3",
            version, session_id, purpose,
        )

    async def behind_session_ids(self) -> list[int]:
        """Sessions with a message that shows an older version than it should."""
        return await self._ids(
            "SELECT DISTINCT session FROM messages WHERE shown < wanted ORDER BY session"
        )

    async def lease_message(
        self, session_id: int, purpose: str, chat_id: int, owner: str, now: float, until: float
    ) -> MessageRef | None:
        """Take the delivery lease on a message (one atomic upsert)."""
        row = await self.pool.fetchrow(
            "INSERT INTO messages (session, purpose, chat_id, shown, wanted, lease_owner,"
            " lease_until) VALUES ($1, $2, $3, -1, -1, $4, $5)"
            " ON CONFLICT (session, purpose) DO UPDATE"
            " SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until"
            " WHERE messages.lease_owner IS NULL OR messages.lease_owner = EXCLUDED.lease_owner"
            " OR messages.lease_until <= $6"
            f" RETURNING {_MESSAGE_COLUMNS}",
            session_id, purpose, chat_id, owner, float(until), float(now),
        )
        return None if row is None else MessageRef(*row)

    async def release_message(
        self,
        session_id: int,
        purpose: str,
        owner: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give a delivery lease back (one transaction)."""
        chat_id, message_id = posted if posted is not None else (None, None)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "UPDATE messages SET"
                " lease_owner = CASE WHEN lease_owner = $3 THEN NULL ELSE lease_owner END,"
                " lease_until = CASE WHEN lease_owner = $3 THEN NULL ELSE lease_until END,"
                " shown = GREATEST(shown, COALESCE($4, shown)),"
                " wanted = GREATEST(wanted, COALESCE($4, wanted)),"
                " chat_id = COALESCE($5, chat_id), message_id = COALESCE($6, message_id),"
                " receiver = CASE WHEN $5::bigint IS NULL THEN receiver END"
                " WHERE session = $1 AND purpose = $2",
                session_id, purpose, owner, shown, chat_id, message_id,
            )
            await conn.execute(
                "DELETE FROM messages WHERE session = $1 AND purpose = $2"
                " AND message_id IS NULL AND inline_message_id IS NULL AND lease_owner IS NULL",
                session_id, purpose,
            )

    # ------------------------------------------------------------ users and chats

    async def remember_user(self, user_id: int, name: str) -> None:
        """Record a user's current display name."""
        await self.pool.execute(_REMEMBER_USER, user_id, name)

    async def set_language(self, scope: str, key: int, language: str) -> None:
        """Store the language of a user or chat."""
        await self.pool.execute(
            f"INSERT INTO {_scope_table(scope)} (id, language) VALUES ($1, $2)"
            " ON CONFLICT (id) DO UPDATE SET language = EXCLUDED.language",
            key,
            language,
        )

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a user or chat, or None."""
        language: str | None = await self.pool.fetchval(
            f"SELECT language FROM {_scope_table(scope)} WHERE id = $1", key
        )
        return language

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark whether the bot can write to the user's private chat."""
        await self.pool.execute(
            "INSERT INTO users (id, reachable) VALUES ($1, $2)"
            " ON CONFLICT (id) DO UPDATE SET reachable = EXCLUDED.reachable",
            user_id,
            reachable,
        )

    async def reachable(self, user_id: int) -> bool:
        """False only if the user was marked unreachable."""
        value = await self.pool.fetchval("SELECT reachable FROM users WHERE id = $1", user_id)
        return value is None or bool(value)

    # ------------------------------------------------------------ invites

    async def insert_invite(self, invite: InviteRecord) -> None:
        """Store a new invite code."""
        async with self.pool.acquire() as connection:
            await _insert_invite(connection, invite)

    async def load_invite(self, code: str) -> InviteRecord | None:
        """The invite with ``code`` as committed, or None."""
        row = await self.pool.fetchrow(
            "SELECT code, session, creator, expires, used_by FROM invites WHERE code = $1", code
        )
        return None if row is None else InviteRecord(*row)

    async def purge_invites(self, now: float) -> int:
        """Delete the invites used or expired by ``now``; how many went."""
        status: str = await self.pool.execute(
            "DELETE FROM invites WHERE used_by IS NOT NULL OR expires <= $1", float(now)
        )
        return int(status.rsplit(" ", 1)[-1])

    async def session_by_link(self, link: str) -> int | None:
        """The id of the session whose deep-link token is ``link``, or None."""
        ids = await self._ids("SELECT id FROM sessions WHERE link = $1", link)
        return ids[0] if ids else None

    async def quiet_lobby_ids(self, before: float) -> list[int]:
        """Ids of lobbies that have not changed since ``before``."""
        return await self._ids(
            "SELECT id FROM sessions WHERE status = 'lobby' AND updated < $1 ORDER BY id",
            float(before),
        )

    # ------------------------------------------------------------ copying (storage.copy)

    async def export_tables(
        self, tables: Sequence[Table] = TABLES, batch: int = 500
    ) -> AsyncIterator[tuple[Table, list[tuple[Any, ...]]]]:
        """Every row of ``tables`` in batches, as plain values, all read in one
        snapshot (a read-only REPEATABLE READ transaction)."""
        async with self.pool.acquire() as connection, connection.transaction(
            isolation="repeatable_read", readonly=True
        ):
            for table in tables:
                sql = f"SELECT {', '.join(table.columns)} FROM {table.name} ORDER BY {table.key}"
                rows: list[tuple[Any, ...]] = []
                async for record in connection.cursor(sql, prefetch=batch):
                    rows.append(tuple(record))
                    if len(rows) == batch:
                        yield table, rows
                        rows = []
                if rows:
                    yield table, rows

    async def import_tables(
        self, batches: AsyncIterator[tuple[Table, list[tuple[Any, ...]]]]
    ) -> dict[str, int]:
        """Insert the rows of an export into this empty store, in one transaction,
        then move the session id sequence past the highest id copied; the count
        per table (:class:`NotEmpty` if the store holds data)."""
        counts = {table.name: 0 for table in TABLES}
        async with self.pool.acquire() as tx, tx.transaction():
            for table in TABLES:
                if await tx.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table.name})"):
                    raise NotEmpty(f"the destination already has {table.name}")
            async for table, rows in batches:
                marks = ", ".join(f"${n}" for n in range(1, len(table.columns) + 1))
                await tx.executemany(
                    f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})",
                    rows,
                )
                counts[table.name] = counts.get(table.name, 0) + len(rows)
            await tx.execute(
                "SELECT setval(pg_get_serial_sequence('sessions', 'id'),"
                " COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM sessions"
            )
            await tx.execute(
                "SELECT setval('rating_seq', COALESCE(MAX(seq), 1), MAX(seq) IS NOT NULL)"
                " FROM results"
            )
        return counts

    # ------------------------------------------------------------ helpers

    async def _ids(self, sql: str, *params: Any) -> list[int]:
        return [int(row[0]) for row in await self.pool.fetch(sql, *params)]


_REMEMBER_USER = (
    "INSERT INTO users (id, name) VALUES ($1, $2)"
    " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name"
)


async def _schema_version(connection: Tx) -> int:
    exists = await connection.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    version: int = await connection.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
    return version


def _session_values(record: SessionRecord) -> tuple[Any, ...]:
    return (
        record.chat_id,
        record.kind,
        record.game,
        record.status,
        record.creator,
        record.options,
        record.timer,
        record.seed,
        record.version,
        record.moves,
        record.state,
        _float(record.deadline),
        record.result,
        float(record.created),
        float(record.updated or record.created),
        _float(record.due),
        record.last_deal,
        record.hints,
    )


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


async def _write_seats(tx: Tx, session_id: int, seats: list[SeatRecord]) -> None:
    await tx.executemany(
        "INSERT INTO seats (session, seat, user_id, name, level, timeouts, stands_in_for)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [
            (session_id, index, seat.user_id, seat.name, seat.level, seat.timeouts,
             seat.stands_in_for)
            for index, seat in enumerate(seats)
        ],
    )
    # In user id order: two transactions that seat the same people never wait
    # on each other's user rows in opposite orders (no deadlock).
    names = {seat.user_id: seat.name for seat in seats if seat.user_id is not None}
    if names:
        await tx.executemany(_REMEMBER_USER, sorted(names.items()))


async def _record_press(tx: Tx, key: str, session_id: int, time: float) -> None:
    """Record the press that made a change (:class:`PressRepeated` if it is there already:
    a racing transaction with the same key waits for this one and finds it)."""
    status = await tx.execute(
        "INSERT INTO presses (key, session, time) VALUES ($1, $2, $3)"
        " ON CONFLICT (key) DO NOTHING",
        key, session_id, float(time),
    )
    if status != "INSERT 0 1":
        raise PressRepeated(key)


async def _insert_invite(tx: Tx, invite: InviteRecord) -> None:
    await tx.execute(
        "INSERT INTO invites (code, session, creator, expires, used_by)"
        " VALUES ($1, $2, $3, $4, $5)",
        invite.code, invite.session, invite.creator, float(invite.expires), invite.used_by,
    )


def _session_record(row: asyncpg.Record) -> SessionRecord:
    return SessionRecord(
        id=row["id"],
        chat_id=row["chat_id"],
        kind=row["kind"],
        game=row["game"],
        status=row["status"],
        creator=row["creator"],
        options=row["options"],
        timer=row["timer"],
        seed=row["seed"],
        version=row["version"],
        moves=row["moves"],
        state=row["state"],
        deadline=row["deadline"],
        result=row["result"],
        created=row["created"],
        seats=[SeatRecord(*seat) for seat in row["seat_rows"]],
        due=row["due"],
        last_deal=row["last_deal"],
        updated=row["updated"],
        hints=row["hints"],
        link=row["link"],
    )


async def _rate(tx: Tx, match: RatedMatch) -> None:
    """Update the humans' ratings of every scope of ``match`` (inside the transaction).

    The rows are created if missing, then locked in key order (FOR UPDATE), so
    two workers finishing matches of the same player apply them one after the other.
    """
    humans = sorted(match.humans)
    changes: list[RatingChange] = []
    for scope in sorted(match.scopes):
        await tx.executemany(
            "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
            " VALUES ($1, $2, $3, $4, $5, 0, 0) ON CONFLICT DO NOTHING",
            [(scope, match.game, user, Rating().mu, Rating().sigma) for user in humans],
        )
        rows = await tx.fetch(
            "SELECT user_id, mu, sigma, played, wins FROM ratings"
            " WHERE scope = $1 AND game = $2 AND user_id = ANY($3::bigint[])"
            " ORDER BY user_id FOR UPDATE",
            scope, match.game, humans,
        )
        current = {row[0]: Rating(row[1], row[2], row[3], row[4]) for row in rows}
        changes += rate(match, scope, current)
    await tx.executemany(
        "UPDATE ratings SET mu = $4, sigma = $5, played = $6, wins = $7"
        " WHERE scope = $1 AND game = $2 AND user_id = $3",
        [(c.scope, c.game, c.user_id, c.after.mu, c.after.sigma, c.after.played, c.after.wins)
         for c in changes],
    )
    await _insert_changes(tx, changes)
    # taken after the locks: matches sharing a player are numbered in the order
    # they were rated, so rerate (by seq) applies them in that order too
    await tx.execute(
        "UPDATE results SET seq = nextval('rating_seq') WHERE session = $1", match.session
    )


async def _insert_changes(tx: Tx, changes: Sequence[RatingChange]) -> None:
    marks = ", ".join(f"${n}" for n in range(1, 13))
    await tx.executemany(
        f"INSERT INTO rating_changes ({_CHANGE_COLUMNS}) VALUES ({marks})",
        [(c.session, c.scope, c.user_id, c.game, c.before.mu, c.before.sigma, c.before.played,
          c.before.wins, c.after.mu, c.after.sigma, c.after.played, c.after.wins)
         for c in changes],
    )


async def _stored_matches(tx: Tx) -> list[RatedMatch]:
    """Every match with results in the order they were rated (results.seq; rows from
    before ratings by their time, then id), as rated live."""
    return stored_matches(
        await tx.fetch(STORED_SESSIONS),
        await tx.fetch(STORED_SEATS),
        await tx.fetch(STORED_RESULTS),
    )


def _change(row: tuple[Any, ...]) -> RatingChange:
    return RatingChange(
        row[0], row[1], row[2], row[3], Rating(row[4], row[5], row[6], row[7]),
        Rating(row[8], row[9], row[10], row[11]),
    )


def _rating_row(row: asyncpg.Record) -> RatingRow:
    return RatingRow(
        row["user_id"], row["name"], row["game"],
        Rating(row["mu"], row["sigma"], row["played"], row["wins"]), row["rank"], row["of"],
    )


def _move(row: asyncpg.Record) -> MoveRecord:
    return MoveRecord(
        row["n"], row["seat"], row["action"], row["by_computer"], row["time"], row["version"]
    )


def _tally_rows(rows: Sequence[asyncpg.Record]) -> list[TallyRow]:
    return [
        TallyRow(r["user_id"], r["name"], r["game"], r["played"], r["wins"], _number(r["points"]))
        for r in rows
    ]


def _number(value: float) -> float:
    """Whole points as ints, as SQLite's store gives them."""
    return int(value) if float(value).is_integer() else float(value)


def _scope_table(scope: str) -> str:
    if scope not in _SCOPES:
        raise ValueError(f"scope must be 'user' or 'chat', not {scope!r}")
    return _SCOPES[scope]


def _redacted(url: str) -> str:
    """``url`` without its password (it goes into an operator's log)."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "the configured URL"


def _line(error: BaseException) -> str:
    """An exception as one line (no traceback, no newlines)."""
    text = re.sub(r"\s+", " ", str(error)).strip()
    return text or type(error).__name__
