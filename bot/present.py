"""From a session to every message that shows it.

:class:`Presenter` decides which screens a session needs — the group table
(lobby, play, result), each human's private hand message, ephemeral hands —
draws them (pure functions of the stored session, :mod:`bot.render`) and hands
them to :class:`~bot.delivery.Delivery`. It reads languages and reachability
and writes nothing. It is also the manager's subscriber, so computer moves and
timeouts are drawn like human moves.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from bot.callback import Reclaim
from bot.delivery import Delivery
from bot.i18n import DEFAULT_LANGUAGE, t
from bot.render.common import Button, Screen, game_name, screen
from bot.render.hints import hint_button, hints_button, hints_used_lines, take_back_button
from bot.render.lobby import render_lobby
from bot.render.ratings import rating_change_lines
from bot.render.record import deal_button, record_button
from bot.render.result import render_result
from bot.render.table import render_hand, render_table, table_text
from games import REGISTRY
from games.base import View
from sessions import (
    OVERALL,
    TABLE,
    Outcome,
    Preferences,
    Session,
    SessionManager,
    ephemeral_purpose,
    hand_purpose,
    seats_allowed,
    takeback_allowed,
)

log = logging.getLogger(__name__)

#: Table texts remembered (a move draws one for the group and one per hand).
TEXTS_KEPT = 64


class Presenter:
    """Draws sessions into their messages."""

    def __init__(self, delivery: Delivery, prefs: Preferences, username: str = "") -> None:
        self.delivery = delivery
        self.prefs = prefs
        self.username = username
        self._texts: dict[tuple[Any, ...], str] = {}  # oldest first, at most TEXTS_KEPT

    def link(self, payload: str) -> str:
        """A deep link that opens the private chat with the bot: t.me/<bot>?start=…"""
        return f"https://t.me/{self.username}?start={payload}"

    def hand_link(self, session: Session) -> str:
        """The deep link that shows one's hand of ``session`` in the private chat (by the
        session's unguessable token: it shows nothing to whoever does not sit there)."""
        return self.link(f"h{session.link}")

    async def chat_language(self, chat_id: int) -> str:
        """The language a chat reads (a private chat's is its user's)."""
        scope = "user" if chat_id > 0 else "chat"
        return await self.prefs.language(scope, chat_id) or DEFAULT_LANGUAGE

    async def user_language(self, user_id: int) -> str:
        """A user's own language."""
        return await self.prefs.language("user", user_id) or DEFAULT_LANGUAGE

    async def on_outcome(self, outcome: Outcome) -> None:
        """Draw what a change produced (the manager's subscriber, and every human move)."""
        for event in outcome.events:
            if event.get("type") == "seat_handed_over" and event.get("user_id") is not None:
                await self.seat_released(
                    outcome.session, event["seat"], event["user_id"], event.get("why", "timeouts")
                )
        await self.refresh(outcome.session, actor=outcome.actor)

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
            text = table_text(public, session.seats, lang, viewer)
            self._texts[key] = text
            if len(self._texts) > TEXTS_KEPT:
                del self._texts[next(iter(self._texts))]
        return text

    async def refresh(
        self,
        session: Session,
        *,
        repost_table: bool = False,
        with_table: bool = True,
        actor: int | None = None,
        everything: bool = False,
        only: Collection[str] | None = None,
    ) -> None:
        """Bring the messages of ``session`` up to date: the table, and the hands its last
        change altered (``session.changed``; ``everything``: every hand; ``only``:
        exactly these purposes). ``actor`` is the seat whose move it was."""
        over = session.status in ("finished", "cancelled")
        if only is not None:
            with_table = TABLE in only
        if with_table and session.kind == "group" and session.chat_id is not None:
            lang = await self.chat_language(session.chat_id)
            self.delivery.show(
                session.id,
                TABLE,
                session.chat_id,
                self.table_screen(session, lang),
                session.version,
                repost=repost_table,
                final=over,
                # when the budget is short, tables go first: everyone sees the move
                # and whose turn is next there (the hands with new buttons follow)
                urgent=session.status == "running",
            )
        for seat, player in enumerate(session.seats):
            if player.user_id is None:
                continue
            if session.kind == "group" and session.status == "lobby":
                continue
            wanted = only if only is not None else session.changed
            private = everything or hand_purpose(seat) in wanted
            if not private and ephemeral_purpose(seat) not in wanted:
                continue  # nothing this player needs changed: their cards and moves stand
            # only the player to move needs their hand at once; the others' changes (the
            # card just played, one drawn meanwhile, a new deal) may wait and go out
            # with their next turn's buttons, in one edit
            deferred = (
                session.kind == "group" and session.status == "running" and session.to_move != seat
            )
            lang = await self.user_language(player.user_id)
            if private and await self.prefs.reachable(player.user_id):
                self.delivery.show(
                    session.id,
                    hand_purpose(seat),
                    player.user_id,
                    self.private_screen(session, seat, lang),
                    session.version,
                    # a group table that ends only updates hand messages already there
                    edit_only=session.kind == "group" and session.status != "running",
                    final=over,
                    deferred=deferred,
                )
            purpose = ephemeral_purpose(seat)
            if session.kind == "group" and session.game is not None:  # its ephemeral hand, if shown
                hand = self.hand_screen(session, seat, lang, False)
                self.delivery.show_ephemeral(session.id, purpose, hand, session.version, final=over)

    async def seat_released(self, session: Session, seat: int, user_id: int, why: str) -> None:
        """A computer took over ``seat`` (``why``: ``timeouts`` or ``left``): the human's hand
        messages say so, offer only "Take my seat back", and are not kept up to date any
        more."""
        lang = await self.user_language(user_id)
        gone = screen(
            t(lang, f"seat-released-{why}", game=game_name(session.game_id, lang)),
            [[Button(t(lang, "button-reclaim"), Reclaim(session.id).pack())]],
        )
        self.delivery.show(
            session.id,
            hand_purpose(seat),
            user_id,
            gone,
            session.version,
            edit_only=True,
            final=True,
        )
        if session.kind == "group":
            purpose = ephemeral_purpose(seat)
            self.delivery.show_ephemeral(session.id, purpose, gone, session.version, final=True)

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
            return _with_records(table, session, public, lang)
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
        records = [deal_button(session.id, session.game.deal_no, lang),
                   record_button(session.id, lang)]
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
        practice = [hint_button(session.id, lang)] if session.hints_on else []
        if takeback_allowed(session) and session.moves > 0:
            practice.append(take_back_button(session.id, lang))
        return screen(hand.text, [*hand.rows, practice])

    def private_screen(self, session: Session, seat: int, lang: str) -> Screen:
        """What a player's private chat shows for the session."""
        if session.status == "lobby":
            return self.lobby_screen(session, lang)
        if session.status == "running" and session.game is not None:
            # a group's table carries what everyone sees; a duel's hand message is its table
            hand = self.hand_screen(session, seat, lang, with_table=session.kind != "group")
            return _with_records(hand, session, session.game.view(None), lang)
        return self.result_screen(session, lang)

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
