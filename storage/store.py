"""Every SQL statement of the bot, as typed async functions over a Database.

Write functions take the open transaction (``tx``) so the caller decides what
goes into one transaction; read functions take the :class:`Database`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import aiosqlite
import orjson

from storage.database import Database, Row
from storage.records import (
    InviteRecord,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    TallyRow,
)

OPEN_STATUSES = ("lobby", "running")


class StaleVersion(Exception):
    """The session's stored version is not the one the change was based on."""


class ChatBusy(Exception):
    """The group chat already has a lobby or a running game."""


def _dump(value: Any) -> str | None:
    # orjson: the same compact JSON as json.dumps (number keys become strings), several
    # times faster, and a move stores the whole game state
    return None if value is None else orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _load(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


# ------------------------------------------------------------------ sessions


async def insert_session(tx: aiosqlite.Connection, record: SessionRecord) -> int:
    """Insert a new session and its seats; returns its id (``record.id`` ignored).

    Raises :class:`ChatBusy` if the group chat already has an open session.
    """
    try:
        cursor = await tx.execute(
            "INSERT INTO sessions (chat_id, kind, game, status, creator, options, timer, seed,"
            " version, moves, state, deadline, result, created, updated)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.chat_id,
                record.kind,
                record.game,
                record.status,
                record.creator,
                _dump(record.options),
                record.timer,
                record.seed,
                record.version,
                record.moves,
                _dump(record.state),
                record.deadline,
                _dump(record.result),
                record.created,
                record.created,
            ),
        )
    except sqlite3.IntegrityError as error:
        if "sessions.chat_id" in str(error):
            raise ChatBusy(str(record.chat_id)) from error
        raise
    session_id = cursor.lastrowid
    assert session_id is not None
    await _write_seats(tx, session_id, record.seats)
    return session_id


async def save_session(
    tx: aiosqlite.Connection,
    record: SessionRecord,
    based_on: int,
    now: float,
    *,
    seats: bool = False,
    move: MoveRecord | None = None,
    results: list[ResultRecord] | None = None,
) -> None:
    """Store ``record`` over the stored version ``based_on`` (else :class:`StaleVersion`).

    With ``seats`` the seat rows are rewritten; ``move`` is appended to the
    log; ``results`` are the finished match's tally rows.
    """
    cursor = await tx.execute(
        "UPDATE sessions SET status = ?, creator = ?, options = ?, timer = ?, seed = ?,"
        " version = ?, moves = ?, state = ?, deadline = ?, result = ?, updated = ?"
        " WHERE id = ? AND version = ?",
        (
            record.status,
            record.creator,
            _dump(record.options),
            record.timer,
            record.seed,
            record.version,
            record.moves,
            _dump(record.state),
            record.deadline,
            _dump(record.result),
            now,
            record.id,
            based_on,
        ),
    )
    if cursor.rowcount != 1:
        raise StaleVersion(f"session {record.id} is no longer at version {based_on}")
    if seats:
        await tx.execute("DELETE FROM seats WHERE session = ?", (record.id,))
        await _write_seats(tx, record.id, record.seats)
    if move is not None:
        await tx.execute(
            "INSERT INTO moves (session, n, seat, action, by_computer, time, version)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                move.n,
                move.seat,
                move.action,
                int(move.by_computer),
                move.time,
                move.version,
            ),
        )
    for share in results or ():
        await tx.execute(
            "INSERT INTO results (session, user_id, chat_id, game, seat, won, points, time)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                share.user_id,
                record.chat_id,
                record.game,
                share.seat,
                int(share.won),
                share.points,
                now,
            ),
        )


async def _write_seats(tx: aiosqlite.Connection, session_id: int, seats: list[SeatRecord]) -> None:
    await tx.executemany(
        "INSERT INTO seats (session, seat, user_id, name, level, timeouts)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (session_id, index, seat.user_id, seat.name, seat.level, seat.timeouts)
            for index, seat in enumerate(seats)
        ],
    )


async def load_session(db: Database, session_id: int) -> SessionRecord | None:
    """The stored session with its seats, or None."""
    row = await db.fetchone("SELECT * FROM sessions WHERE id = ?", (session_id,))
    if row is None:
        return None
    seat_rows = await db.fetchall(
        "SELECT user_id, name, level, timeouts FROM seats WHERE session = ? ORDER BY seat",
        (session_id,),
    )
    return _session_record(row, seat_rows)


