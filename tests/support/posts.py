"""A presenter double for the once-per-period posts (tests of bot.daily, bot.seasons)."""

from __future__ import annotations

from bot.render.common import Screen


class RecordedPosts:
    """A presenter that records the posts (the one-off messages) it is handed."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, Screen]] = []

    def reply(self, chat_id: int, shown: Screen, thread: int | None = None) -> None:
        self.sent.append((chat_id, shown))

    async def chat_language(self, chat_id: int) -> str:
        return "en"

    async def user_language(self, user_id: int) -> str:
        return "en"
