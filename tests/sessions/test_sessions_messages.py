"""The message store as the front end sees it: lookups made at once share one read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sessions import Messages
from storage import MessageRef
from storage.sqlite import SqliteStore
from tests.support.store_records import created


class CountingStore(SqliteStore):
    """A real SQLite store that counts the reads of a session's messages, and can hold
    a finished read back (``gate``) to stand for a slow one."""

    reads = 0
    gate: asyncio.Event | None = None
    read: asyncio.Event | None = None

    async def messages_of(self, session_id: int) -> list[MessageRef]:
        """Count, read, then wait at the gate."""
        self.reads += 1
        refs = await super().messages_of(session_id)
        if self.read is not None:
            self.read.set()
        if self.gate is not None:
            await self.gate.wait()
        return refs


async def open_messages(tmp_path: Path) -> tuple[CountingStore, Messages, int]:
    store = await CountingStore.open(f"sqlite:///{tmp_path / 'messages.sqlite3'}")
    messages = Messages(store)
    session_id = (await created(store)).id
    await messages.posted(session_id, "table", -100, 10, 1)
    await messages.posted(session_id, "hand:0", 7, 11, 1)
    return store, messages, session_id


async def test_the_lookups_of_one_move_share_one_read(tmp_path: Path) -> None:
    store, messages, session_id = await open_messages(tmp_path)
    try:
        store.reads = 0
        table, hand, missing = await asyncio.gather(
            messages.stored(session_id, "table"),
            messages.stored(session_id, "hand:0"),
            messages.stored(session_id, "hand:1"),
        )
        assert store.reads == 1
        assert table is not None and table.message_id == 10
        assert hand is not None and hand.message_id == 11
        assert missing is None
    finally:
        await store.close()


async def test_a_lookup_after_a_write_sees_it(tmp_path: Path) -> None:
    store, messages, session_id = await open_messages(tmp_path)
    try:
        store.gate, store.read = asyncio.Event(), asyncio.Event()
        before = asyncio.ensure_future(messages.stored(session_id, "hand:1"))
        await store.read.wait()  # read before the write, not yet returned
        await messages.posted(session_id, "hand:1", 8, 12, 2)
        after = asyncio.ensure_future(messages.stored(session_id, "hand:1"))
        await asyncio.sleep(0)
        store.gate.set()
        assert await before is None  # it was asked before the write
        found = await after
        assert found is not None and found.message_id == 12 and found.shown == 2
    finally:
        await store.close()
