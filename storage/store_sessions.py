"""Sessions, their seats, moves, presses, due work, claims, hints and invites: one
implementation for both backends (see :mod:`storage.sql`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.mapping import insert_columns, session_params, session_record, update_columns
from storage.protocol import ChatBusy, InviteUsed, PressRepeated, StaleVersion
from storage.ratings import RatingUpdate
from storage.records import (
    DailyPlay,
    DailyScore,
    InviteRecord,
    InviteUse,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
)
from storage.schema import HISTORY_WHERE
from storage.sql import Backend, Row, Sql, Tx
from storage.store_daily import insert_play, write_score
from storage.store_ratings import rate_match

_INSERT_SESSION = Sql(
    f"INSERT INTO sessions ({', '.join(insert_columns())})"
    f" VALUES ({', '.join(f':{name}' for name in insert_columns())}) RETURNING id"
)
_SAVE_SESSION = Sql(
    f"UPDATE sessions SET {', '.join(f'{name} = :{name}' for name in update_columns())}"
    " WHERE id = :id AND version = :based_on"
)
#: the session row and its seats in one statement (one snapshot: a save between
#: two queries could otherwise pair a session with another version's seats)
_SELECT_SESSION = Sql("SELECT s.*, {seat_rows} AS seat_rows FROM sessions AS s WHERE s.id = :id")
_VERSION = Sql("SELECT version FROM sessions WHERE id = :id")
_USE_INVITE = Sql("UPDATE invites SET used_by = :user WHERE code = :code AND used_by IS NULL")
_DROP_SEATS = Sql("DELETE FROM seats WHERE session = :session")
_INSERT_SEAT = Sql(
    "INSERT INTO seats (session, seat, user_id, name, level, timeouts, stands_in_for)"
    " VALUES (:session, :seat, :user_id, :name, :level, :timeouts, :stands_in_for)"
)
REMEMBER_USER = Sql(
    "INSERT INTO users (id, name) VALUES (:id, :name)"
    " ON CONFLICT (id) DO UPDATE SET name = excluded.name"
)
_INSERT_MOVE = Sql(
    "INSERT INTO moves (session, n, seat, action, by_computer, time, version)"
    " VALUES (:session, :n, :seat, :action, :by_computer, :time, :version)"
)
_INSERT_RESULT = Sql(
    "INSERT INTO results (session, user_id, chat_id, game, seat, won, points, time)"
    " VALUES (:session, :user_id, :chat_id, :game, :seat, :won, :points, :time)"
)
_RAISE_WANTED = Sql(
    "UPDATE messages SET wanted = {greatest}(wanted, :version)"
    " WHERE session = :session AND purpose = :purpose"
)
_RECORD_PRESS = Sql(
    "INSERT INTO presses (key, session, time) VALUES (:key, :session, :time)"
    " ON CONFLICT (key) DO NOTHING"
)
_PRESSED = Sql("SELECT 1 FROM presses WHERE key = :key")
_FORGET_PRESSES = Sql("DELETE FROM presses WHERE time < :before")
_SELECT_MOVES = "SELECT n, seat, action, by_computer, time, version FROM moves WHERE session = :id"
_MOVES = Sql(f"{_SELECT_MOVES} ORDER BY n")
_MOVE_AT = Sql(f"{_SELECT_MOVES} AND version = :version ORDER BY n LIMIT 1")
_OPEN = "SELECT id FROM sessions WHERE status IN ('lobby', 'running')"
_IN_CHAT = " AND kind = 'group' AND chat_id = :chat"
_IN_TOPIC = " AND thread = :thread"
_SEATED = " AND id IN (SELECT session FROM seats WHERE user_id = :user OR stands_in_for = :user)"
#: open_session_ids by (chat given, topic given, user given)
_OPEN_IDS = {
    (chat, topic, user): Sql(
        _OPEN + (_IN_CHAT if chat else "") + (_IN_TOPIC if topic else "")
        + (_SEATED if user else "") + " ORDER BY id"
    )
    for chat in (False, True)
    for topic in (False, True)
    for user in (False, True)
    if chat or not topic
}
_ENDED = Sql(
    "SELECT id FROM sessions WHERE status IN ('finished', 'cancelled') AND updated >= :since"
    " ORDER BY id"
)
_CHAT_OPEN = Sql(
    "SELECT id FROM sessions WHERE chat_id = :chat AND status IN ('lobby', 'running') ORDER BY id"
)
_FINISHED = Sql(
    f"SELECT id FROM sessions WHERE chat_id = :chat AND ({HISTORY_WHERE})"
    " ORDER BY updated DESC, id DESC LIMIT :limit"
)
_DUE = Sql(
    "SELECT id FROM sessions WHERE due IS NOT NULL AND due <= :now AND status = 'running'"
    " ORDER BY due, id"
)
_CLAIM = Sql(
    "INSERT INTO claims (session, version, owner, until)"
    " VALUES (:session, :version, :owner, :until)"
    " ON CONFLICT (session) DO UPDATE SET version = excluded.version,"
    " owner = excluded.owner, until = excluded.until"
    " WHERE claims.version < excluded.version OR claims.owner = excluded.owner"
    " OR claims.until <= :now"
)
_INSERT_INVITE = Sql(
    "INSERT INTO invites (code, session, creator, expires, used_by)"
    " VALUES (:code, :session, :creator, :expires, :used_by)"
)
_INVITE = Sql("SELECT code, session, creator, expires, used_by FROM invites WHERE code = :code")
_PURGE_INVITES = Sql("DELETE FROM invites WHERE used_by IS NOT NULL OR expires <= :now")
_BY_LINK = Sql("SELECT id FROM sessions WHERE link = :link")
_USE_HINT = Sql(
    "INSERT INTO hint_uses (session, seat, used) VALUES (:session, :seat, 1)"
    " ON CONFLICT (session, seat) DO UPDATE SET used = hint_uses.used + 1 RETURNING used"
)
_HINT_USES = Sql("SELECT seat, used FROM hint_uses WHERE session = :session ORDER BY seat")
_QUIET_LOBBIES = Sql(
    "SELECT id FROM sessions WHERE status = 'lobby' AND updated < :before ORDER BY id"
)


class SqlSessions:
    """The sessions-and-moves role of the store (:class:`storage.protocol.SessionStore`)."""

    backend: Backend

    async def create_session(
        self,
        record: SessionRecord,
        *,
        invite: InviteRecord | None = None,
        press: str | None = None,
        daily: DailyPlay | None = None,
    ) -> int:
        """Insert a new session with its seats; its id (:class:`ChatBusy` if taken,
        :class:`DailyPlayed` for a second play of a day's deal)."""
        backend = self.backend
        params = session_params(backend, record)

        async def work(tx: Tx) -> int:
            try:
                rows = await tx.fetch(_INSERT_SESSION, **params)
            except Exception as error:
                if backend.chat_busy(error):
                    raise ChatBusy(str(record.chat_id)) from None
                raise
            session_id = int(rows[0][0])
            if press is not None:
                await _record_press(tx, press, session_id, params["updated"])
            await write_seats(tx, session_id, record.seats)
            if invite is not None:
                await _insert_invite(tx, InviteRecord(
                    invite.code, session_id, invite.creator, invite.expires, invite.used_by
                ))
            if daily is not None:
                await insert_play(tx, daily, session_id)
            return session_id

        return await backend.write(work)

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
        rated: RatingUpdate | None = None,
        press: str | None = None,
        daily: DailyScore | None = None,
    ) -> None:
        """Store ``record`` over version ``based_on`` with what goes with it, in one
        transaction (:class:`StaleVersion`, :class:`InviteUsed`, :class:`PressRepeated`)."""
        backend = self.backend
        params = session_params(backend, record)

        async def work(tx: Tx) -> None:
            if await tx.execute(_SAVE_SESSION, id=record.id, based_on=based_on, **params) != 1:
                raise StaleVersion(f"session {record.id} is no longer at version {based_on}")
            if press is not None:
                await _record_press(tx, press, record.id, params["updated"])
            if invite is not None:
                used = await tx.execute(_USE_INVITE, user=invite.user_id, code=invite.code)
                if used != 1:
                    raise InviteUsed(invite.code)
            if seats:
                await tx.execute(_DROP_SEATS, session=record.id)
                await write_seats(tx, record.id, record.seats)
            if move is not None:
                await tx.execute(
                    _INSERT_MOVE, session=record.id, n=move.n, seat=move.seat,
                    action=move.action, by_computer=move.by_computer, time=float(move.time),
                    version=move.version,
                )
            if results:
                await tx.executemany(_INSERT_RESULT, [
                    {"session": record.id, "user_id": share.user_id, "chat_id": record.chat_id,
                     "game": record.game, "seat": share.seat, "won": share.won,
                     "points": float(share.points), "time": float(share.time)}
                    for share in results
                ])
            if wanted:
                await tx.executemany(_RAISE_WANTED, [
                    {"version": record.version, "session": record.id, "purpose": purpose}
                    for purpose in wanted
                ])
            if rated is not None:
                await rate_match(tx, rated)
            if daily is not None:
                await write_score(tx, daily)

        await backend.write(work)

    async def load_session(self, session_id: int) -> SessionRecord | None:
        """The stored session with its seats, or None."""
        rows = await self.backend.fetch(_SELECT_SESSION, id=session_id)
        return session_record(self.backend, rows[0]) if rows else None

    async def session_version(self, session_id: int) -> int | None:
        """The stored version of a session, or None."""
        rows = await self.backend.fetch(_VERSION, id=session_id)
        return int(rows[0][0]) if rows else None

    async def open_session_ids(
        self, *, chat_id: int | None = None, user_id: int | None = None,
        thread: int | None = None,
    ) -> list[int]:
        """Ids of lobby and running sessions (of a group chat, of one of its topics, of a
        user: seated, or played for by a computer)."""
        topic = chat_id is not None and thread is not None
        sql = _OPEN_IDS[chat_id is not None, topic, user_id is not None]
        params: dict[str, Any] = {"chat": chat_id} if chat_id is not None else {}
        if topic:
            params["thread"] = thread
        if user_id is not None:
            params["user"] = user_id
        return await self._ids(sql, **params)

    async def ended_session_ids(self, since: float) -> list[int]:
        """Ids of sessions finished or cancelled at ``since`` or later."""
        return await self._ids(_ENDED, since=float(since))

    async def chat_session_ids(self, chat_id: int) -> list[int]:
        """Ids of every lobby or running session created in ``chat_id``."""
        return await self._ids(_CHAT_OPEN, chat=chat_id)

    async def finished_session_ids(self, chat_id: int, limit: int) -> list[int]:
        """The chat's last ``limit`` finished sessions (and those ended by their topic's
        deletion), newest first."""
        return await self._ids(_FINISHED, chat=chat_id, limit=limit)

    async def moves_of(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        return [_move(row) for row in await self.backend.fetch(_MOVES, id=session_id)]

    async def move_at_version(self, session_id: int, version: int) -> MoveRecord | None:
        """The move made at session ``version``, if one was."""
        rows = await self.backend.fetch(_MOVE_AT, id=session_id, version=version)
        return _move(rows[0]) if rows else None

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` is recorded."""
        return bool(await self.backend.fetch(_PRESSED, key=key))

    async def forget_presses(self, before: float) -> int:
        """Forget the presses recorded before ``before``; how many."""
        return await self.backend.execute(_FORGET_PRESSES, before=float(before))

    async def due_session_ids(self, now: float) -> list[int]:
        """Running sessions whose background work is due."""
        return await self._ids(_DUE, now=float(now))

    async def claim(
        self, session_id: int, version: int, owner: str, now: float, until: float
    ) -> bool:
        """Take the lease on the session's background work at ``version`` (one atomic
        upsert: of two workers racing for it, one gets it)."""
        taken = await self.backend.execute(
            _CLAIM, session=session_id, version=version, owner=owner, until=float(until),
            now=float(now),
        )
        return taken == 1

    async def insert_invite(self, invite: InviteRecord) -> None:
        """Store a new invite code."""
        await self.backend.write(lambda tx: _insert_invite(tx, invite))

    async def load_invite(self, code: str) -> InviteRecord | None:
        """The invite with ``code`` as committed, or None."""
        rows = await self.backend.fetch(_INVITE, code=code)
        return InviteRecord(*rows[0]) if rows else None

    async def purge_invites(self, now: float) -> int:
        """Delete the invites used or expired by ``now``; how many went."""
        return max(await self.backend.execute(_PURGE_INVITES, now=float(now)), 0)

    async def session_by_link(self, link: str) -> int | None:
        """The id of the session whose deep-link token is ``link``, or None."""
        ids = await self._ids(_BY_LINK, link=link)
        return ids[0] if ids else None

    async def quiet_lobby_ids(self, before: float) -> list[int]:
        """Ids of lobbies that have not changed since ``before``."""
        return await self._ids(_QUIET_LOBBIES, before=float(before))

    async def use_hint(self, session_id: int, seat: int) -> int:
        """Count a hint for ``seat``; how many it has had now."""
        rows = await self.backend.returning(_USE_HINT, session=session_id, seat=seat)
        return int(rows[0][0])

    async def hint_uses(self, session_id: int) -> dict[int, int]:
        """The hints each seat has had (seats without any left out)."""
        rows = await self.backend.fetch(_HINT_USES, session=session_id)
        return {int(row[0]): int(row[1]) for row in rows}

    async def _ids(self, sql: Sql, **params: Any) -> list[int]:
        return [int(row[0]) for row in await self.backend.fetch(sql, **params)]


async def write_seats(tx: Tx, session_id: int, seats: list[SeatRecord]) -> None:
    """Insert the seat rows and remember the seated humans' names."""
    await tx.executemany(_INSERT_SEAT, [
        {"session": session_id, "seat": index, "user_id": seat.user_id, "name": seat.name,
         "level": seat.level, "timeouts": seat.timeouts, "stands_in_for": seat.stands_in_for}
        for index, seat in enumerate(seats)
    ])
    # In user id order: two transactions that seat the same people never wait
    # on each other's user rows in opposite orders (no deadlock).
    names = {seat.user_id: seat.name for seat in seats if seat.user_id is not None}
    if names:
        await tx.executemany(
            REMEMBER_USER, [{"id": user, "name": name} for user, name in sorted(names.items())]
        )


async def _record_press(tx: Tx, key: str, session_id: int, time: float) -> None:
    """Record the press that made a change (:class:`PressRepeated` if it is there already:
    a racing transaction with the same key waits for this one and finds it)."""
    if await tx.execute(_RECORD_PRESS, key=key, session=session_id, time=float(time)) != 1:
        raise PressRepeated(key)


async def _insert_invite(tx: Tx, invite: InviteRecord) -> None:
    await tx.execute(
        _INSERT_INVITE, code=invite.code, session=invite.session, creator=invite.creator,
        expires=float(invite.expires), used_by=invite.used_by,
    )


def _move(row: Row) -> MoveRecord:
    return MoveRecord(
        row["n"], row["seat"], row["action"], bool(row["by_computer"]), row["time"],
        row["version"],
    )
