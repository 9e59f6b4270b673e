"""What each message of a session shows: pure drawings of the stored session.

:class:`Screens` turns a :class:`~sessions.Session` into the group's table
(lobby, play, result) and each seat's hand or private message, through
:mod:`bot.render`. It reads nothing and sends nothing; :class:`bot.present.
Presenter` decides where each screen goes.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import t
from bot.render.common import Button, Screen, screen
from bot.render.hints import hint_button, hints_button, hints_used_lines, take_back_button
from bot.render.lobby import render_lobby
from bot.render.ratings import rating_change_lines
from bot.render.record import deal_button, record_button
from bot.render.result import render_result
from bot.render.table import render_hand, render_table, table_text
from bot.topics import GENERAL, message_link
from games import REGISTRY
from games.base import View
from games.verify import short_hash
from sessions import OVERALL, Session, seats_allowed, takeback_allowed

#: Table texts remembered (a move draws one for the group and one per hand).
TEXTS_KEPT = 64


class Screens:
    """Draws sessions; ``username`` is the bot's, for its deep links; ``miniapp_url``
    (None: no Mini App) and ``miniapp_name`` the page's address and short name."""

    def __init__(
        self, username: str = "", miniapp_url: str | None = None, miniapp_name: str = "play"
    ) -> None:
        self.username = username
        self.miniapp_url = miniapp_url
        self.miniapp_name = miniapp_name
        self._texts: dict[tuple[Any, ...], str] = {}  # oldest first, at most TEXTS_KEPT

    def link(self, payload: str) -> str:
        """A deep link that opens the private chat with the bot: t.me/<bot>?start=…"""
        return f"https://t.me/{self.username}?start={payload}"

    def hand_link(self, session: Session) -> str:
        """The deep link that shows one's hand of ``session`` in the private chat (by the
        session's unguessable token: it shows nothing to whoever does not sit there)."""
        return self.link(f"h{session.link}")

    def app_link(self, session: Session) -> str | None:
        """The direct Mini App link that opens the table's page from a group:
        t.me/<bot>/<app>?startapp=<table> (None without a Mini App)."""
        if self.miniapp_url is None or not self.username:
            return None
        return f"https://t.me/{self.username}/{self.miniapp_name}?startapp={session.link}"

    def app_page(self, session: Session) -> str | None:
        """The page's URL for a web_app button (private chats only): MINIAPP_URL with the
        table's token, which the page reads (None without a Mini App)."""
        if self.miniapp_url is None:
            return None
        return f"{self.miniapp_url}?t={session.link}"

    def table_text(
        self, session: Session, lang: str, viewer: int | None = None, view: View | None = None
    ) -> str:
        """The text of the table as it is now, for ``viewer`` (None: the group).

        It is drawn from the public view, so the group's table and every hand
        message share one drawing per language, unless the game shows some
        seats' cards publicly (each viewer then skips their own). ``view`` is
        the viewer's own view (the public one for the group) if the caller has it.
        """
        public = view if viewer is None else None
        if viewer is not None:
            view = view if view is not None else session.view(viewer)
            if not view.get("known_cards"):
                viewer = None
        seats = tuple((p.user_id, p.name, p.level, p.stands_in_for) for p in session.seats)
        key = (session.id, session.version, lang, viewer, seats)
        text = self._texts.get(key)
        if text is None:
            public = public if public is not None else session.view(None)
            seal = short_hash(session.seed) if session.seed is not None else None
            text = table_text(public, session.seats, lang, viewer, seal)
            self._texts[key] = text
            if len(self._texts) > TEXTS_KEPT:
                del self._texts[next(iter(self._texts))]
        return text

    def table_screen(self, session: Session, lang: str) -> Screen:
        """The group message: lobby, table or result."""
        if session.status == "lobby":
            return self.lobby_screen(session, lang)
        if session.status == "running" and session.game is not None:
            public = session.view(None)
            table = render_table(
                session.id,
                public,
                session.seats,
                lang,
                self.hand_link(session) if self.username else None,
                session.timer,
                table=self.table_text(session, lang, view=public),
            )
            table = _with_records(table, session, public, lang)
            link = self.app_link(session)
            if link is None:
                return table
            return screen(table.text, [*table.rows, [Button(t(lang, "button-app"), url=link)]])
        return self.result_screen(session, lang)

    def lobby_screen(self, session: Session, lang: str) -> Screen:
        """The lobby of ``session``."""
        game = REGISTRY[session.game_id]
        lobby = render_lobby(
            session.id,
            session.game_id,
            session.kind,
            session.seats,
            seats_allowed(session) if session.kind == "group" else game.min_players,
            game.options_schema,
            session.options,
            session.timer,
            lang,
        )
        return screen(lobby.text, [*lobby.rows, [hints_button(session.id, session.hints_on, lang)]])

    def result_screen(self, session: Session, lang: str) -> Screen:
        """The end of the match (or its cancellation)."""
        scores = list(session.game.scores) if session.game is not None else []
        result: dict[str, Any] = session.result or {"scores": scores, "winners": []}
        drawn = render_result(
            session.id,
            session.game_id,
            result,
            session.seats,
            lang,
            cancelled=session.status == "cancelled",
            lowest_wins=REGISTRY[session.game_id].lowest_wins,
            notes=[
                *([t(lang, "result-unrated")] if session.taken_back else []),
                *rating_change_lines(session.ratings, session.seats, _scope(session), lang),
                *hints_used_lines(session, lang),
            ],
        )
        if session.status != "finished" or session.game is None:
            return drawn
        last = session.game.deal_no
        if session.daily is not None and not session.game.finished:
            last = max(last - 1, 0)  # its one deal is over; the match's next one is not
        records = [deal_button(session.id, last, lang), record_button(session.id, lang)]
        if session.daily is not None:  # played once: no "Play again", no chat tally
            return screen(drawn.text, [records])
        return screen(drawn.text, [*drawn.rows, records])

    def hand_screen(self, session: Session, seat: int, lang: str, with_table: bool) -> Screen:
        """A seat's hand with its move buttons."""
        assert session.game is not None
        view = session.view(seat)
        hand = render_hand(
            session.id,
            session.version,
            view,
            session.seats,
            lang,
            table=self.table_text(session, lang, seat, view) if with_table else None,
        )
        if session.to_move != seat:
            return hand
        buttons = {"hint": hint_button, "take-back": take_back_button}
        practice = [buttons[action](session.id, lang) for action in practice_actions(session, seat)]
        return screen(hand.text, [*hand.rows, practice])

    def private_screen(
        self, session: Session, seat: int, lang: str, table_message: int | None = None
    ) -> Screen:
        """What a player's private chat shows for the session; a hand of a table in a
        forum topic links to the table there (its message ``table_message``, if known)."""
        if session.status == "lobby":
            return self.lobby_screen(session, lang)
        if session.status == "running" and session.game is not None:
            # a group's table carries what everyone sees; a duel's hand message is its table
            hand = self.hand_screen(session, seat, lang, with_table=session.kind != "group")
            hand = _with_records(hand, session, session.view(None), lang)
            rows = list(hand.rows)
            link = table_link(session, table_message)
            if link is not None:
                rows.append((Button(t(lang, "button-open-table"), url=link),))
            page = self.app_page(session)
            if page is not None:
                rows.append((Button(t(lang, "button-app"), web_app=page),))
            return hand if len(rows) == len(hand.rows) else screen(hand.text, rows)
        return self.result_screen(session, lang)


