"""``python -m storage.copy``: a whole store into an empty one, ids and all."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from storage import (
    InviteRecord,
    InviteUse,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SeatRecord,
    SessionRecord,
    Store,
    open_store,
)
from storage.copy import copy_store, main
from storage.tables import TABLES, NotEmpty

T0 = 1_800_000_000.0
CHATS = (-100_200_300_400, -5, 77)
USERS = (11, 12, 13, 5_000_000_001)


def record(
    chat: int | None, kind: str, seats: list[SeatRecord], **changes: object
) -> SessionRecord:
    base = SessionRecord(
        id=0, chat_id=chat, kind=kind, game="eleven", status="lobby",
        creator=seats[0].user_id or 1,
        options={"target": 5, "names": {3: "three"}}, timer=30, seed=None, version=1, moves=0,
        state=None, deadline=None, result=None, created=T0, seats=seats,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


async def populate(store: Store) -> list[int]:
    """A store with some of everything: open, finished, cancelled, private, invited."""
    ids = []
    humans = [SeatRecord(user, f"user {user}", None) for user in USERS]
    for number in range(12):
        ends = number % 3 == 0 or (number % 3 == 1 and number > 4)
        # one open group session per chat: those left open get chats of their own
        chat = CHATS[number % len(CHATS)] - (0 if ends else 1000 * number)
        seats = [humans[number % 4], SeatRecord(None, "Robot", "normal", number % 3),
                 humans[(number + 1) % 4]]
        kind = "private" if number % 5 == 4 else "group"
        session_id = await store.create_session(
            record(chat, kind, seats, created=T0 + number, game=("eleven", "king")[number % 2]),
            invite=InviteRecord(f"code{number}", 0, seats[0].user_id or 0, T0 + 600, None)
            if kind == "private" else None,
        )
        ids.append(session_id)
        current = record(chat, kind, seats, id=session_id, created=T0 + number,
                         game=("eleven", "king")[number % 2])
        await store.set_message(session_id, MessageRef("table", chat, 100 + number, shown=1,
                                                       wanted=1))
        await store.set_message(session_id, MessageRef("inline", None, None, f"inl{number}"))
        for move in range(1, number % 4 + 1):
            nxt = replace(current, version=move + 1, moves=move, status="running",
                          state={"deal": move, "hands": [[f"{move}S"], []], "by": {1: 2}},
                          due=T0 + 100 + move, last_deal={"deal_no": move, "scores": [1, 2.5]},
                          updated=T0 + number + move / 10)
            await store.save_session(
                nxt, current.version, move=MoveRecord(move, move % 3, f"a{move}", move % 2 == 0,
                                                      T0 + move, current.version),
                wanted=["table"], invite=InviteUse(f"code{number}", USERS[2])
                if kind == "private" and move == 1 else None,
            )
            current = nxt
        if ends and number % 3 == 0:
            done = replace(current, version=current.version + 1, status="finished",
                           result={"scores": [3, 1], "winners": [0]}, due=None,
                           updated=T0 + 50 + number)
            await store.save_session(done, current.version, results=[
                ResultRecord(seats[0].user_id or 0, 0, True, 3 + number / 4, T0 + 50),
                ResultRecord(seats[2].user_id or 0, 2, False, 1, T0 + 50),
            ])
        elif ends:
            await store.save_session(replace(current, version=current.version + 1,
                                             status="cancelled"), current.version)
        await store.mark_shown(session_id, "table", 1 + number % 2)
    await store.set_language("user", USERS[0], "ru")
    await store.set_language("chat", CHATS[0], "en")
    await store.set_language("chat", 999, "ru")
    await store.set_reachable(USERS[1], False)
    await store.set_reachable(4242, False)  # a user never seated
    await store.remember_user(USERS[3], "renamed")
    return ids


async def everything(store: Store, ids: list[int]) -> list[object]:
    """All that the protocol shows of ``ids`` and of the users and chats above."""
    seen: list[object] = []
    for session_id in ids:
        seen += [await store.load_session(session_id), await store.moves_of(session_id),
                 await store.messages_of(session_id),
                 await store.load_invite(f"code{ids.index(session_id)}")]
    for chat in (*CHATS, 999):
        seen += [await store.chat_tally(chat), await store.language("chat", chat),
                 await store.open_session_ids(chat_id=chat), await store.chat_session_ids(chat),
                 await store.finished_session_ids(chat, 100)]
    for user in (*USERS, 4242):
        seen += [await store.user_stats(user), await store.language("user", user),
                 await store.reachable(user), await store.open_session_ids(user_id=user)]
    seen += [await store.open_session_ids(), await store.ended_session_ids(0),
             await store.due_session_ids(T0 + 1000), await store.behind_session_ids()]
    return seen


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


async def test_sqlite_to_postgres_and_back(db_dir: Path, pg_database: str) -> None:
    source = sqlite_url(db_dir / "source.sqlite3")
    store = await open_store(source)
    try:
        ids = await populate(store)
        before = await everything(store, ids)
    finally:
        await store.close()
    # a gap in the ids (a session deleted by hand): ids are kept, not renumbered
    with sqlite3.connect(db_dir / "source.sqlite3") as raw:
        raw.execute("PRAGMA foreign_keys = ON")
        raw.execute("DELETE FROM sessions WHERE id = ?", (ids[1],))
    before_gap = before
    store = await open_store(source)
    try:
        before = await everything(store, ids)
    finally:
        await store.close()
    assert before != before_gap  # the deletion is seen (the comparison below can fail)

    counts = await copy_store(source, pg_database)
    assert counts["sessions"] == 11 and counts["moves"] == sum(n % 4 for n in range(12)) - 1
    assert counts["users"] == 5 and counts["chats"] == 2 and counts["invites"] == 2
    copied = await open_store(pg_database)
    try:
        assert await everything(copied, ids) == before
        # new sessions get ids past the copied ones (the sequence was moved)
        new_id = await copied.create_session(
            record(1, "group", [SeatRecord(11, "user 11", None)])
        )
        assert new_id == max(ids) + 1
        after = await everything(copied, ids)
    finally:
        await copied.close()

    back = sqlite_url(db_dir / "back.sqlite3")
    await copy_store(pg_database, back)
    again = await open_store(back)
    try:
        assert await everything(again, ids) == after
        assert await again.load_session(new_id) is not None
    finally:
        await again.close()


async def test_a_destination_with_data_is_refused_and_kept(db_dir: Path, pg_database: str) -> None:
    source = sqlite_url(db_dir / "source.sqlite3")
    store = await open_store(source)
    await store.create_session(record(-1, "group", [SeatRecord(11, "n", None)]))
    await store.close()
    destination = await open_store(pg_database)
    try:
        await destination.set_language("chat", 5, "ru")  # no session, yet not empty
    finally:
        await destination.close()
    with pytest.raises(NotEmpty, match="chats"):
        await copy_store(source, pg_database)
    destination = await open_store(pg_database)
    try:
        assert await destination.open_session_ids() == []
        assert await destination.language("chat", 5) == "ru"
    finally:
        await destination.close()


async def test_every_column_of_the_schema_is_copied(db_dir: Path) -> None:
    """A column a migration adds is copied too, or named as left out on purpose."""
    path = db_dir / "schema.sqlite3"
    store = await open_store(f"sqlite:///{path}")
    await store.close()
    left_out = {"claims", "send_slots", "presses", "workers", "open_pages",
                "alembic_version"}
    with sqlite3.connect(path) as db:
        names = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )]
        schema = {
            name: {row[1] for row in db.execute(f"PRAGMA table_info({name})")}
            for name in names if name not in left_out
        }
    schema["messages"] -= {"lease_owner", "lease_until"}  # a delivery lease lasts seconds
    copied = {table.name: set(table.columns) for table in TABLES}
    assert copied == schema


def test_the_command_line(tmp_path: Path) -> None:
    source = tmp_path / "koloda.sqlite3"

    async def make() -> None:
        store = await open_store(sqlite_url(source))
        try:
            await populate(store)
        finally:
            await store.close()

    asyncio.run(make())
    target = tmp_path / "copy.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "storage.copy", sqlite_url(source), sqlite_url(target)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("copied 12 sessions, ") and done.stdout.count("\n") == 1
    assert all(table.name in done.stdout for table in TABLES)
    # again: the destination is not empty any more
    done = subprocess.run(
        [sys.executable, "-m", "storage.copy", sqlite_url(source), sqlite_url(target)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "empty" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_source_or_bad_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.sqlite3"
    assert main([sqlite_url(missing), sqlite_url(tmp_path / "d.sqlite3")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert not missing.exists()
    assert main(["only-one"]) == 2
    assert main(["sqlite:///a", "mysql://b"]) == 1
    assert "DATABASE_URL" in capsys.readouterr().err


def test_the_urls_can_come_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = tmp_path / "s.sqlite3", tmp_path / "t.sqlite3"
    env = {"KOLODA_COPY_FROM": sqlite_url(source), "KOLODA_COPY_TO": sqlite_url(target)}
    assert main([], env) == 1  # the source does not exist: the URLs were read
    assert "does not exist" in capsys.readouterr().err
    sqlite3.connect(source).close()
    assert main([], env) == 0
    assert capsys.readouterr().out.startswith("copied 0 sessions, ")
    assert main([], {"KOLODA_COPY_FROM": sqlite_url(source)}) == 2
    assert "KOLODA_COPY_TO" in capsys.readouterr().err
