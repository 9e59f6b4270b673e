"""Run the real bot (PTB HTTP stack) in-process against the fake Bot API."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from telegram.error import TelegramError

from bot.app import build_application, deliver_pending, shutdown, startup
from bot.config import Settings
from bot.context import Koloda, KolodaApp
from bot.flood_limits import Limits
from sessions import Computer
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser, StoredMessage


@dataclass
class Harness:
    """The fake server plus the running bot, with helpers to drive a game."""

    fake: FakeTelegram
    app: KolodaApp

    @property
    def kol(self) -> Koloda:
        """The bot's parts (manager, presenter, …)."""
        found = self.app.bot_data.koloda
        assert found is not None
        return found

    def _busy(self) -> bool:
        processor = self.app.update_processor
        return bool(
            self.fake.undelivered()
            or self.fake.unconfirmed()
            or not self.app.update_queue.empty()
            or processor.current_concurrent_updates
        )

    async def settle(self, timeout: float = 30.0) -> None:
        """Wait until every pushed update is handled, computers have moved and
        every message is delivered."""
        deadline = asyncio.get_running_loop().time() + timeout
        quiet = 0
        while quiet < 2:
            await self.kol.manager.idle()
            await self.kol.delivery.flush()
            quiet = 0 if self._busy() else quiet + 1
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("the bot did not settle")
            await asyncio.sleep(0.001)

    async def press(self, user: FakeUser, message: StoredMessage, label_or_data: str) -> Any:
        """Press a button, wait for the answer to the query and for the re-rendering.

        A button not on ``message`` is looked for on the newest ephemeral message the
        user sees in that chat (the creator's settings menu, their hand)."""
        query = self.fake.push_press(
            user, self._showing(user, message, label_or_data), label_or_data
        )
        answer = await self.fake.answer(query)
        await self.settle()
        return answer

    def _showing(self, user: FakeUser, message: StoredMessage, label_or_data: str) -> StoredMessage:
        def has(shown: StoredMessage) -> bool:
            return any(
                label_or_data in (b.get("text"), b.get("callback_data")) for b in shown.buttons()
            )

        if has(message):
            return message
        mine = [
            m
            for m in self.fake.chat_messages(message.chat_id, ephemeral=True)
            if m.ephemeral_for == user.id and has(m)
        ]
        return mine[-1] if mine else message

    async def command(self, user: FakeUser, chat_id: int, text: str) -> None:
        """Send a command and wait until the bot has handled it."""
        chat = self.fake.chats.get(chat_id) or self.fake.private(user)
        self.fake.push_command(user, chat, text)
        await self.settle()

    async def hand_link(self, session_id: int) -> str:
        """The deep link that shows one's hand of the session in the private chat."""
        return self.kol.presenter.hand_link(await self.kol.manager.get(session_id))

    async def open_lobby(
        self, game: str, users: Sequence[FakeUser], title: str
    ) -> tuple[FakeChat, StoredMessage]:
        """Everyone opens their private chat (/start); the first opens ``game`` in a
        new group. The group and its lobby message."""
        group = self.fake.group(title)
        for user in users:
            await self.command(user, self.fake.private(user).id, "/start")
        await self.command(users[0], group.id, f"/new {game}")
        lobby = self.fake.last_message(group.id)
        assert lobby is not None
        return group, lobby

    async def stop(self) -> None:
        """Stop polling (unless stopped already) and shut the bot down."""
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        await self.app.stop()
        await deliver_pending(self.app)
        await shutdown(self.app)
        await self.app.shutdown()


async def start_harness(
    fake: FakeTelegram,
    database: Path,
    computer: Computer,
    limits: Limits | None = None,
    defer: float = 0.0,
    database_url: str | None = None,
    started: Callable[[KolodaApp], Awaitable[None]] | None = None,
    **settings: Any,
) -> Harness:
    """Build the bot against ``fake`` and start polling (no flood limits unless given),
    on the SQLite file ``database`` or at ``database_url``; ``started`` is awaited
    once the bot is up, before the first update is fetched; ``settings``: more of the
    bot's settings (``miniapp_url``, ``port`` …)."""
    chosen = Settings(
        fake.token, fake.api_url, database_url or f"sqlite:///{database}", **settings
    )
    app = build_application(
        chosen, computer, limits=limits or Limits.off(), defer=defer
    )
    await app.initialize()
    await startup(app)
    if started is not None:
        await started(app)
    await app.start()
    assert app.updater is not None

    def polling_failed(error: TelegramError) -> None:
        """What ``run_polling`` does with a failed getUpdates: the error handler."""
        app.create_task(app.process_error(error=error, update=None))

    await app.updater.start_polling(poll_interval=0.0, timeout=1, error_callback=polling_failed)
    return Harness(fake, app)