def _session_record(row: Row, seat_rows: list[Row]) -> SessionRecord:
    return SessionRecord(
        id=row["id"],
        chat_id=row["chat_id"],
        kind=row["kind"],
        game=row["game"],
        status=row["status"],
        creator=row["creator"],
        options=_load(row["options"]),
        timer=row["timer"],
        seed=row["seed"],
        version=row["version"],
        moves=row["moves"],
        state=_load(row["state"]),
        deadline=row["deadline"],
        result=_load(row["result"]),
        created=row["created"],
        seats=[SeatRecord(r["user_id"], r["name"], r["level"], r["timeouts"]) for r in seat_rows],
    )


async def open_session_ids(
    db: Database, *, chat_id: int | None = None, user_id: int | None = None
) -> list[int]:
    """Ids of lobby and running sessions, optionally of one group chat or one user."""
    sql = "SELECT id FROM sessions WHERE status IN ('lobby', 'running')"
    params: list[Any] = []
    if chat_id is not None:
        sql += " AND kind = 'group' AND chat_id = ?"
        params.append(chat_id)
    if user_id is not None:
        sql += " AND id IN (SELECT session FROM seats WHERE user_id = ?)"
        params.append(user_id)
    rows = await db.fetchall(sql + " ORDER BY id", params)
    return [row["id"] for row in rows]


async def ended_session_ids(db: Database, since: float) -> list[int]:
    """Ids of sessions finished or cancelled at ``since`` (a time.time()) or later."""
    rows = await db.fetchall(
        "SELECT id FROM sessions WHERE status IN ('finished', 'cancelled') AND updated >= ?"
        " ORDER BY id",
        (since,),
    )
    return [row["id"] for row in rows]


async def chat_session_ids(db: Database, chat_id: int) -> list[int]:
    """Ids of every lobby or running session created in ``chat_id`` (any kind)."""
    rows = await db.fetchall(
        "SELECT id FROM sessions WHERE chat_id = ? AND status IN ('lobby', 'running')",
        (chat_id,),
    )
    return [row["id"] for row in rows]


# ------------------------------------------------------------------ moves


_SELECT_MOVES = "SELECT n, seat, action, by_computer, time, version FROM moves"


def _move(row: Row) -> MoveRecord:
    return MoveRecord(
        row["n"], row["seat"], row["action"], bool(row["by_computer"]), row["time"], row["version"]
    )


async def moves_of(db: Database, session_id: int) -> list[MoveRecord]:
    """The session's move log, oldest first."""
    rows = await db.fetchall(f"{_SELECT_MOVES} WHERE session = ? ORDER BY n", (session_id,))
    return [_move(row) for row in rows]


async def move_at_version(db: Database, session_id: int, version: int) -> MoveRecord | None:
    """The move made at session ``version``, if one was (and was logged with its version)."""
    row = await db.fetchone(
        f"{_SELECT_MOVES} WHERE session = ? AND version = ?", (session_id, version)
    )
    return None if row is None else _move(row)


# ------------------------------------------------------------------ tally


_TALLY = (
    "SELECT r.user_id, COALESCE(u.name, '') AS name, r.game, COUNT(*) AS played,"
    " SUM(r.won) AS wins, SUM(r.points) AS points"
    " FROM results AS r LEFT JOIN users AS u ON u.id = r.user_id"
)
_TALLY_ORDER = " GROUP BY r.user_id, r.game ORDER BY wins DESC, points DESC, played ASC, r.user_id"


async def chat_tally(db: Database, chat_id: int, game: str | None = None) -> list[TallyRow]:
    """Per user and game in one chat: matches played, wins, points; best first."""
    sql = _TALLY + " WHERE r.chat_id = ?"
    params: list[Any] = [chat_id]
    if game is not None:
        sql += " AND r.game = ?"
        params.append(game)
    return _tally_rows(await db.fetchall(sql + _TALLY_ORDER, params))


async def user_stats(db: Database, user_id: int) -> list[TallyRow]:
    """One user's record per game across every chat."""
    rows = await db.fetchall(_TALLY + " WHERE r.user_id = ?" + _TALLY_ORDER, (user_id,))
    return _tally_rows(rows)


def _tally_rows(rows: list[Row]) -> list[TallyRow]:
    return [
        TallyRow(r["user_id"], r["name"], r["game"], r["played"], r["wins"], _number(r["points"]))
        for r in rows
    ]


