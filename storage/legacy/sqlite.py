"""FROZEN: SQLite's schema history before Alembic, kept to upgrade old files.

``MIGRATIONS[i]`` brought a database from ``PRAGMA user_version = i`` to
``i + 1``. Never edit or extend this list: a new schema change is an Alembic
revision (``storage/alembic/versions``, see ``docs/storage.md``).
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: the first schema.
    """
    CREATE TABLE sessions (
        id        INTEGER PRIMARY KEY,
        chat_id   INTEGER,
        kind      TEXT NOT NULL CHECK (kind IN ('group', 'private')),
        game      TEXT NOT NULL,
        status    TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'cancelled')),
        creator   INTEGER NOT NULL,
        options   TEXT NOT NULL,
        timer     INTEGER,
        seed      INTEGER,
        version   INTEGER NOT NULL DEFAULT 0,
        moves     INTEGER NOT NULL DEFAULT 0,
        state     TEXT,
        deadline  REAL,
        result    TEXT,
        created   REAL NOT NULL,
        updated   REAL NOT NULL
    );
    -- one lobby or running game per group chat
    CREATE UNIQUE INDEX sessions_open_group ON sessions (chat_id)
        WHERE kind = 'group' AND status IN ('lobby', 'running');
    CREATE INDEX sessions_open ON sessions (status) WHERE status IN ('lobby', 'running');

    CREATE TABLE seats (
        session   INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seat      INTEGER NOT NULL,
        user_id   INTEGER,
        name      TEXT NOT NULL,
        level     TEXT CHECK (level IN ('easy', 'normal', 'strong')),
        timeouts  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session, seat),
        CHECK ((user_id IS NULL) <> (level IS NULL))
    ) WITHOUT ROWID;
    CREATE INDEX seats_user ON seats (user_id) WHERE user_id IS NOT NULL;

    CREATE TABLE moves (
        session      INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        n            INTEGER NOT NULL CHECK (n >= 1),
        seat         INTEGER NOT NULL,
        action       TEXT NOT NULL,
        by_computer  INTEGER NOT NULL,
        time         REAL NOT NULL,
        PRIMARY KEY (session, n)
    ) WITHOUT ROWID;

    CREATE TABLE messages (
        session            INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        purpose            TEXT NOT NULL,
        chat_id            INTEGER,
        message_id         INTEGER,
        inline_message_id  TEXT,
        PRIMARY KEY (session, purpose)
    ) WITHOUT ROWID;

    -- one row per human per finished match; the tally is a GROUP BY over it
    CREATE TABLE results (
        session  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        user_id  INTEGER NOT NULL,
        chat_id  INTEGER,
        game     TEXT NOT NULL,
        seat     INTEGER NOT NULL,
        won      INTEGER NOT NULL,
        points   REAL NOT NULL,
        time     REAL NOT NULL,
        PRIMARY KEY (session, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX results_chat ON results (chat_id, game);
    CREATE INDEX results_user ON results (user_id, game);

    CREATE TABLE users (
        id         INTEGER PRIMARY KEY,
        name       TEXT,
        language   TEXT,
        reachable  INTEGER NOT NULL DEFAULT 1
    );

    CREATE TABLE chats (
        id        INTEGER PRIMARY KEY,
        language  TEXT
    );

    CREATE TABLE invites (
        code     TEXT PRIMARY KEY,
        session  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        creator  INTEGER NOT NULL,
        expires  REAL NOT NULL,
        used_by  INTEGER
    ) WITHOUT ROWID;
    """,
    # 2: the session version each move was made at, so a press delivered twice
    # (after a crash) is recognised as the one already applied.
    """
    ALTER TABLE moves ADD COLUMN version INTEGER;
    """,
    # 3: the store behind the Store protocol: when a session's background work is
    # due (timers and computer turns, claimed by one worker at a time), the last
    # deal's points (drawn from storage, not memory), and per message the version
    # it shows and the version it should show (a restart draws only what is behind).
    """
    ALTER TABLE sessions ADD COLUMN due REAL;
    ALTER TABLE sessions ADD COLUMN last_deal TEXT;
    CREATE INDEX sessions_due ON sessions (due) WHERE due IS NOT NULL;
    UPDATE sessions SET due = deadline WHERE status = 'running' AND deadline IS NOT NULL;
    ALTER TABLE messages ADD COLUMN shown INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE messages ADD COLUMN wanted INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX messages_behind ON messages (session) WHERE shown < wanted;
    CREATE INDEX moves_version ON moves (session, version);
    CREATE INDEX sessions_finished ON sessions (chat_id, updated) WHERE status = 'finished';
    CREATE TABLE claims (
        session  INTEGER PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        version  INTEGER NOT NULL,
        owner    TEXT NOT NULL,
        until    REAL NOT NULL
    );
    """,
    # 4: a computer that stands in for a human remembers whom (shown "for Alice",
    # and the human may take the seat back).
    """
    ALTER TABLE seats ADD COLUMN stands_in_for INTEGER;
    """,
    # 5: skill ratings per game, per group chat and overall (scope 0), and what
    # each finished match did to them; both written with the match's results, and
    # rebuilt from the results by ``python -m sessions.rerate`` in the order they were
    # rated (results.seq).
    """
    ALTER TABLE results ADD COLUMN seq INTEGER;
    CREATE INDEX results_seq ON results (seq);
    CREATE TABLE ratings (
        scope    INTEGER NOT NULL,
        game     TEXT NOT NULL,
        user_id  INTEGER NOT NULL,
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        played   INTEGER NOT NULL,
        wins     INTEGER NOT NULL,
        PRIMARY KEY (scope, game, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_user ON ratings (user_id, scope);
    CREATE TABLE rating_changes (
        session        INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        scope          INTEGER NOT NULL,
        user_id        INTEGER NOT NULL,
        game           TEXT NOT NULL,
        mu_before      REAL NOT NULL,
        sigma_before   REAL NOT NULL,
        played_before  INTEGER NOT NULL,
        wins_before    INTEGER NOT NULL,
        mu             REAL NOT NULL,
        sigma          REAL NOT NULL,
        played         INTEGER NOT NULL,
        wins           INTEGER NOT NULL,
        PRIMARY KEY (session, scope, user_id)
    ) WITHOUT ROWID;
    """,
    # 6: the table's Hints setting (NULL: the default), and how many hints
    # each seat asked for (counted without a new session version: a hint moves nothing).
    """
    ALTER TABLE sessions ADD COLUMN hints INTEGER;
    CREATE TABLE hint_uses (
        session  INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seat     INTEGER NOT NULL,
        used     INTEGER NOT NULL,
        PRIMARY KEY (session, seat)
    ) WITHOUT ROWID;
    """,
    # 7: the flood budget shared by every worker (PostgreSQL's migration 5; kept
    # here so both backends have one schema): per chat, and key 0 for the whole
    # bot, the time its next send or edit may go.
    """
    CREATE TABLE send_slots (
        key   INTEGER PRIMARY KEY,
        next  REAL NOT NULL
    );
    """,
    # 8: which worker is sending or editing a message, until when (PostgreSQL's
    # migration 6): one worker at a time delivers each message.
    """
    ALTER TABLE messages ADD COLUMN lease_owner TEXT;
    ALTER TABLE messages ADD COLUMN lease_until REAL;
    """,
    # 9: the presses (callback queries) whose change was committed, recorded in the
    # change's own transaction: a press Telegram delivers again applies once.
    # Forgotten after a day (Telegram redelivers for far less); not copied.
    """
    CREATE TABLE presses (
        key      TEXT PRIMARY KEY,
        session  INTEGER NOT NULL,
        time     REAL NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX presses_time ON presses (time);
    """,
    # 10: indexes for the queries of a press, /start, /top and /stats on a long history:
    # the sessions a computer plays for a user (the per-user lookup), and each scope's
    # ratings per game by the leaderboard's order (top lines and ranks, with limits);
    # and the receiver of an ephemeral message (its id is message_id), so any worker,
    # and a restarted one, keeps a group's ephemeral hands and menus current.
    """
    CREATE INDEX seats_stands_in ON seats (stands_in_for) WHERE stands_in_for IS NOT NULL;
    CREATE INDEX ratings_order ON ratings
        (scope, game, (mu - 3 * sigma) DESC, played DESC, user_id);
    ALTER TABLE messages ADD COLUMN receiver INTEGER;
    """,
    # 11: the unguessable token of a session's deep links (a bare session number
    # could be guessed), and the indexes of the quiet-lobby and invite purges;
    # a private lobby keeps only its creator and the friends its invites seated.
    """
    DELETE FROM seats WHERE user_id IS NOT NULL
        AND session IN (SELECT id FROM sessions WHERE kind = 'private' AND status = 'lobby')
        AND user_id <> (SELECT creator FROM sessions WHERE id = seats.session)
        AND NOT EXISTS (SELECT 1 FROM invites
                        WHERE invites.session = seats.session AND invites.used_by = seats.user_id);
    ALTER TABLE sessions ADD COLUMN link TEXT;
    UPDATE sessions SET link = lower(hex(randomblob(12)));
    CREATE UNIQUE INDEX sessions_link ON sessions (link);
    CREATE INDEX sessions_lobby_updated ON sessions (updated) WHERE status = 'lobby';
    CREATE INDEX invites_expires ON invites (expires);
    CREATE INDEX invites_used ON invites (used_by) WHERE used_by IS NOT NULL;
    """,
]
