"""From a session to every message that shows it: what goes where, and how.

:class:`Presenter` owns the routing: for every screen of a session — the
group's table (lobby, play, result), each human's private message, their
ephemeral hand, the creator's menu — it decides one :class:`Placement` (which
message, edited or posted anew, how urgent; :mod:`bot.placement`), and
:func:`~bot.placement.place` is the one place that turns a placement into
:class:`~bot.delivery.Delivery`'s calls. The
screens themselves are drawn by :class:`~bot.screens.Screens`, pure functions
of the stored session. Every committed change is drawn by
:meth:`Presenter.on_outcome` — a human's move (its handler), a computer's or a
timer's (the session layer's subscriber) alike. Handlers talk to the session
layer and to this class only; it reads languages and reachability and writes
nothing.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Collection, Coroutine
from typing import Any

from telegram.error import TelegramError

from bot.callback import Reclaim
from bot.delivery import Delivery
from bot.delivery.replies import asking_topic
from bot.i18n import DEFAULT_LANGUAGE, t
from bot.miniapp.live import Pages
from bot.placement import (
    ASKING_ORDER,
    How,
    Pace,
    Placement,
    Where,
    ephemeral_placement,
    hand_placement,
    place,
)
from bot.queueing import NORMAL, REPLY
from bot.render.common import Button, Screen, game_name, screen
from bot.screens import Screens
from sessions import (
    TABLE,
    Outcome,
    Preferences,
    Refusal,
    Session,
    SessionManager,
    ephemeral_purpose,
    hand_purpose,
)

log = logging.getLogger(__name__)

#: The purpose of the creator's own menu message (settings, computer levels) in a group.
MENU = "menu"


class Presenter(Screens):
    """Draws sessions into their messages."""

    def __init__(
        self,
        delivery: Delivery,
        prefs: Preferences,
        username: str = "",
        miniapp_url: str | None = None,
        miniapp_name: str = "play",
    ) -> None:
        super().__init__(username, miniapp_url, miniapp_name)
        self.delivery = delivery
        self.prefs = prefs
        #: the Mini App's open pages (None without one): told of every change drawn,
        #: and a player whose page is open gets no hand edit until it closes
        self.pages: Pages | None = None
        #: told of a daily table just finished by a move (bot.daily: the standing)
        self.daily_finished: Callable[[Session], Coroutine[Any, Any, None]] | None = None

    async def chat_language(self, chat_id: int) -> str:
        """The language a chat reads (a private chat's is its user's)."""
        scope = "user" if chat_id > 0 else "chat"
        return await self.prefs.language(scope, chat_id) or DEFAULT_LANGUAGE

    async def user_language(self, user_id: int) -> str:
        """A user's own language."""
        return await self.prefs.language("user", user_id) or DEFAULT_LANGUAGE

    # ------------------------------------------------------------ changes

    async def on_outcome(self, outcome: Outcome) -> None:
        """Draw what a committed change produced: every move (human, computer, timer)."""
        for event in outcome.events:
            if event.get("type") == "seat_handed_over" and event.get("user_id") is not None:
                await self.seat_released(
                    outcome.session, event["seat"], event["user_id"], event.get("why", "timeouts")
                )
        await self.refresh(outcome.session)
        session = outcome.session
        if (
            self.daily_finished is not None and session.daily is not None
            and session.status == "finished" and outcome.actor is not None
        ):
            self.delivery.spawn(self.daily_finished(session))

    async def refresh(
        self, session: Session, *, with_table: bool = True, only: Collection[str] | None = None
    ) -> None:
        """Bring the messages of ``session`` up to date: the table, and the hands its last
        change altered (``session.changed``; ``only``: exactly these purposes)."""
        await self._draw(session, with_table, only, How.KEEP)

    async def repost(self, session: Session) -> None:
        """Post the table anew at the bottom of its group (/table), and bring the hands
        its last change altered up to date."""
        await self._draw(session, True, None, How.REPOST)

    async def _draw(
        self, session: Session, with_table: bool, only: Collection[str] | None, table_how: How
    ) -> None:
        if self.pages is not None:
            self.pages.changed(session)
        # every screen drawn before any is handed over, then handed over in the order
        # they may take a free slot in (nothing runs in between)
        drawn = [found async for found in self._screens(session, with_table, only, table_how)]
        drawn.sort(key=lambda found: ASKING_ORDER.index(found[3].pace))
        for purpose, chat_id, shown, placement in drawn:
            self._put(session, purpose, chat_id, shown, placement)

    async def newest(self, session: Session, purpose: str) -> Screen | None:
        """The screen the session's message of ``purpose`` should show now (None if it
        shows nothing: no such seat, or the player's page holds it)."""
        newest = None
        async for found, _, shown, _ in self._screens(session, True, {purpose}, How.KEEP):
            if found == purpose:
                newest = shown
        return newest

    async def _screens(
        self, session: Session, with_table: bool, only: Collection[str] | None, table_how: How
    ) -> AsyncIterator[tuple[str, int, Screen, Placement]]:
        """Each message to draw: (purpose, chat, screen, placement)."""
        over = session.status in ("finished", "cancelled")
        pages = self.pages
        if only is not None:
            with_table = TABLE in only
        if with_table and session.kind == "group" and session.chat_id is not None:
            lang = await self.chat_language(session.chat_id)
            table = Placement(
                Where.GROUP,
                table_how,
                # when the budget is short, the player who must act gets her buttons
                # first; the table follows within about its group's interval, showing
                # every move made meanwhile in one edit
                Pace.TABLE if session.status == "running" else Pace.NORMAL,
                final=over,
            )
            yield TABLE, session.chat_id, self.table_screen(session, lang), table
        wanted = only if only is not None else session.changed
        lobby = session.kind == "group" and session.status == "lobby"  # no hands dealt yet
        hands = [] if lobby else [
            (seat, player.user_id) for seat, player in enumerate(session.seats)
            # a player whose cards and moves stand needs nothing changed
            if player.user_id is not None
            and (hand_purpose(seat) in wanted or ephemeral_purpose(seat) in wanted)
        ]
        held: Collection[int] = ()
        if pages is not None and hands:
            held = await pages.held(session, {user for _, user in hands})
        for seat, user_id in hands:
            if user_id in held:
                continue  # their page shows it: the hand messages catch up when it closes
            lang = await self.user_language(user_id)
            if hand_purpose(seat) in wanted and await self.prefs.reachable(user_id):
                screen_ = self.private_screen(session, seat, lang, self._table_message(session))
                yield (hand_purpose(seat), user_id, screen_,
                       hand_placement(session, seat, over))
            if session.kind == "group" and session.game is not None:  # its ephemeral hand, if shown
                hand = self.hand_screen(session, seat, lang, False)
                yield (ephemeral_purpose(seat), session.chat_id or 0, hand,
                       ephemeral_placement(session, seat, over))

    async def seat_released(self, session: Session, seat: int, user_id: int, why: str) -> None:
        """A computer took over ``seat`` (``why``: ``timeouts`` or ``left``): the human's hand
        messages say so, offer only "Take my seat back", and are not kept up to date any
        more."""
        lang = await self.user_language(user_id)
        gone = screen(
            t(lang, f"seat-released-{why}", game=game_name(session.game_id, lang)),
            [[Button(t(lang, "button-reclaim"), Reclaim(session.id).pack())]],
        )
        self._put(session, hand_purpose(seat), user_id, gone,
                  Placement(Where.PRIVATE, How.EDIT_ONLY, final=True))
        if session.kind == "group":
            self._put(session, ephemeral_purpose(seat), session.chat_id or 0, gone,
                      Placement(Where.EPHEMERAL, final=True))

    async def table_gone(self, session: Session) -> None:
        """The group of ``session`` is closed to the bot: its table message is no longer
        ours; the players' private messages show the end."""
        self.delivery.forget(session.id, TABLE)
        await self.refresh(session, with_table=False)

    # ------------------------------------------------------------ one player's messages

    async def post_private(self, session: Session, user_id: int, lang: str) -> None:
        """Post the user's private message for a session afresh: their hand (or the
        lobby), the offer to take back the seat a computer plays for them, or in a group
        lobby that their hand will come here. Refusal ``not_a_player`` if they sit there
        in no way."""
        seat = session.seat_of(user_id)
        if seat is None and any(p.stands_in_for == user_id for p in session.seats):
            game = game_name(session.game_id, lang)
            back = Button(t(lang, "button-reclaim"), Reclaim(session.id).pack())
            self.reply(user_id, screen(t(lang, "seat-stood-in", game=game), [[back]]))
            return
        if seat is None:
            raise Refusal("not_a_player")
        if session.kind == "group" and session.status == "lobby":
            game = t(lang, f"game-{session.game_id}")
            self.reply(user_id, screen(t(lang, "joined-private", game=game)))
            return
        hand = self.private_screen(session, seat, lang, self._table_message(session))
        self._put(session, hand_purpose(seat), user_id, hand,
                  Placement(Where.PRIVATE, How.REPOST, Pace.URGENT))

    def redraw_pressed(
        self, session: Session, user_id: int, lang: str, from_private: bool, query_id: str
    ) -> None:
        """Draw afresh the hand a stale press came from (its buttons are behind the
        table): the private chat's message, or in a group the presser's ephemeral hand
        (edited if it is kept, else sent anew, in the background: the group's budget
        may be spent)."""
        seat = session.seat_of(user_id)
        if seat is None or session.status != "running":
            return
        if from_private or session.kind != "group" or session.chat_id is None:
            self._put(session, hand_purpose(seat), user_id,
                      self.private_screen(session, seat, lang, self._table_message(session)),
                      Placement(Where.PRIVATE, How.REDRAW, Pace.URGENT))
            return
        self.delivery.spawn(self._redraw_ephemeral(session, seat, user_id, lang, query_id))

    async def _redraw_ephemeral(
        self, session: Session, seat: int, user_id: int, lang: str, query_id: str
    ) -> None:
        purpose = ephemeral_purpose(seat)
        if await self.delivery.find_ephemeral(session.id, purpose):
            hand = self.hand_screen(session, seat, lang, with_table=False)
            self._put(session, purpose, session.chat_id or 0, hand,
                      Placement(Where.EPHEMERAL, How.REDRAW))
            return
        try:
            await self.send_hand(session, seat, user_id, lang, query_id)
        except TelegramError as error:
            log.info("could not send the hand again (%s)", error)

    async def send_hand(
        self, session: Session, seat: int, user_id: int, lang: str, query_id: str | None
    ) -> None:
        """Send a group player's hand as an ephemeral message only they see (after the
        table's screen), kept current from then on; the Bot API's error if Telegram
        refuses it (the caller falls back to the private chat). Never from a handler:
        from work it :meth:`background` ed."""
        assert session.chat_id is not None
        hand = self.hand_screen(session, seat, lang, with_table=False)
        await self.delivery.send_ephemeral(
            session.id, ephemeral_purpose(seat), session.chat_id, user_id, hand,
            session.version, query_id, priority=NORMAL, thread=session.thread,
        )

    def keep_hand(self, session: Session, seat: int, lang: str) -> None:
        """Bring a player's ephemeral hand (just sent) up to ``session``."""
        hand = self.hand_screen(session, seat, lang, with_table=False)
        self._put(session, ephemeral_purpose(seat), session.chat_id or 0, hand,
                  Placement(Where.EPHEMERAL))

    # ------------------------------------------------------------ the creator's menu

    async def show_menu(
        self, session: Session, user_id: int, menu: Screen, query_id: str | None
    ) -> None:
        """Show the creator a menu. A private duel's lobby message becomes the menu; in a
        group the lobby stays for everyone and the menu is a message only the creator
        sees: ephemeral, kept current, or their private chat if that cannot be sent."""
        if session.kind != "group" or session.chat_id is None:
            seat = session.seat_of(user_id)
            if seat is not None:
                self._put(session, hand_purpose(seat), user_id, menu, Placement(Where.PRIVATE))
            return
        if await self.delivery.find_ephemeral(session.id, MENU):
            self._put(session, MENU, session.chat_id, menu, Placement(Where.EPHEMERAL))
            return
        self.delivery.spawn(self._send_menu(session, user_id, menu, query_id))

    async def _send_menu(
        self, session: Session, user_id: int, menu: Screen, query_id: str | None
    ) -> None:
        """The creator's group menu as an ephemeral message (in the background: the group's
        budget may be spent), else in their private chat."""
        assert session.chat_id is not None
        try:
            await self.delivery.send_ephemeral(
                session.id, MENU, session.chat_id, user_id, menu, session.version, query_id,
                thread=session.thread,
            )
        except TelegramError as error:
            log.info("menu not sent as an ephemeral message (%s); using the private chat", error)
            self._put(session, MENU, user_id, menu, Placement(Where.PRIVATE, pace=Pace.URGENT))

    def close_menu(self, session: Session) -> None:
        """The creator's group menu is done with (back to the lobby, dealt, cancelled)."""
        self.delivery.spawn(self.delivery.delete_ephemeral(session.id, MENU))

    # ------------------------------------------------------------ one-off messages

    def reply(self, chat_id: int, shown: Screen, thread: int | None = None) -> None:
        """A one-off message (a command's answer), after the chat's screens, in the
        background (:meth:`bot.delivery.Delivery.send`), in forum topic ``thread`` (None:
        the topic it was asked in)."""
        self.delivery.send(chat_id, shown, thread)

    async def reply_now(
        self, chat_id: int, shown: Screen, thread: int | None = None
    ) -> int | None:
        """A one-off message, waited for: its id, or None if the chat is closed to us.
        Never from a handler: from work it :meth:`background` ed."""
        return await self.delivery.send_now(chat_id, shown, thread)

    async def reply_ephemeral(
        self, chat_id: int, user_id: int, shown: Screen, query_id: str,
        thread: int | None = None,
    ) -> None:
        """A one-off ephemeral answer to a press in a group (after the group's screens),
        in forum topic ``thread`` (None: the topic it was asked in), not kept current;
        the Bot API's error if Telegram refuses it. Never from a handler: from work it
        :meth:`background` ed."""
        if thread is None:
            thread = asking_topic(chat_id)
        await self.delivery.post_ephemeral(
            chat_id, user_id, shown, query_id, priority=REPLY, thread=thread
        )

    async def ask(
        self, chat_id: int, text: str, placeholder: str, thread: int = 0
    ) -> int | None:
        """A question answered by replying, in forum topic ``thread``; its message id
        (None: the chat is closed). Never from a handler: from work it :meth:`background`
        ed."""
        return await self.delivery.ask(chat_id, text, placeholder, thread)

    def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a one-off message of ours (an answered question), in the background."""
        self.delivery.spawn(self.delivery.delete(chat_id, message_id))

    def document(self, chat_id: int, filename: str, content: bytes, caption: str) -> bool:
        """Post a document (a match record) in the background (in a group, in the topic
        it was asked for in); False if the same one is on its way there already."""
        return self.delivery.send_document(chat_id, filename, content, caption)

    def background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run work a handler must not wait for (a send, a search) in the background."""
        self.delivery.spawn(work)

    def background_once(self, key: tuple[Any, ...], work: Coroutine[Any, Any, None]) -> bool:
        """:meth:`background`, unless work under ``key`` still runs (False: dropped)."""
        return self.delivery.spawn_once(key, work)

    # ------------------------------------------------------------ restarts

    async def restore(self, manager: SessionManager) -> int:
        """After a restart: draw every session that has a message behind what is stored
        (a crash or an outage came between a commit and its delivery). Returns how many."""
        drawn = 0
        async for session, refs in manager.behind():
            behind = {ref.purpose for ref in refs if ref.shown < ref.wanted}
            stored = {ref.purpose for ref in refs}
            if session.status == "running":  # a hand never posted (a crash came first)
                behind |= {
                    hand_purpose(seat)
                    for seat, player in enumerate(session.seats)
                    if player.user_id is not None and hand_purpose(seat) not in stored
                }
            try:
                await self.refresh(session, only=behind)
            except Exception:
                log.exception("could not draw session %s", session.id)
            drawn += 1
        return drawn

    def _table_message(self, session: Session) -> int | None:
        """The id of a topic table's message, if delivery knows it (for the hands' link)."""
        return self.delivery.message_id(session.id, TABLE) if session.thread else None

    def _put(
        self, session: Session, purpose: str, chat_id: int, shown: Screen, placement: Placement
    ) -> None:
        place(self.delivery, session.id, purpose, chat_id, shown, session.version, placement,
              session.thread)
