"""Practice: 💡 Hint on a hand message, the table's Hints setting, and ↩️ Take back."""

from __future__ import annotations

import logging

from telegram import Update

from bot.callback import HintButton, HintsSetting, TakeBack
from bot.context import Koloda
from bot.handlers.common import Handler, button, current_user, popup, refusal_text, user_lang
from bot.i18n import t
from bot.render.hints import hint_text
from sessions import Refusal

log = logging.getLogger(__name__)


async def on_hint(kol: Koloda, update: Update, press: HintButton) -> str | None:
    """💡 Hint: a pop-up naming the strong computer's move for the presser's seat,
    computed from that seat's view in the background — the update counts as handled
    at once, so the bot goes on with everyone's presses (and the turn timer runs on);
    the press is answered when the hint is ready."""
    query, user = update.callback_query, current_user(update)
    assert query is not None
    lang = user_lang()

    async def answer() -> None:
        try:
            action = await kol.manager.hint(press.session, user.id)
        except Refusal as refusal:
            await popup(query, refusal_text(lang, refusal))
            return
        except Exception:  # the computer failed: say so, never leave the press spinning
            log.exception("no hint for session %s", press.session)
            await popup(query, t(lang, "hint-failed"))
            return
        await popup(query, hint_text(action, lang))

    kol.presenter.background(answer())
    return ""  # answered by the background task


async def on_hints_setting(kol: Koloda, update: Update, press: HintsSetting) -> str | None:
    """The creator switches the table's hints on or off."""
    session = await kol.manager.set_hints(press.session, current_user(update).id, press.value)
    await kol.presenter.refresh(session)
    return None


async def on_take_back(kol: Koloda, update: Update, press: TakeBack) -> str | None:
    """↩️ Take back: the player's last move and the computers' replies are undone
    (logged as a take-back), and every message of the table is drawn again."""
    outcome = await kol.manager.take_back(press.session, current_user(update).id)
    await kol.presenter.on_outcome(outcome)
    return None


HANDLERS: list[Handler] = [
    button(HintButton, on_hint),
    button(HintsSetting, on_hints_setting),
    button(TakeBack, on_take_back),
]
