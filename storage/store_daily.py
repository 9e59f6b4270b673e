"""The daily deal's rows: its secret seeds, the plays, the boards and their posts.

One implementation for both backends (see :mod:`storage.sql`). A play is
written with its session (``create_session(..., daily=…)``) and its score with
the move that finished it (``save_session(..., daily=…)``); what is here reads
them. Every board query reads through ``daily_plays_board`` (day, game,
standing): a place is one plus a count of the better standings, an index range,
and a board the best few of that range, ranked among themselves.

A group's members are the players the bot has seen finish a match there (the
tally's ``results`` rows of that chat, index ``results_members``).
"""

from __future__ import annotations

from storage.protocol import DailyPlayed
from storage.records import DailyPlay, DailyResult, DailyRow, DailyScore
from storage.sql import Backend, Row, Sql, Tx
from storage.store_posts import PostRows

_DRAW_SEED = Sql(
    "INSERT INTO daily_deals (day, game, seed) VALUES (:day, :game, :seed)"
    " ON CONFLICT (day, game) DO NOTHING"
)
_SEED = Sql("SELECT seed FROM daily_deals WHERE day = :day AND game = :game")
_INSERT_PLAY = Sql(
    "INSERT INTO daily_plays (day, game, user_id, session, started)"
    " VALUES (:day, :game, :user, :session, :started) ON CONFLICT DO NOTHING"
)
_SCORE = Sql(
    "UPDATE daily_plays SET points = :points, standing = :standing, finished = :time"
    " WHERE day = :day AND game = :game AND user_id = :user AND standing IS NULL"
)
_PLAY = Sql(
    "SELECT day, game, user_id, session, points, standing FROM daily_plays"
    " WHERE day = :day AND game = :game AND user_id = :user"
)
_PLAYS_OF_DAY = Sql(
    "SELECT day, game, user_id, session, points, standing FROM daily_plays"
    " WHERE day = :day AND user_id = :user ORDER BY game"
)
#: the members of a group chat: who finished a match there
_MEMBERS = "SELECT m.user_id FROM results AS m WHERE m.chat_id = :chat"
_FINISHED = "p.day = :day AND p.game = :game AND p.standing IS NOT NULL"
_PLACE = Sql(
    "SELECT 1 + (SELECT COUNT(*) FROM daily_plays AS p WHERE " + _FINISHED
    + " AND p.standing > :standing),"
    " (SELECT COUNT(*) FROM daily_plays AS p WHERE " + _FINISHED + ")"
)
_GROUP_PLACE = Sql(
    "SELECT 1 + (SELECT COUNT(*) FROM daily_plays AS p WHERE " + _FINISHED
    + " AND p.standing > :standing AND p.user_id IN (" + _MEMBERS + ")),"
    " (SELECT COUNT(*) FROM daily_plays AS p WHERE " + _FINISHED
    + " AND p.user_id IN (" + _MEMBERS + "))"
)
#: the best ``limit`` plays (an index range), ranked among themselves: every better play
#: is among them, so the RANK is the place among all
_BOARD_OF = (
    "SELECT p.user_id, COALESCE(u.name, '') AS name, p.points, p.standing,"
    " RANK() OVER (ORDER BY p.standing DESC) AS place"
    " FROM (SELECT p.user_id, p.points, p.standing, p.finished FROM daily_plays AS p"
    " WHERE " + _FINISHED + "{members}"
    " ORDER BY p.standing DESC, p.finished, p.user_id LIMIT :limit) AS p"
    " LEFT JOIN users AS u ON u.id = p.user_id"
    " ORDER BY p.standing DESC, p.finished, p.user_id"
)
_BOARD = Sql(_BOARD_OF.format(members=""))
_GROUP_BOARD = Sql(_BOARD_OF.format(members=" AND p.user_id IN (" + _MEMBERS + ")"))
_GROUPS_OF = Sql(
    "SELECT DISTINCT r.chat_id FROM results AS r JOIN sessions AS s ON s.id = r.session"
    " WHERE r.user_id = :user AND s.kind = 'group' ORDER BY r.chat_id"
)
_GAMES_OF_DAY = Sql(
    "SELECT DISTINCT p.game FROM daily_plays AS p WHERE p.day = :day"
    " AND p.standing IS NOT NULL AND p.user_id IN (" + _MEMBERS + ") ORDER BY p.game"
)
_GROUPS_OF_DAY = Sql(
    "SELECT DISTINCT r.chat_id FROM daily_plays AS p JOIN results AS r ON r.user_id = p.user_id"
    " JOIN sessions AS s ON s.id = r.session"
    " WHERE p.day = :day AND p.standing IS NOT NULL AND s.kind = 'group' ORDER BY r.chat_id"
)
_DAYS = Sql(
    "SELECT DISTINCT day FROM daily_plays WHERE user_id = :user AND standing IS NOT NULL"
    " ORDER BY day DESC"
)
_POSTS = PostRows("daily_posts", "day")

