"""From a session to every message that shows it.

:class:`Presenter` decides which screens a session needs — the group table
(lobby, play, result), each human's private hand message, ephemeral hands — and
hands them to :class:`~bot.telegram_io.TelegramIO`. It is also the manager's
subscriber, so computer moves and timeouts re-render like human moves do.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.i18n import DEFAULT_LANGUAGE, language_from_code, t
from bot.render.common import Screen, game_name, screen
from bot.render.lobby import render_lobby
from bot.render.result import render_result
from bot.render.table import render_hand, render_table, table_text
from bot.sessions import Outcome, Session, SessionManager
from bot.telegram_io import TelegramIO
from games import REGISTRY
from games.base import View

log = logging.getLogger(__name__)

TABLE = "table"

#: Table texts remembered (a move renders one for the group and one per hand).
TEXTS_KEPT = 64

#: Seconds back from a restart in which ended sessions are drawn again too (after a
#: longer outage, a press on the stale table draws it: see ``bot.handlers.play``).
RESTORE_ENDED = 120.0


def hand_purpose(seat: int) -> str:
    """The message purpose of a seat's private hand message."""
    return f"hand:{seat}"


class Languages:
    """Who reads in which language: per user in private chats, per chat in groups."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager

    async def of_user(self, user_id: int, code: str | None = None) -> str:
        """The user's language: stored, else from their Telegram ``language_code``."""
        stored = await self.manager.language("user", user_id)
        if stored is None and code is not None:
            stored = language_from_code(code)
            await self.manager.set_language("user", user_id, stored)
        return stored or DEFAULT_LANGUAGE

    async def of_chat(self, chat_id: int, code: str | None = None) -> str:
        """A chat's language (a private chat's is its user's)."""
        if chat_id > 0:
            return await self.of_user(chat_id, code)
        stored = await self.manager.language("chat", chat_id)
        if stored is None and code is not None:
            stored = language_from_code(code)
            await self.manager.set_language("chat", chat_id, stored)
        return stored or DEFAULT_LANGUAGE


