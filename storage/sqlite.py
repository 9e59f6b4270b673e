"""The SQLite :class:`~storage.protocol.Store`: every SQL statement for SQLite.

One file, WAL, ``synchronous=FULL``; writes go through the
:class:`~storage.database.Database`'s group commit (many moves, one fsync),
reads through its second connection (committed data only).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiosqlite
import orjson

from games import REGISTRY
from storage.database import Database, Row
from storage.protocol import ChatBusy, InviteUsed, PressRepeated, StaleVersion
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

Tx = aiosqlite.Connection


def dump_json(value: Any) -> str | None:
    """Compact JSON text (orjson: number keys become strings), None for None."""
    return None if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def load_json(text: str | bytes | None) -> Any:
    """The value of stored JSON text (None stays None)."""
    return None if text is None else orjson.loads(text)


_SESSION_COLUMNS = (
    "chat_id, kind, game, status, creator, options, timer, seed, version, moves, state,"
    " deadline, result, created, updated, due, last_deal, hints, link"
)
_SELECT_MOVES = "SELECT n, seat, action, by_computer, time, version FROM moves"
_SELECT_INVITE = "SELECT code, session, creator, expires, used_by FROM invites WHERE code = ?"
_TALLY = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, COUNT(*) AS played,"
    " SUM(r.won) AS wins, SUM(r.points) AS points"
    " FROM results AS r LEFT JOIN users AS u ON u.id = r.user_id"
)
_TALLY_ORDER = (
    " GROUP BY r.user_id, r.game ORDER BY wins DESC, points DESC, played ASC, r.user_id, r.game"
)
#: the session row and its seats in one statement (one snapshot: a save between
#: two queries could otherwise pair a session with another version's seats)
_SELECT_SESSION = (
    "SELECT s.*, (SELECT json_group_array("
    "json_array(user_id, name, level, timeouts, stands_in_for))"
    " FROM (SELECT * FROM seats WHERE session = s.id ORDER BY seat)) AS seat_rows"
    " FROM sessions AS s WHERE s.id = ?"
)
_SCOPES = {"user": "users", "chat": "chats"}
#: the best ``limit`` ratings of one game in a scope (the ratings_order index, in its
#: order), ranked among themselves — every better rating is among them — with how many
#: players the game has there
_TOP = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " RANK() OVER (ORDER BY r.mu - 3 * r.sigma DESC) AS rank,"
    " (SELECT COUNT(*) FROM ratings WHERE scope = ?1 AND game = ?2) AS of"
    " FROM (SELECT * FROM ratings WHERE scope = ?1 AND game = ?2"
    " ORDER BY mu - 3 * sigma DESC, played DESC, user_id LIMIT ?3) AS r"
    " LEFT JOIN users AS u ON u.id = r.user_id ORDER BY rank, r.played DESC, r.user_id"
)
#: one user's ratings in a scope, each ranked by counting the better ones (an index range)
_RANKS = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, r.mu, r.sigma, r.played, r.wins,"
    " 1 + (SELECT COUNT(*) FROM ratings AS b WHERE b.scope = r.scope AND b.game = r.game"
    " AND b.mu - 3 * b.sigma > r.mu - 3 * r.sigma) AS rank,"
    " (SELECT COUNT(*) FROM ratings AS c WHERE c.scope = r.scope AND c.game = r.game) AS of"
    " FROM ratings AS r LEFT JOIN users AS u ON u.id = r.user_id"
    " WHERE r.user_id = ? AND r.scope = ? ORDER BY r.game"
)
_MESSAGE_COLUMNS = "purpose, chat_id, message_id, inline_message_id, shown, wanted, receiver"
_CHANGE_COLUMNS = (
    "session, scope, user_id, game, mu_before, sigma_before, played_before, wins_before,"
    " mu, sigma, played, wins"
)


class SqliteStore:
    """The default store: one SQLite file (``sqlite:///path``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    async def open(cls, url: str) -> SqliteStore:
        """Open (creating and migrating if needed) the file named by ``url``."""
        return cls(await Database.open(url))

    async def ping(self, timeout: float) -> None:
        """The file takes a write lock within ``timeout`` (see :meth:`Database.ping`)."""
        await self.db.ping(timeout)

    async def close(self) -> None:
        """Finish pending writes and close the file."""
        await self.db.close()

    # ------------------------------------------------------------ sessions

    async def create_session(
        self,
        record: SessionRecord,
        *,
        invite: InviteRecord | None = None,
        press: str | None = None,
    ) -> int:
        """Insert a new session with its seats; its id (:class:`ChatBusy` if taken)."""

        async def work(tx: Tx) -> int:
            try:
                cursor = await tx.execute(
                    f"INSERT INTO sessions ({_SESSION_COLUMNS})"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*_session_values(record), record.updated or record.created,
                     record.due, dump_json(record.last_deal), _flag(record.hints),
                     record.link),
                )
            except sqlite3.IntegrityError as error:
                if "sessions.chat_id" in str(error):
                    raise ChatBusy(str(record.chat_id)) from error
                raise
            session_id = cursor.lastrowid
            assert session_id is not None
            if press is not None:
                await _record_press(tx, press, session_id, record.updated or record.created)
            await _write_seats(tx, session_id, record.seats)
            if invite is not None:
                await _insert_invite(tx, InviteRecord(
                    invite.code, session_id, invite.creator, invite.expires, invite.used_by
                ))
            return session_id

        return await self.db.write(work)

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

        async def work(tx: Tx) -> None:
            cursor = await tx.execute(
                "UPDATE sessions SET chat_id = ?, kind = ?, game = ?, status = ?, creator = ?,"
                " options = ?, timer = ?, seed = ?, version = ?, moves = ?, state = ?,"
                " deadline = ?, result = ?, created = ?, updated = ?, due = ?, last_deal = ?,"
                " hints = ? WHERE id = ? AND version = ?",
                (
                    *_session_values(record),
                    record.updated or record.created,
                    record.due,
                    dump_json(record.last_deal),
                    _flag(record.hints),
                    record.id,
                    based_on,
                ),
            )
            if cursor.rowcount != 1:
                raise StaleVersion(f"session {record.id} is no longer at version {based_on}")
            if press is not None:
                await _record_press(tx, press, record.id, record.updated or record.created)
            if invite is not None:
                cursor = await tx.execute(
                    "UPDATE invites SET used_by = ? WHERE code = ? AND used_by IS NULL",
                    (invite.user_id, invite.code),
                )
                if cursor.rowcount != 1:
                    raise InviteUsed(invite.code)
            if seats:
                await tx.execute("DELETE FROM seats WHERE session = ?", (record.id,))
                await _write_seats(tx, record.id, record.seats)
            if move is not None:
                await tx.execute(
                    "INSERT INTO moves (session, n, seat, action, by_computer, time, version)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record.id, move.n, move.seat, move.action, int(move.by_computer),
                     move.time, move.version),
                )
            await tx.executemany(
                "INSERT INTO results (session, user_id, chat_id, game, seat, won, points, time)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (record.id, share.user_id, record.chat_id, record.game, share.seat,
                     int(share.won), share.points, share.time)
                    for share in results
                ],
            )
            if wanted:
                await tx.executemany(
                    "UPDATE messages SET wanted = MAX(wanted, ?) WHERE session = ? AND purpose = ?",
                    [(record.version, record.id, purpose) for purpose in wanted],
                )
            if rated is not None:
                await _rate(tx, rated)

        await self.db.write(work)

    async def load_session(self, session_id: int) -> SessionRecord | None:
        """The stored session with its seats, or None."""
        row = await self.db.fetchone(_SELECT_SESSION, (session_id,))
        return None if row is None else _session_record(row)

    async def session_version(self, session_id: int) -> int | None:
        """The stored version of a session, or None."""
        row = await self.db.fetchone("SELECT version FROM sessions WHERE id = ?", (session_id,))
        return None if row is None else int(row[0])

    async def open_session_ids(
        self, *, chat_id: int | None = None, user_id: int | None = None
    ) -> list[int]:
        """Ids of lobby and running sessions (of a group chat, of a user: seated, or
        played for by a computer)."""
        sql = "SELECT id FROM sessions WHERE status IN ('lobby', 'running')"
        params: list[Any] = []
        if chat_id is not None:
            sql += " AND kind = 'group' AND chat_id = ?"
            params.append(chat_id)
        if user_id is not None:
            sql += " AND id IN (SELECT session FROM seats WHERE user_id = ? OR stands_in_for = ?)"
            params += [user_id, user_id]
        return await self._ids(sql + " ORDER BY id", params)

    async def ended_session_ids(self, since: float) -> list[int]:
        """Ids of sessions finished or cancelled at ``since`` or later."""
        return await self._ids(
            "SELECT id FROM sessions WHERE status IN ('finished', 'cancelled') AND updated >= ?"
            " ORDER BY id",
            (since,),
        )

    async def chat_session_ids(self, chat_id: int) -> list[int]:
        """Ids of every lobby or running session created in ``chat_id``."""
        return await self._ids(
            "SELECT id FROM sessions WHERE chat_id = ? AND status IN ('lobby', 'running')"
            " ORDER BY id",
            (chat_id,),
        )

    async def finished_session_ids(self, chat_id: int, limit: int) -> list[int]:
        """The chat's last ``limit`` finished sessions, newest first."""
        return await self._ids(
            "SELECT id FROM sessions WHERE chat_id = ? AND status = 'finished'"
            " ORDER BY updated DESC, id DESC LIMIT ?",
            (chat_id, limit),
        )

    async def moves_of(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        rows = await self.db.fetchall(
            f"{_SELECT_MOVES} WHERE session = ? ORDER BY n", (session_id,)
        )
        return [_move(row) for row in rows]

    async def move_at_version(self, session_id: int, version: int) -> MoveRecord | None:
        """The move made at session ``version``, if one was."""
        row = await self.db.fetchone(
            f"{_SELECT_MOVES} WHERE session = ? AND version = ? ORDER BY n LIMIT 1",
            (session_id, version),
        )
        return None if row is None else _move(row)

    # ------------------------------------------------------------ presses

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` is recorded."""
        return await self.db.fetchone("SELECT 1 FROM presses WHERE key = ?", (key,)) is not None

    async def forget_presses(self, before: float) -> int:
        """Forget the presses recorded before ``before``; how many."""

        async def work(tx: Tx) -> int:
            cursor = await tx.execute("DELETE FROM presses WHERE time < ?", (before,))
            return cursor.rowcount

        return await self.db.write(work)

    # ------------------------------------------------------------ background work

    async def due_session_ids(self, now: float) -> list[int]:
        """Running sessions whose background work is due."""
        return await self._ids(
            "SELECT id FROM sessions WHERE due IS NOT NULL AND due <= ? AND status = 'running'"
            " ORDER BY due, id",
            (now,),
        )

    async def claim(
        self, session_id: int, version: int, owner: str, now: float, until: float
    ) -> bool:
        """Take the lease on the session's background work at ``version``."""

        async def work(tx: Tx) -> bool:
            cursor = await tx.execute(
                "INSERT INTO claims (session, version, owner, until) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (session) DO UPDATE SET version = excluded.version,"
                " owner = excluded.owner, until = excluded.until"
                " WHERE claims.version < excluded.version OR claims.owner = excluded.owner"
                " OR claims.until <= ?",
                (session_id, version, owner, until, now),
            )
            return cursor.rowcount == 1

        return await self.db.write(work)

    async def reserve_send(self, key: int, interval: float, now: float) -> float:
        """Take ``key``'s next send slot (one write; the single writer orders callers)."""

        async def work(tx: Tx) -> float:
            cursor = await tx.execute(
                "INSERT INTO send_slots (key, next) VALUES (?, ? + ?)"
                " ON CONFLICT (key) DO UPDATE SET next = MAX(send_slots.next, ?) + ?"
                " RETURNING next - ?",
                (key, now, interval, now, interval, interval),
            )
            row = await cursor.fetchone()
            assert row is not None
            return float(row[0])

        return await self.db.write(work)

    # ------------------------------------------------------------ tally

    async def chat_tally(self, chat_id: int, game: str | None = None) -> list[TallyRow]:
        """Per user and game in one chat: played, wins, points; best first."""
        sql = _TALLY + " WHERE r.chat_id = ?"
        params: list[Any] = [chat_id]
        if game is not None:
            sql += " AND r.game = ?"
            params.append(game)
        return _tally_rows(await self.db.fetchall(sql + _TALLY_ORDER, params))

    async def user_stats(self, user_id: int) -> list[TallyRow]:
        """One user's record per game across every chat."""
        rows = await self.db.fetchall(
            _TALLY + " WHERE r.user_id = ?" + _TALLY_ORDER, (user_id,)
        )
        return _tally_rows(rows)

    # ------------------------------------------------------------ ratings

    async def rating_changes(self, session_id: int) -> list[RatingChange]:
        """What the finished match did to its humans' ratings."""
        rows = await self.db.fetchall(
            f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE session = ?"
            " ORDER BY scope, user_id",
            (session_id,),
        )
        return [_change(tuple(row)) for row in rows]

    async def leaderboard(
        self, scope: int, game: str | None = None, *, limit: int = LEADERBOARD_LIMIT
    ) -> list[RatingRow]:
        """The best ``limit`` ratings of ``scope`` per game, best first, with ranks."""
        rows: list[RatingRow] = []
        for each in [game] if game is not None else sorted(REGISTRY):
            rows += [_rating_row(row) for row in await self.db.fetchall(_TOP, (scope, each, limit))]
        return rows

    async def user_ratings(self, user_id: int, scope: int) -> list[RatingRow]:
        """One user's ratings in ``scope`` with their ranks."""
        rows = await self.db.fetchall(_RANKS, (user_id, scope))
        return [_rating_row(row) for row in rows]

    async def rerate(self) -> int:
        """Recompute every rating from the stored results, in one transaction."""

        async def work(tx: Tx) -> int:
            matches = await _stored_matches(tx)
            ratings, changes = replay_ratings(matches)
            await tx.execute("DELETE FROM rating_changes")
            await tx.execute("DELETE FROM ratings")
            await tx.executemany(
                "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(*key, r.mu, r.sigma, r.played, r.wins) for key, r in ratings.items()],
            )
            await _insert_changes(tx, changes)
            return len(matches)

        return await self.db.write(work)

    # ------------------------------------------------------------ hints

    async def use_hint(self, session_id: int, seat: int) -> int:
        """Count a hint for ``seat``; how many it has had now."""

        async def work(tx: Tx) -> int:
            rows = await tx.execute_fetchall(
                "INSERT INTO hint_uses (session, seat, used) VALUES (?, ?, 1)"
                " ON CONFLICT (session, seat) DO UPDATE SET used = used + 1 RETURNING used",
                (session_id, seat),
            )
            return int(next(iter(rows))[0])

        return await self.db.write(work)

    async def hint_uses(self, session_id: int) -> dict[int, int]:
        """The hints each seat has had (seats without any left out)."""
        rows = await self.db.fetchall(
            "SELECT seat, used FROM hint_uses WHERE session = ? ORDER BY seat", (session_id,)
        )
        return {int(row[0]): int(row[1]) for row in rows}

    # ------------------------------------------------------------ messages

    async def set_message(self, session_id: int, ref: MessageRef) -> None:
        """Remember (or replace) the message of ``ref.purpose``."""
        await self.db.write(
            lambda tx: tx.execute(
                "INSERT INTO messages (session, purpose, chat_id, message_id,"
                " inline_message_id, shown, wanted, receiver)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session, purpose) DO UPDATE SET"
                " chat_id = excluded.chat_id, message_id = excluded.message_id,"
                " inline_message_id = excluded.inline_message_id, shown = excluded.shown,"
                " wanted = MAX(messages.wanted, excluded.wanted), receiver = excluded.receiver,"
                " lease_owner = NULL, lease_until = NULL",
                (session_id, ref.purpose, ref.chat_id, ref.message_id, ref.inline_message_id,
                 ref.shown, ref.wanted, ref.receiver),
            )
        )

    async def drop_message(self, session_id: int, purpose: str) -> None:
        """Forget the message of ``purpose``."""
        await self.db.write(
            lambda tx: tx.execute(
                "DELETE FROM messages WHERE session = ? AND purpose = ?", (session_id, purpose)
            )
        )

    async def messages_of(self, session_id: int) -> list[MessageRef]:
        """Every remembered message of a session, by purpose."""
        rows = await self.db.fetchall(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session = ? ORDER BY purpose",
            (session_id,),
        )
        return [MessageRef(*row) for row in rows]

    async def mark_shown(self, session_id: int, purpose: str, version: int) -> None:
        """The message of ``purpose`` now shows ``version``."""
        await self.db.write(
            lambda tx: tx.execute(
                "UPDATE messages SET shown = MAX(shown, ?) WHERE session = ? AND purpose = ?",
                (version, session_id, purpose),
            )
        )

    async def behind_session_ids(self) -> list[int]:
        """Sessions with a message that shows an older version than it should."""
        return await self._ids(
            "SELECT DISTINCT session FROM messages WHERE shown < wanted ORDER BY session"
        )

    async def lease_message(
        self, session_id: int, purpose: str, chat_id: int, owner: str, now: float, until: float
    ) -> MessageRef | None:
        """Take the delivery lease on a message (one upsert)."""

        async def work(tx: Tx) -> MessageRef | None:
            cursor = await tx.execute(
                "INSERT INTO messages (session, purpose, chat_id, shown, wanted, lease_owner,"
                " lease_until) VALUES (?, ?, ?, -1, -1, ?, ?)"
                " ON CONFLICT (session, purpose) DO UPDATE"
                " SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until"
                " WHERE messages.lease_owner IS NULL OR messages.lease_owner = excluded.lease_owner"
                " OR messages.lease_until <= ?"
                f" RETURNING {_MESSAGE_COLUMNS}",
                (session_id, purpose, chat_id, owner, until, now),
            )
            row = await cursor.fetchone()
            return None if row is None else MessageRef(*row)

        return await self.db.write(work)

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

        async def work(tx: Tx) -> None:
            await tx.execute(
                "UPDATE messages SET"
                " lease_owner = CASE WHEN lease_owner = :owner THEN NULL ELSE lease_owner END,"
                " lease_until = CASE WHEN lease_owner = :owner THEN NULL ELSE lease_until END,"
                " shown = MAX(shown, COALESCE(:shown, shown)),"
                " wanted = MAX(wanted, COALESCE(:shown, wanted)),"
                " chat_id = COALESCE(:chat, chat_id), message_id = COALESCE(:message, message_id),"
                " receiver = CASE WHEN :chat IS NULL THEN receiver END"
                " WHERE session = :session AND purpose = :purpose",
                {"owner": owner, "shown": shown, "chat": chat_id, "message": message_id,
                 "session": session_id, "purpose": purpose},
            )
            await tx.execute(
                "DELETE FROM messages WHERE session = ? AND purpose = ?"
                " AND message_id IS NULL AND inline_message_id IS NULL AND lease_owner IS NULL",
                (session_id, purpose),
            )

        await self.db.write(work)

    # ------------------------------------------------------------ users and chats

    async def remember_user(self, user_id: int, name: str) -> None:
        """Record a user's current display name."""
        await self.db.write(lambda tx: _remember_user(tx, user_id, name))

    async def set_language(self, scope: str, key: int, language: str) -> None:
        """Store the language of a user or chat."""
        table = _scope_table(scope)
        await self.db.write(
            lambda tx: tx.execute(
                f"INSERT INTO {table} (id, language) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET language = excluded.language",
                (key, language),
            )
        )

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a user or chat, or None."""
        row = await self.db.fetchone(
            f"SELECT language FROM {_scope_table(scope)} WHERE id = ?", (key,)
        )
        return None if row is None else row["language"]

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark whether the bot can write to the user's private chat."""
        await self.db.write(
            lambda tx: tx.execute(
                "INSERT INTO users (id, reachable) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET reachable = excluded.reachable",
                (user_id, int(reachable)),
            )
        )

    async def reachable(self, user_id: int) -> bool:
        """False only if the user was marked unreachable."""
        row = await self.db.fetchone("SELECT reachable FROM users WHERE id = ?", (user_id,))
        return row is None or bool(row["reachable"])

    # ------------------------------------------------------------ invites

    async def insert_invite(self, invite: InviteRecord) -> None:
        """Store a new invite code."""
        await self.db.write(lambda tx: _insert_invite(tx, invite))

    async def load_invite(self, code: str) -> InviteRecord | None:
        """The invite with ``code`` as committed, or None."""
        row = await self.db.fetchone(_SELECT_INVITE, (code,))
        return None if row is None else InviteRecord(*row)

    async def purge_invites(self, now: float) -> int:
        """Delete the invites used or expired by ``now``; how many went."""

        async def work(tx: Tx) -> int:
            cursor = await tx.execute(
                "DELETE FROM invites WHERE used_by IS NOT NULL OR expires <= ?", (now,)
            )
            return max(cursor.rowcount, 0)

        return await self.db.write(work)

    async def session_by_link(self, link: str) -> int | None:
        """The id of the session whose deep-link token is ``link``, or None."""
        ids = await self._ids("SELECT id FROM sessions WHERE link = ?", (link,))
        return ids[0] if ids else None

    async def quiet_lobby_ids(self, before: float) -> list[int]:
        """Ids of lobbies that have not changed since ``before``."""
        return await self._ids(
            "SELECT id FROM sessions WHERE status = 'lobby' AND updated < ? ORDER BY id",
            (before,),
        )

    # ------------------------------------------------------------ copying (storage.copy)

    async def export_tables(
        self, tables: Sequence[Table] = TABLES, batch: int = 500
    ) -> AsyncIterator[tuple[Table, list[tuple[Any, ...]]]]:
        """Every row of ``tables`` in batches, as plain values (JSON decoded, flags
        as bool), all read in one snapshot."""
        async with self.db.snapshot() as connection:
            for table in tables:
                sql = f"SELECT {', '.join(table.columns)} FROM {table.name} ORDER BY {table.key}"
                async with connection.execute(sql) as cursor:
                    while rows := list(await cursor.fetchmany(batch)):
                        yield table, [_plain(table, row) for row in rows]

    async def import_tables(
        self, batches: AsyncIterator[tuple[Table, list[tuple[Any, ...]]]]
    ) -> dict[str, int]:
        """Insert the rows of an export into this empty store, in one transaction;
        the count per table (:class:`NotEmpty` if the store holds data)."""
        counts = {table.name: 0 for table in TABLES}
        async with self.db.transaction() as tx:
            for table in TABLES:
                found = list(await tx.execute_fetchall(f"SELECT 1 FROM {table.name} LIMIT 1"))
                if found:
                    raise NotEmpty(f"the destination already has {table.name}")
            async for table, rows in batches:
                marks = ", ".join("?" for _ in table.columns)
                await tx.executemany(
                    f"INSERT INTO {table.name} ({', '.join(table.columns)}) VALUES ({marks})",
                    [_stored(table, row) for row in rows],
                )
                counts[table.name] = counts.get(table.name, 0) + len(rows)
        return counts

    # ------------------------------------------------------------ helpers

    async def _ids(self, sql: str, params: Sequence[Any] = ()) -> list[int]:
        return [int(row[0]) for row in await self.db.fetchall(sql, params)]


def _session_values(record: SessionRecord) -> tuple[Any, ...]:
    return (
        record.chat_id,
        record.kind,
        record.game,
        record.status,
        record.creator,
        dump_json(record.options),
        record.timer,
        record.seed,
        record.version,
        record.moves,
        dump_json(record.state),
        record.deadline,
        dump_json(record.result),
        record.created,
    )


async def _write_seats(tx: Tx, session_id: int, seats: list[SeatRecord]) -> None:
    await tx.executemany(
        "INSERT INTO seats (session, seat, user_id, name, level, timeouts, stands_in_for)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (session_id, index, seat.user_id, seat.name, seat.level, seat.timeouts,
             seat.stands_in_for)
            for index, seat in enumerate(seats)
        ],
    )
    for seat in seats:
        if seat.user_id is not None:
            await _remember_user(tx, seat.user_id, seat.name)


async def _remember_user(tx: Tx, user_id: int, name: str) -> None:
    await tx.execute(
        "INSERT INTO users (id, name) VALUES (?, ?)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name",
        (user_id, name),
    )


async def _record_press(tx: Tx, key: str, session_id: int, time: float) -> None:
    """Record the press that made a change (:class:`PressRepeated` if it is there already)."""
    cursor = await tx.execute(
        "INSERT INTO presses (key, session, time) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
        (key, session_id, time),
    )
    if cursor.rowcount != 1:
        raise PressRepeated(key)


async def _insert_invite(tx: Tx, invite: InviteRecord) -> None:
    await tx.execute(
        "INSERT INTO invites (code, session, creator, expires, used_by) VALUES (?, ?, ?, ?, ?)",
        (invite.code, invite.session, invite.creator, invite.expires, invite.used_by),
    )


async def _rate(tx: Tx, match: RatedMatch) -> None:
    """Update the humans' ratings of every scope of ``match`` (inside the transaction)."""
    humans = match.humans
    marks = ", ".join("?" for _ in humans)
    changes: list[RatingChange] = []
    for scope in match.scopes:
        rows = await tx.execute_fetchall(
            "SELECT user_id, mu, sigma, played, wins FROM ratings"
            f" WHERE scope = ? AND game = ? AND user_id IN ({marks})",
            (scope, match.game, *humans),
        )
        current = {row[0]: Rating(row[1], row[2], row[3], row[4]) for row in rows}
        changes += rate(match, scope, current)
    await tx.executemany(
        "INSERT INTO ratings (scope, game, user_id, mu, sigma, played, wins)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, game, user_id) DO UPDATE SET"
        " mu = excluded.mu, sigma = excluded.sigma, played = excluded.played,"
        " wins = excluded.wins",
        [(c.scope, c.game, c.user_id, c.after.mu, c.after.sigma, c.after.played, c.after.wins)
         for c in changes],
    )
    await _insert_changes(tx, changes)
    await tx.execute(
        "UPDATE results SET seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM results)"
        " WHERE session = ?",
        (match.session,),
    )


async def _insert_changes(tx: Tx, changes: Sequence[RatingChange]) -> None:
    await tx.executemany(
        f"INSERT INTO rating_changes ({_CHANGE_COLUMNS}) VALUES ({', '.join('?' * 12)})",
        [(c.session, c.scope, c.user_id, c.game, c.before.mu, c.before.sigma, c.before.played,
          c.before.wins, c.after.mu, c.after.sigma, c.after.played, c.after.wins)
         for c in changes],
    )


async def _stored_matches(tx: Tx) -> list[RatedMatch]:
    """Every match with results in the order they were rated (results.seq; rows from
    before ratings by their time, then id), as rated live."""
    return stored_matches(
        await tx.execute_fetchall(STORED_SESSIONS),
        await tx.execute_fetchall(STORED_SEATS),
        await tx.execute_fetchall(STORED_RESULTS),
        load_json,
    )


def _change(row: tuple[Any, ...]) -> RatingChange:
    return RatingChange(
        row[0], row[1], row[2], row[3], Rating(row[4], row[5], row[6], row[7]),
        Rating(row[8], row[9], row[10], row[11]),
    )


def _rating_row(row: Any) -> RatingRow:
    return RatingRow(
        row["user_id"], row["name"], row["game"],
        Rating(row["mu"], row["sigma"], row["played"], row["wins"]), row["rank"], row["of"],
    )


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _session_record(row: Row) -> SessionRecord:
    return SessionRecord(
        id=row["id"],
        chat_id=row["chat_id"],
        kind=row["kind"],
        game=row["game"],
        status=row["status"],
        creator=row["creator"],
        options=load_json(row["options"]),
        timer=row["timer"],
        seed=row["seed"],
        version=row["version"],
        moves=row["moves"],
        state=load_json(row["state"]),
        deadline=row["deadline"],
        result=load_json(row["result"]),
        created=row["created"],
        seats=[SeatRecord(*seat) for seat in load_json(row["seat_rows"])],
        due=row["due"],
        last_deal=load_json(row["last_deal"]),
        updated=row["updated"],
        hints=None if row["hints"] is None else bool(row["hints"]),
        link=row["link"],
    )


def _move(row: Row) -> MoveRecord:
    return MoveRecord(
        row["n"], row["seat"], row["action"], bool(row["by_computer"]), row["time"], row["version"]
    )


def _tally_rows(rows: list[Row]) -> list[TallyRow]:
    return [
        TallyRow(r["user_id"], r["name"], r["game"], r["played"], r["wins"], _number(r["points"]))
        for r in rows
    ]


def _number(value: float) -> float:
    """Whole points as ints (they are stored as REAL)."""
    return int(value) if float(value).is_integer() else float(value)


def _plain(table: Table, row: Row) -> tuple[Any, ...]:
    return tuple(
        load_json(value) if column in table.json
        else bool(value) if column in table.flags and value is not None
        else value
        for column, value in zip(table.columns, row, strict=True)
    )


def _stored(table: Table, row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(
        dump_json(value) if column in table.json
        else int(value) if column in table.flags and value is not None
        else value
        for column, value in zip(table.columns, row, strict=True)
    )


def _scope_table(scope: str) -> str:
    if scope not in _SCOPES:
        raise ValueError(f"scope must be 'user' or 'chat', not {scope!r}")
    return _SCOPES[scope]
