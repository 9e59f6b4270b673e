"""What every handler needs: the bot's parts, languages, pop-ups for refusals."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Bot, CallbackQuery, Chat, Update, User
from telegram.constants import ParseMode
from telegram.ext import ContextTypes

from bot.http import call_raw
from bot.i18n import t
from bot.present import Languages, Presenter
from bot.sessions import Refusal, SessionManager
from bot.telegram_io import TelegramIO

KEY = "koloda"


@dataclass
class Koloda:
    """The parts of the running bot, shared by every handler (``bot_data["koloda"]``)."""

    manager: SessionManager
    io: TelegramIO
    presenter: Presenter
    langs: Languages


def parts(context: ContextTypes.DEFAULT_TYPE) -> Koloda:
    """The bot's parts from the handler context."""
    found = context.bot_data[KEY]
    assert isinstance(found, Koloda)
    return found


def refusal_text(lang: str, refusal: Refusal) -> str:
    """The localized pop-up for a refusal (an illegal move names its reason)."""
    if refusal.code == "illegal":
        key = f"illegal-{refusal.detail}"
        text = t(lang, key)
        return text if text != key else t(lang, "illegal-illegal")
    return t(lang, f"refusal-{refusal.code}")


async def lang_here(kol: Koloda, update: Update) -> str:
    """The language for a reply in this update's chat."""
    user = update.effective_user
    chat = update.effective_chat
    code = user.language_code if user else None
    if chat is not None and chat.type != Chat.PRIVATE:
        return await kol.langs.of_chat(chat.id, code)
    if user is not None:
        return await kol.langs.of_user(user.id, code)
    return "en"


async def lang_of(kol: Koloda, user: User) -> str:
    """A user's own language (for pop-ups, which only they see)."""
    return await kol.langs.of_user(user.id, user.language_code)


async def popup(query: CallbackQuery, text: str | None = None, url: str | None = None) -> None:
    """Answer a button press (Telegram shows a spinner until the bot does).

    Sent as plain JSON (:func:`bot.http.call_raw`): every press is answered, and
    PTB's typed call costs more CPU than the request. An answer is not a
    message, so no flood pacing applies to it.
    """
    params: dict[str, str] = {"callback_query_id": query.id}
    if text:
        params["text"] = text
    if url:
        params["url"] = url
    await call_raw(query.get_bot(), "answerCallbackQuery", params)


async def reply(update: Update, text: str) -> None:
    """Reply in the update's chat with HTML text."""
    chat = update.effective_chat
    if chat is not None:
        await chat.send_message(text, parse_mode=ParseMode.HTML, disable_web_page_preview=True)


def display_name(user: User) -> str:
    """How a user is called at the table."""
    return user.first_name or user.username or str(user.id)


def is_private(update: Update) -> bool:
    """True in a private chat with the bot."""
    chat = update.effective_chat
    return chat is not None and chat.type == Chat.PRIVATE


async def is_admin(update: Update, bot: Bot) -> bool:
    """True if the user is an administrator of the (group) chat."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or chat.type == Chat.PRIVATE:
        return False
    member = await bot.get_chat_member(chat.id, user.id)
    return member.status in ("administrator", "creator")