def practice_actions(session: Session, seat: int) -> list[str]:
    """What the seat's hand offers beside its moves, on its turn only: ``hint`` (hints
    on) and ``take-back`` (a table of computers, after a move)."""
    if session.to_move != seat:
        return []
    actions = ["hint"] if session.hints_on else []
    if takeback_allowed(session) and session.moves > 0:
        actions.append("take-back")
    return actions


def table_link(session: Session, message_id: int | None) -> str | None:
    """The ``t.me/c/…`` link to a group table in a forum topic (to its message there when
    ``message_id`` is known, else to the topic); None outside topics."""
    if session.kind != "group" or session.chat_id is None or session.thread <= GENERAL:
        return None
    return message_link(session.chat_id, message_id, session.thread)


def _scope(session: Session) -> int:
    """The ratings a session's result shows: its group chat's, or overall (a duel)."""
    if session.kind == "group" and session.chat_id:
        return session.chat_id
    return OVERALL


def _with_records(drawn: Screen, session: Session, public: View, lang: str) -> Screen:
    """A running table with a 📜 Deal button for the deal before this one, if any."""
    deal_no = int(public.get("deal_no") or 0)
    if deal_no < 1:
        return drawn
    return screen(drawn.text, [*drawn.rows, [deal_button(session.id, deal_no - 1, lang)]])