class SqlDaily:
    """The daily deal's role of the store (:class:`storage.protocol.DailyStore`)."""

    backend: Backend

    async def daily_seed(self, day: int, game: str, seed: int) -> int:
        """The seed of ``day``'s deal of ``game``: ``seed`` if it is the first asked
        for, else the one stored first (one atomic insert: workers agree)."""

        async def work(tx: Tx) -> int:
            await tx.execute(_DRAW_SEED, day=day, game=game, seed=seed)
            rows = await tx.fetch(_SEED, day=day, game=game)
            return int(rows[0][0])

        return await self.backend.write(work)

    async def daily_result(self, day: int, game: str, user_id: int) -> DailyResult | None:
        """The user's play of ``day``'s deal of ``game``, or None."""
        rows = await self.backend.fetch(_PLAY, day=day, game=game, user=user_id)
        return _result(rows[0]) if rows else None

    async def daily_results(self, day: int, user_id: int) -> list[DailyResult]:
        """The user's plays of ``day``, by game."""
        return [_result(row) for row in
                await self.backend.fetch(_PLAYS_OF_DAY, day=day, user=user_id)]

    async def daily_place(
        self, day: int, game: str, standing: float, chat_id: int | None = None
    ) -> tuple[int, int]:
        """The place a finished play of ``standing`` has among all players of that deal
        (or the members of group ``chat_id``), ties sharing one, and how many there are."""
        if chat_id is None:
            rows = await self.backend.fetch(_PLACE, day=day, game=game, standing=standing)
        else:
            rows = await self.backend.fetch(
                _GROUP_PLACE, day=day, game=game, standing=standing, chat=chat_id
            )
        return int(rows[0][0]), int(rows[0][1])

    async def daily_board(
        self, day: int, game: str, chat_id: int | None = None, limit: int = 10
    ) -> list[DailyRow]:
        """The best ``limit`` finished plays of the deal (of group ``chat_id``'s members),
        best first, each with its place among them."""
        if chat_id is None:
            rows = await self.backend.fetch(_BOARD, day=day, game=game, limit=limit)
        else:
            rows = await self.backend.fetch(
                _GROUP_BOARD, day=day, game=game, chat=chat_id, limit=limit
            )
        return [DailyRow(int(r[0]), r[1], float(r[2]), float(r[3]), int(r[4])) for r in rows]

    async def daily_groups(self, user_id: int) -> list[int]:
        """The group chats the user is a member of (finished a match there)."""
        return [int(row[0]) for row in await self.backend.fetch(_GROUPS_OF, user=user_id)]

    async def daily_games(self, day: int, chat_id: int) -> list[str]:
        """The games whose ``day`` deal members of group ``chat_id`` finished."""
        return [str(row[0]) for row in
                await self.backend.fetch(_GAMES_OF_DAY, day=day, chat=chat_id)]

    async def daily_days(self, user_id: int) -> list[int]:
        """The days the user finished a daily deal, newest first."""
        return [int(row[0]) for row in await self.backend.fetch(_DAYS, user=user_id)]

    async def open_daily_posts(self, day: int) -> list[int]:
        """Close ``day``'s boards: a post row for every group where a member played (once:
        a second call adds none), and the groups whose post is not taken yet. Read
        first: it writes only rows that are missing (the insert ignores those another
        worker made meanwhile)."""
        chats = [int(row[0]) for row in await self.backend.fetch(_GROUPS_OF_DAY, day=day)]
        return await _POSTS.opened(self.backend, day, chats)

    async def take_daily_post(self, day: int, chat_id: int, owner: str, now: float) -> bool:
        """Take the group's post of ``day`` for ``owner`` to send (one atomic update: of
        any number of workers, one gets it, once)."""
        return await _POSTS.taken(self.backend, day, chat_id, owner, now)


async def insert_play(tx: Tx, play: DailyPlay, session_id: int) -> None:
    """The play row of a new daily session (:class:`DailyPlayed` if the user has one)."""
    inserted = await tx.execute(
        _INSERT_PLAY, day=play.day, game=play.game, user=play.user_id, session=session_id,
        started=float(play.started),
    )
    if inserted != 1:
        raise DailyPlayed(f"{play.user_id} played {play.game} on day {play.day}")


async def write_score(tx: Tx, score: DailyScore) -> None:
    """A finished daily deal's score on its play row (only the first one counts)."""
    await tx.execute(
        _SCORE, points=float(score.points), standing=float(score.standing),
        time=float(score.time), day=score.day, game=score.game, user=score.user_id,
    )


def _result(row: Row) -> DailyResult:
    points = None if row[4] is None else float(row[4])
    standing = None if row[5] is None else float(row[5])
    return DailyResult(int(row[0]), str(row[1]), int(row[2]), int(row[3]), points, standing)
