"""Practice on screen: the Hint button, the lobby's Hints setting, the count on the
result, and the Take back button."""

from __future__ import annotations

from bot.callback import HintButton, HintsSetting, TakeBack
from bot.i18n import t
from bot.render.common import Button, action_label, seat_name
from games.cards import is_card
from sessions import Session


def hint_button(session: int, lang: str) -> Button:
    """💡 Hint, on the hand message of the player to move."""
    return Button(t(lang, "button-hint"), HintButton(session).pack())


def hint_text(action: str, lang: str) -> str:
    """The 💡 answer naming the strong computer's move (a card, or a bid or other
    action)."""
    key = "hint-card" if is_card(action.partition(":")[0]) else "hint-action"
    return t(lang, key, move=action_label(action, lang))


def take_back_button(session: int, lang: str) -> Button:
    """↩️ Take back, on the hand message of a player at a table of computers."""
    return Button(t(lang, "button-take-back"), TakeBack(session).pack())


def hints_button(session: int, on: bool, lang: str) -> Button:
    """The lobby's setting, showing its value; a press switches it."""
    label = t(lang, "button-hints-on" if on else "button-hints-off")
    return Button(label, HintsSetting(session, not on).pack())


def hints_used_lines(session: Session, lang: str) -> list[str]:
    """"💡 Hints used: Alice 2 · Bob 0" on the result of a table with hints on."""
    if not session.hints_on or session.status != "finished" or not session.hints_used:
        return []
    used = " · ".join(
        f"{seat_name(player, lang)} {session.hints_used[seat]}"
        for seat, player in enumerate(session.seats)
        if player.user_id is not None and seat < len(session.hints_used)
    )
    return [t(lang, "result-hints", used=used)] if used else []