class Presenter:
    """Renders sessions into their messages."""

    def __init__(self, manager: SessionManager, io: TelegramIO, langs: Languages) -> None:
        self.manager = manager
        self.io = io
        self.langs = langs
        self.username = ""
        # session → (deal number now being played, points of the deal before it)
        self._deal_scores: dict[int, tuple[int, list[Any]]] = {}
        # session → seat → the human whose hand messages show that seat
        self._owners: dict[int, dict[int, int]] = {}
        self._texts: dict[tuple[Any, ...], str] = {}  # oldest first, at most TEXTS_KEPT

    def link(self, payload: str) -> str:
        """A deep link that opens the private chat with the bot: t.me/<bot>?start=…"""
        return f"https://t.me/{self.username}?start={payload}"

    async def on_outcome(self, outcome: Outcome) -> None:
        """Render what a change produced (the manager's subscriber, and every human move)."""
        for event in outcome.events:
            if event.get("type") == "deal_end":
                scores = event.get("deal_scores", event.get("scores"))
                game = outcome.session.game
                if scores is not None and game is not None:
                    self._deal_scores[outcome.session.id] = (game.deal_no, list(scores))
            if event.get("type") == "seat_handed_over":
                owner = self._owners.get(outcome.session.id, {}).get(event["seat"])
                if owner is not None:
                    await self.seat_released(outcome.session, event["seat"], owner, "timeouts")
        await self.refresh(outcome.session)

    def view(self, session: Session, seat: int | None) -> dict[str, Any]:
        """The seat's view, plus the last deal's points while the next deal is on."""
        view = session.view(seat)
        deal_no, scores = self._deal_scores.get(session.id, (-1, []))
        if scores and view.get("deal_no") == deal_no and not view.get("finished"):
            view["last_deal_scores"] = scores
        return view

    def table_text(
        self, session: Session, lang: str, viewer: int | None = None, view: View | None = None
    ) -> str:
        """The text of the table as it is now, for ``viewer`` (None: the group).

        It is drawn from the public view, so the group's table and every hand
        message share one rendering per language, unless the game shows some
        seats' cards publicly (each viewer then skips their own). ``view`` is
        the viewer's own view (the public one for the group) if the caller has it.
        """
        public = view if viewer is None else None
        if viewer is not None:
            view = view if view is not None else self.view(session, viewer)
            if not view.get("known_cards"):
                viewer = None
        seats = tuple((p.user_id, p.name, p.level) for p in session.seats)
        key = (session.id, session.version, lang, viewer, seats)
        text = self._texts.get(key)
        if text is None:
            public = public if public is not None else self.view(session, None)
            text = table_text(public, session.seats, lang, viewer)
            self._texts[key] = text
            if len(self._texts) > TEXTS_KEPT:
                del self._texts[next(iter(self._texts))]
        return text

    async def refresh_players(self, session: Session) -> None:
        """Update only the players' own messages (the group is gone)."""
        await self.refresh(session, with_table=False)

    async def refresh(
        self, session: Session, *, repost_table: bool = False, with_table: bool = True
    ) -> None:
        """Bring every message of ``session`` up to date."""
        over = session.status in ("finished", "cancelled")
        if over:
            self._deal_scores.pop(session.id, None)
            self._owners.pop(session.id, None)
        if with_table and session.kind == "group" and session.chat_id is not None:
            lang = await self.langs.of_chat(session.chat_id)
            self.io.show(
                session.id,
                TABLE,
                session.chat_id,
                self.table_screen(session, lang),
                session.version,
                repost=repost_table,
                final=over,
            )
        for seat, player in enumerate(session.seats):
            if player.user_id is None:
                continue
            if session.kind == "group" and session.status == "lobby":
                continue
            if not over:
                self._owners.setdefault(session.id, {})[seat] = player.user_id
            lang = await self.langs.of_user(player.user_id)
            if await self.manager.reachable(player.user_id):
                self.io.show(
                    session.id,
                    hand_purpose(seat),
                    player.user_id,
                    self.private_screen(session, seat, lang),
                    session.version,
                    # a group table that ends only updates hand messages already there
                    edit_only=session.kind == "group" and session.status != "running",
                    final=over,
                    # a waiting player's hand may follow the group's table a moment later
                    lazy=session.kind == "group",
                )
            if self.io.has_ephemeral(session.id, seat):
                hand = self.hand_screen(session, seat, lang, False)
                self.io.show_ephemeral(session.id, seat, hand, session.version, final=over)

    async def seat_released(self, session: Session, seat: int, user_id: int, why: str) -> None:
        """A computer took over ``seat`` (``why``: ``timeouts`` or ``left``): the human's hand
        messages say so and lose their buttons, and are not kept up to date any more."""
        self._owners.get(session.id, {}).pop(seat, None)
        lang = await self.langs.of_user(user_id)
        gone = screen(t(lang, f"seat-released-{why}", game=game_name(session.game_id, lang)))
        self.io.show(
            session.id,
            hand_purpose(seat),
            user_id,
            gone,
            session.version,
            edit_only=True,
            final=True,
        )
        if self.io.has_ephemeral(session.id, seat):
            self.io.show_ephemeral(session.id, seat, gone, session.version, final=True)

    def table_screen(self, session: Session, lang: str) -> Screen:
        """The group message: lobby, table or result."""
        if session.status == "lobby":
            return self.lobby_screen(session, lang)
        if session.status == "running" and session.game is not None:
            public = self.view(session, None)
            return render_table(
                session.id,
                public,
                session.seats,
                lang,
                self.link(f"h{session.id}") if self.username else None,
                session.timer,
                table=self.table_text(session, lang, view=public),
            )
        return self.result_screen(session, lang)

    def lobby_screen(self, session: Session, lang: str) -> Screen:
        """The lobby of ``session``."""
        game = REGISTRY[session.game_id]
        return render_lobby(
            session.id,
            session.game_id,
            session.kind,
            session.seats,
            game.max_players if session.kind == "group" else game.min_players,
            game.options_schema,
            session.options,
            session.timer,
            lang,
        )

    def result_screen(self, session: Session, lang: str) -> Screen:
        """The end of the match (or its cancellation)."""
        scores = list(session.game.scores) if session.game is not None else []
        result: dict[str, Any] = session.result or {"scores": scores, "winners": []}
        return render_result(
            session.id,
            session.game_id,
            result,
            session.seats,
            lang,
            cancelled=session.status == "cancelled",
        )

    def hand_screen(self, session: Session, seat: int, lang: str, with_table: bool) -> Screen:
        """A seat's hand with its move buttons."""
        assert session.game is not None
        view = self.view(session, seat)
        return render_hand(
            session.id,
            session.version,
            view,
            session.seats,
            lang,
            table=self.table_text(session, lang, seat, view) if with_table else None,
        )

    def private_screen(self, session: Session, seat: int, lang: str) -> Screen:
        """What a player's private chat shows for the session."""
        if session.status == "lobby":
            return self.lobby_screen(session, lang)
        if session.status == "running" and session.game is not None:
            return self.hand_screen(session, seat, lang, with_table=True)
        return self.result_screen(session, lang)

    async def restore(self) -> int:
        """After a restart: re-render every active session (edits, not new posts), and
        those that ended in the last :data:`RESTORE_ENDED` seconds, whose final screens
        a crash may have kept from being delivered. Returns how many."""
        active = await self.manager.active_sessions()
        for session in active:
            await self._restore(session)
        ended = 0
        async for session in self.manager.ended_since(RESTORE_ENDED):
            await self._restore(session)
            ended += 1
        return len(active) + ended

    async def _restore(self, session: Session) -> None:
        try:
            await self.refresh(session)
        except Exception:
            log.exception("could not re-render session %s", session.id)


def notice(text: str) -> Screen:
    """A plain text screen."""
    return screen(text)
