"""What every handler gets: the running bot's parts, through a typed context.

PTB builds a :class:`KolodaContext` for each handler call (``ContextTypes``),
so a handler reads ``context.koloda.manager`` — typed, no lookups by string.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.callback import BadCallback, Press
from bot.cluster import Cluster
from bot.config import Settings
from bot.delivery import DEFER, Delivery
from bot.i18n import DEFAULT_LANGUAGE
from bot.miniapp.live import Pages
from bot.miniapp.pace import UserPace
from bot.posts import Posts
from bot.present import Presenter
from bot.updates import KolodaBot
from sessions import Computer, Messages, Preferences, Session, SessionManager


@dataclass
class Koloda:
    """The parts of the running bot, assembled once at start-up (``bot.app``)."""

    manager: SessionManager
    prefs: Preferences
    messages: Messages
    delivery: Delivery
    presenter: Presenter


@dataclass(frozen=True)
class Arrival:
    """What an update is, worked out once when it arrives (the first handler group,
    ``bot.handlers.common.requests``) and read by every handler after."""

    #: the sender's own language: pop-ups, their private chat
    user_lang: str = DEFAULT_LANGUAGE
    #: the language of the update's chat (a group's; a private chat's is the user's)
    chat_lang: str = DEFAULT_LANGUAGE
    #: a button press's data, decoded (or why it could not be); None for other updates
    press: Press | BadCallback | None = None


#: The update being handled (each update is handled in a task of its own).
ARRIVAL: ContextVar[Arrival | None] = ContextVar("koloda_arrival", default=None)
_UNKNOWN = Arrival()


def arrival() -> Arrival:
    """The update being handled, as it was worked out when it arrived (outside an
    update: English, no button)."""
    return ARRIVAL.get() or _UNKNOWN


class BotData:
    """The application's ``bot_data``: what start-up needs, and the parts it builds."""

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.computer: Computer | None = None
        #: seconds a deferred screen may wait for a newer one (bot.delivery.DEFER)
        self.defer = DEFER
        self.koloda: Koloda | None = None
        #: the cluster duties, on a shared store (bot.cluster)
        self.cluster: Cluster[Session] | None = None
        #: the looks for the posts due: daily boards closed, seasons ended (bot.posts)
        self.posts: Posts | None = None
        #: the Mini App's open pages, with MINIAPP_URL set (bot.miniapp)
        self.pages: Pages | None = None
        #: how fast each user may call the Mini App's API (bot.miniapp.pace)
        self.pace: UserPace | None = None
        #: the Mini App's own server beside polling (an aiohttp AppRunner)
        self.miniapp_runner: Any = None


Bot = ExtBot[dict[str, Any]]


class KolodaContext(CallbackContext[Bot, dict[Any, Any], dict[Any, Any], BotData]):
    """PTB's handler context with typed access to the bot's parts."""

    @property
    def koloda(self) -> Koloda:
        """The running bot's parts (RuntimeError before start-up finished)."""
        parts = self.bot_data.koloda
        if parts is None:
            raise RuntimeError("the bot has not finished starting")
        return parts

    @property
    def arrival(self) -> Arrival:
        """This update's languages and decoded button (:func:`arrival`)."""
        return arrival()


CONTEXT_TYPES = ContextTypes(context=KolodaContext, bot_data=BotData)
KolodaApp = Application[KolodaBot, KolodaContext, dict[Any, Any], dict[Any, Any], BotData, Any]
