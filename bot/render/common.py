"""Shared pieces of every screen: the screen type, escaping, cards, actions.

Rendering is pure: views and seats in, text and buttons out. Text is Telegram
HTML; anything that came from a user (names) is escaped here and nowhere else,
and every text is cut to Telegram's limit by :func:`screen` (bot.render.text).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.callback import MAX_BYTES, Move
from bot.i18n import t, t_or
from bot.numbers import ascii_number
from bot.render.text import fit, shown_name
from games.cards import SUIT_SYMBOLS, display, is_card

MAX_TEXT = 4096  # Telegram's limit on a message's text, in characters after parsing
MAX_CAPTION = 1024  # and on a document's caption
MAX_BUTTONS = 100  # Telegram's limit on buttons in one inline keyboard


class SeatLike(Protocol):
    """Who sits in a seat (``sessions.Player`` satisfies it)."""

    @property
    def user_id(self) -> int | None: ...

    @property
    def name(self) -> str: ...

    @property
    def level(self) -> str | None: ...


@dataclass(frozen=True)
class Button:
    """One inline button: callback ``data``, a ``url``, or a Mini App to open
    (``web_app``: its https URL; Telegram takes these in private chats only)."""

    label: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None


@dataclass(frozen=True)
class Screen:
    """A rendered message: HTML text and rows of buttons."""

    text: str
    rows: tuple[tuple[Button, ...], ...] = field(default=())

    def markup(self) -> InlineKeyboardMarkup | None:
        """The rows as Telegram's inline keyboard (None when there are none)."""
        if not self.rows:
            return None
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        b.label, callback_data=b.data, url=b.url,
                        web_app=WebAppInfo(b.web_app) if b.web_app else None,
                    )
                    for b in row
                ]
                for row in self.rows
            ]
        )

    def key(self) -> tuple[str, tuple[tuple[Button, ...], ...]]:
        """What decides whether an edit would change anything."""
        return (self.text, self.rows)


def screen(text: str, rows: Iterable[Iterable[Button]] = ()) -> Screen:
    """Build a screen, checking Telegram's limits (a long text is cut at a line, by
    what Telegram counts: the characters shown)."""
    frozen = tuple(tuple(row) for row in rows if row)
    text = fit(text, MAX_TEXT)
    for row in frozen:
        for b in row:
            assert b.data is None or len(b.data.encode()) <= MAX_BYTES, b.data
    return Screen(text, frozen)


def grid(buttons: Sequence[Button], width: int) -> list[list[Button]]:
    """Lay ``buttons`` out in rows of ``width``."""
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def esc(text: str) -> str:
    """Escape user-provided text for Telegram HTML."""
    return html.escape(text, quote=False)


def seat_name(seat: SeatLike, lang: str) -> str:
    """A seat's display name as HTML (:func:`shown_name`: cleaned, escaped, isolated);
    computers marked with a robot (one playing for a human who left or timed out
    names them: "🤖 for Alice")."""
    if seat.user_id is None:
        if getattr(seat, "stands_in_for", None) is not None:
            return t(lang, "computer-for", name=shown_name(seat.name))
        level = t(lang, f"level-{seat.level or 'normal'}")
        return esc(t(lang, "computer-name", level=level))
    return shown_name(seat.name)


def mention(seat: SeatLike, lang: str) -> str:
    """A clickable mention of a human seat (notifies them), plain for a computer."""
    if seat.user_id is None:
        return seat_name(seat, lang)
    return f'<a href="tg://user?id={seat.user_id}">{shown_name(seat.name)}</a>'


def card(code: str, lang: str) -> str:
    """One card as people write it: ``Д♠`` / ``Q♠``."""
    return display(code, lang)


def cards(codes: Iterable[str], lang: str) -> str:
    """Cards separated by spaces, or a dash when there are none."""
    shown = [display(c, lang) for c in codes]
    return " ".join(shown) if shown else "—"


def suit(code: str) -> str:
    """A suit letter as its symbol."""
    return SUIT_SYMBOLS.get(code, code)


def game_name(game_id: str, lang: str) -> str:
    """The localized name of a game."""
    return t(lang, f"game-{game_id}")


_CARD_RUN = re.compile(r"(?:[AKQJT2-9][SHDC])+")


def cards_in(text: str, lang: str) -> str:
    """Replace every run of card codes in ``text`` by displayed cards."""

    def show(match: re.Match[str]) -> str:
        run = match.group(0)
        return "".join(display(run[i : i + 2], lang) for i in range(0, len(run), 2))

    return _CARD_RUN.sub(show, text)


def action_label(action: str, lang: str) -> str:
    """A button label for a rules action, in the player's words."""
    if is_card(action):
        return display(action, lang)
    verb, _, arg = action.partition(":")
    if not arg:
        return t_or(lang, f"action-{verb}", action)
    if is_card(verb):
        if arg in SUIT_SYMBOLS:  # a jack naming the next suit (Mau-Mau)
            return t(lang, "action-jack", card=display(verb, lang), suit=suit(arg))
        # a lead declared "as" something (Two-Ten-Jack's AS:trump, AS:spade)
        what = t_or(lang, f"as-{arg}", arg)
        return t(lang, "action-card-as", card=display(verb, lang), what=what)
    if verb in ("trump", "suit"):
        return t(lang, f"action-{verb}", suit=suit(arg))
    if verb == "bid":
        return t(lang, "action-bid", n=arg)
    first, _, second = arg.partition(":")
    if verb == "set" and second:
        shown = " ".join(display(first + s, lang) for s in second if s in SUIT_SYMBOLS)
        return t(lang, "action-set", what=shown)
    if verb == "run" and second:
        low, _, high = second.partition("-")
        return t(
            lang, "action-run", what=f"{display(low + first, lang)}–{display(high + first, lang)}"
        )
    if verb == "lay" and is_card(first) and (pile := ascii_number(second, 3)) is not None:
        return t(lang, "action-lay-on", card=display(first, lang), n=pile + 1)
    return t_or(lang, f"action-{verb}", cards_in(action, lang))


def move_buttons(session: int, version: int, legal: Sequence[str], lang: str) -> list[list[Button]]:
    """A button per legal action: cards in rows of six, other actions in rows of three."""
    card_buttons = [
        Button(action_label(a, lang), Move(session, version, a).pack()) for a in legal if is_card(a)
    ]
    other = [
        Button(action_label(a, lang), Move(session, version, a).pack())
        for a in legal
        if not is_card(a)
    ]
    room = MAX_BUTTONS - 10 - len(card_buttons)  # keep space for the message's own buttons
    if len(other) > room:  # Rummy can offer many sub-runs: keep the longest melds
        other = sorted(other, key=lambda b: -len(b.label))[:room]
    wide = any(len(b.label) > 12 for b in other)
    return grid(card_buttons, 6) + grid(other, 2 if wide else 4)


def scores_line(values: Sequence[Any]) -> list[str]:
    """Scores as display strings (ints stay ints, minus as a real minus sign)."""
    return [str(v).replace("-", "−") for v in values]
