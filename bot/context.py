"""What every handler gets: the running bot's parts, through a typed context.

PTB builds a :class:`KolodaContext` for each handler call (``ContextTypes``),
so a handler reads ``context.koloda.manager`` — typed, no lookups by string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.cluster import Cluster
from bot.config import Settings
from bot.delivery import Delivery
from bot.present import Presenter
from bot.updates import KolodaBot
from sessions import Computer, Messages, Preferences, SessionManager


@dataclass
class Koloda:
    """The parts of the running bot, assembled once at start-up (``bot.app``)."""

    manager: SessionManager
    prefs: Preferences
    messages: Messages
    delivery: Delivery
    presenter: Presenter


class BotData:
    """The application's ``bot_data``: what start-up needs, and the parts it builds."""

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.computer: Computer | None = None
        #: seconds a deferred screen may wait for a newer one (bot.delivery.DEFER)
        self.defer = 10.0
        self.koloda: Koloda | None = None
        #: the cluster duties, on a shared store (bot.cluster)
        self.cluster: Cluster | None = None


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


CONTEXT_TYPES = ContextTypes(context=KolodaContext, bot_data=BotData)
KolodaApp = Application[KolodaBot, KolodaContext, dict[Any, Any], dict[Any, Any], BotData, Any]
