"""Settings from the environment.

``TELEGRAM_BOT_TOKEN`` (required), ``TELEGRAM_API_URL`` (the Bot API prefix the
token is appended to; default ``https://api.telegram.org/bot``) and
``DATABASE_URL`` (default ``sqlite:///koloda.sqlite3``; ``postgresql://…`` for
several workers). A missing or bad value
raises :class:`ConfigError` with one line a person can act on.

``KOLODA_FLOOD_LIMITS=off`` lifts the bot's own pacing of sends and edits
(Telegram's flood limits). Only for a local fake Bot API that enforces none,
such as the load benchmark (bench/load.py) measuring raw capacity; production
keeps the limits (the default, ``on``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_API_URL = "https://api.telegram.org/bot"
DEFAULT_DATABASE_URL = "sqlite:///koloda.sqlite3"

# "<bot id>:<secret>", as @BotFather hands it out.
_TOKEN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,}$")


class ConfigError(Exception):
    """A setting is missing or malformed; the message names it and says why."""


@dataclass(frozen=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str
    api_url: str
    database_url: str
    flood_limits: bool = True

    @property
    def base_url(self) -> str:
        """Prefix for Bot API methods (PTB appends the token)."""
        return self.api_url

    @property
    def base_file_url(self) -> str:
        """Prefix for file downloads: ``…/bot`` becomes ``…/file/bot``."""
        head, sep, tail = self.api_url.rpartition("/")
        return f"{head}/file/{tail}" if sep else self.api_url


def masked_url(url: str) -> str:
    """A URL without its password (it goes into a log line)."""
    return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", url)


def load_settings(env: Mapping[str, str]) -> Settings:
    """Read and check the settings; raise :class:`ConfigError` on a bad one."""
    token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set: get a token from @BotFather")
    if not _TOKEN.match(token):
        raise ConfigError("TELEGRAM_BOT_TOKEN does not look like a bot token (<digits>:<secret>)")
    api_url = env.get("TELEGRAM_API_URL", "").strip() or DEFAULT_API_URL
    if not re.match(r"^https?://[^/\s]+", api_url):
        raise ConfigError(f"TELEGRAM_API_URL must be an http(s) URL, not {api_url!r}")
    database_url = env.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL
    sqlite = database_url.startswith("sqlite:///") and database_url != "sqlite:///"
    if not sqlite and not database_url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(
            "DATABASE_URL must look like sqlite:///path/to/file.sqlite3 or"
            f" postgresql://user:password@host/db, not {masked_url(database_url)!r}"
        )
    limits = env.get("KOLODA_FLOOD_LIMITS", "").strip().lower() or "on"
    if limits not in ("on", "off"):
        raise ConfigError(f"KOLODA_FLOOD_LIMITS must be on or off, not {limits!r}")
    return Settings(
        token=token, api_url=api_url, database_url=database_url, flood_limits=limits == "on"
    )