def _number(value: float) -> float:
    """Whole points as ints (they are stored as REAL)."""
    return int(value) if float(value).is_integer() else float(value)


# ------------------------------------------------------------------ messages


async def set_message(tx: aiosqlite.Connection, session_id: int, ref: MessageRef) -> None:
    """Remember (or replace) the message that shows ``session_id`` for ``ref.purpose``."""
    await tx.execute(
        "INSERT OR REPLACE INTO messages (session, purpose, chat_id, message_id, inline_message_id)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, ref.purpose, ref.chat_id, ref.message_id, ref.inline_message_id),
    )


async def drop_message(tx: aiosqlite.Connection, session_id: int, purpose: str) -> None:
    """Forget the message of ``purpose``."""
    await tx.execute(
        "DELETE FROM messages WHERE session = ? AND purpose = ?", (session_id, purpose)
    )


async def messages_of(db: Database, session_id: int) -> list[MessageRef]:
    """Every remembered message of a session, by purpose."""
    rows = await db.fetchall(
        "SELECT purpose, chat_id, message_id, inline_message_id FROM messages"
        " WHERE session = ? ORDER BY purpose",
        (session_id,),
    )
    return [
        MessageRef(r["purpose"], r["chat_id"], r["message_id"], r["inline_message_id"])
        for r in rows
    ]


# ------------------------------------------------------------------ users and chats


async def remember_user(tx: aiosqlite.Connection, user_id: int, name: str) -> None:
    """Record a user's current display name (creating the user row)."""
    await tx.execute(
        "INSERT INTO users (id, name) VALUES (?, ?)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name",
        (user_id, name),
    )


async def set_language(tx: aiosqlite.Connection, scope: str, key: int, language: str) -> None:
    """Store the language of a user or chat (``scope``: ``user`` | ``chat``)."""
    table = _scope_table(scope)
    await tx.execute(
        f"INSERT INTO {table} (id, language) VALUES (?, ?)"
        " ON CONFLICT (id) DO UPDATE SET language = excluded.language",
        (key, language),
    )


async def language(db: Database, scope: str, key: int) -> str | None:
    """The stored language of a user or chat, or None."""
    row = await db.fetchone(f"SELECT language FROM {_scope_table(scope)} WHERE id = ?", (key,))
    return None if row is None else row["language"]


def _scope_table(scope: str) -> str:
    tables = {"user": "users", "chat": "chats"}
    if scope not in tables:
        raise ValueError(f"scope must be 'user' or 'chat', not {scope!r}")
    return tables[scope]


async def set_reachable(tx: aiosqlite.Connection, user_id: int, reachable: bool) -> None:
    """Mark whether the bot can write to the user's private chat."""
    await tx.execute(
        "INSERT INTO users (id, reachable) VALUES (?, ?)"
        " ON CONFLICT (id) DO UPDATE SET reachable = excluded.reachable",
        (user_id, int(reachable)),
    )


async def reachable(db: Database, user_id: int) -> bool:
    """False only if the user was marked unreachable."""
    row = await db.fetchone("SELECT reachable FROM users WHERE id = ?", (user_id,))
    return row is None or bool(row["reachable"])


# ------------------------------------------------------------------ invites


async def insert_invite(tx: aiosqlite.Connection, invite: InviteRecord) -> None:
    """Store a new invite code."""
    await tx.execute(
        "INSERT INTO invites (code, session, creator, expires, used_by) VALUES (?, ?, ?, ?, ?)",
        (invite.code, invite.session, invite.creator, invite.expires, invite.used_by),
    )


async def load_invite(db: Database, code: str) -> InviteRecord | None:
    """The invite with ``code`` as committed, or None."""
    row = await db.fetchone(
        "SELECT code, session, creator, expires, used_by FROM invites WHERE code = ?", (code,)
    )
    return None if row is None else InviteRecord(*row)


async def find_invite(tx: aiosqlite.Connection, code: str) -> InviteRecord | None:
    """The invite with ``code`` (read inside the transaction that will use it)."""
    cursor = await tx.execute(
        "SELECT code, session, creator, expires, used_by FROM invites WHERE code = ?", (code,)
    )
    row = await cursor.fetchone()
    return None if row is None else InviteRecord(*row)


async def use_invite(tx: aiosqlite.Connection, code: str, user_id: int) -> None:
    """Mark the invite used by ``user_id``."""
    await tx.execute("UPDATE invites SET used_by = ? WHERE code = ?", (user_id, code))
