"""Settings from the environment.

``TELEGRAM_BOT_TOKEN`` (required), ``TELEGRAM_API_URL`` (the Bot API prefix the
token is appended to; default ``https://api.telegram.org/bot``) and
``DATABASE_URL`` (default ``sqlite:///koloda.sqlite3``; ``postgresql://…`` for
several workers). A missing or bad value
raises :class:`ConfigError` with one line a person can act on.

Webhook mode (instead of long polling): ``WEBHOOK_URL`` (the public HTTPS URL
Telegram posts updates to), ``WEBHOOK_SECRET`` (required with it: Telegram's
``secret_token``, 1–256 characters of ``A-Za-z0-9_-``, sent back in every
request's ``X-Telegram-Bot-Api-Secret-Token`` header) and ``PORT`` (where the
bot listens, default 8080) and ``HOST`` (the address it binds to, default
``0.0.0.0``: every interface).

``KOLODA_LEASE_SECONDS`` (default 30) is how long a worker's claim on a turn
timer or a computer's turn stands before another worker may take the work over
(the first one died); tests shorten it.

``KOLODA_FLOOD_LIMITS=off`` lifts the bot's own pacing of sends and edits
(Telegram's flood limits). Only for a local fake Bot API that enforces none,
such as the load benchmark (bench/load.py) measuring raw capacity; production
keeps the limits (the default, ``on``). ``KOLODA_FLOOD_SCALE`` (default 1)
runs those limits that many times faster, for a fake Bot API that enforces them
on a compressed clock (the cluster end-to-end test); production leaves it at 1.
Mini App (optional, docs/miniapp.md): ``MINIAPP_URL``, the public ``https://``
address of the page (the bot serves it on its own aiohttp server, at that URL's
path, in webhook mode beside the updates and otherwise beside polling on
``PORT``/``HOST``), and ``MINIAPP_NAME`` (default ``play``), the short name given
to @BotFather's ``/newapp``, for the direct links ``t.me/<bot>/<name>?startapp=…``
that open it from a group. Without ``MINIAPP_URL`` nothing is served and no
message changes.

``LOG_LEVEL`` (default INFO) is DEBUG, INFO, WARNING, ERROR or CRITICAL.

Numbers are plain ASCII digits (``bot.numbers``): ``PORT=８０``, ``nan`` or
``1e1`` are refused like any other malformed value, in one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.numbers import ascii_decimal, ascii_number

DEFAULT_API_URL = "https://api.telegram.org/bot"
DEFAULT_DATABASE_URL = "sqlite:///koloda.sqlite3"

DEFAULT_PORT = 8080
DEFAULT_HOST = "0.0.0.0"
DEFAULT_LEASE_SECONDS = 30.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# "<bot id>:<secret>", as @BotFather hands it out.
_TOKEN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,}$")
# A Mini App's short name, as /newapp takes it: "3-30 characters, a-z, 0-9 and _".
_APP_NAME = re.compile(r"^[A-Za-z0-9_]{3,30}$")
DEFAULT_MINIAPP_NAME = "play"
# setWebhook's secret_token: "1-256 characters. Only characters A-Z, a-z, 0-9, _ and -".
_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


# ?password=…, &sslpassword=…, libpq's password='…' (quoted, with escapes) or password=…
_PASSWORD_PARAMETER = re.compile(
    r"(?i)((?:^|[?&;\s])\w*password\s*=\s*)('(?:[^'\\]|\\.)*'?|[^&;\s#]*)"
)


class ConfigError(Exception):
    """A setting is missing or malformed; the message names it and says why."""


@dataclass(frozen=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str
    api_url: str
    database_url: str
    flood_limits: bool = True
    #: the public URL Telegram posts updates to; None: long polling
    webhook_url: str | None = None
    webhook_secret: str | None = None
    port: int = DEFAULT_PORT
    #: the address the webhook server binds to
    host: str = DEFAULT_HOST
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    flood_scale: float = 1.0
    log_level: str = "INFO"
    #: the public https:// address of the Mini App page; None: no Mini App
    miniapp_url: str | None = None
    #: the Mini App's short name at @BotFather (its direct links t.me/<bot>/<name>)
    miniapp_name: str = DEFAULT_MINIAPP_NAME

    @property
    def miniapp_path(self) -> str:
        """The path of ``miniapp_url``, ending in ``/``: where the page is served."""
        assert self.miniapp_url is not None
        path = urlsplit(self.miniapp_url).path or "/"
        return path if path.endswith("/") else path + "/"

    @property
    def webhook_path(self) -> str:
        """The path of ``webhook_url``: where the bot's server takes updates."""
        assert self.webhook_url is not None
        return urlsplit(self.webhook_url).path or "/"

    @property
    def shared(self) -> bool:
        """True when other processes may share the database: it is PostgreSQL, whether
        this one polls or takes webhooks (SQLite has one process: its writer)."""
        return self.database_url.startswith("postgres")

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
    """A URL (or libpq key-value string) without its passwords, for a log line: the
    user info's password up to the last ``@`` (a raw ``@`` in a password leaks
    nothing), and every ``password=`` parameter or key-value."""
    scheme, sep, rest = url.partition("://")
    at = rest.rfind("@")
    if sep and at > 0 and not rest.startswith("/"):
        user, colon, _ = rest[:at].partition(":")
        if colon:
            url = f"{scheme}://{user}:***{rest[at:]}"
    return _PASSWORD_PARAMETER.sub(r"\1***", url)


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
    webhook_url, webhook_secret = _webhook(env)
    miniapp_url, miniapp_name = _miniapp(env)
    return Settings(
        token=token,
        api_url=api_url,
        database_url=database_url,
        flood_limits=limits == "on",
        webhook_url=webhook_url,
        webhook_secret=webhook_secret,
        port=_port(env),
        host=_host(env),
        lease_seconds=_lease(env),
        flood_scale=_flood_scale(env),
        log_level=_log_level(env),
        miniapp_url=miniapp_url,
        miniapp_name=miniapp_name,
    )


def _log_level(env: Mapping[str, str]) -> str:
    raw = env.get("LOG_LEVEL", "").strip() or "INFO"
    if raw.upper() not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}")
    return raw.upper()


def _flood_scale(env: Mapping[str, str]) -> float:
    raw = env.get("KOLODA_FLOOD_SCALE", "").strip() or "1"
    scale = ascii_decimal(raw)
    if scale is None or not 1 <= scale <= 1000:
        raise ConfigError(f"KOLODA_FLOOD_SCALE must be a number from 1 to 1000, not {raw!r}")
    return scale


def _webhook(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    url = env.get("WEBHOOK_URL", "").strip() or None
    if url is None:
        return None, None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"WEBHOOK_URL must be the public https:// URL of the bot, not {url!r}")
    secret = env.get("WEBHOOK_SECRET", "").strip()
    if not secret:
        raise ConfigError(
            "WEBHOOK_SECRET is not set: webhook mode needs one (1-256 characters of A-Za-z0-9_-)"
        )
    if not _SECRET.match(secret):
        raise ConfigError(
            "WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)"
        )
    return url, secret


def _miniapp(env: Mapping[str, str]) -> tuple[str | None, str]:
    url = env.get("MINIAPP_URL", "").strip() or None
    name = env.get("MINIAPP_NAME", "").strip() or DEFAULT_MINIAPP_NAME
    if not _APP_NAME.match(name):
        raise ConfigError(
            f"MINIAPP_NAME must be the Mini App's short name (3-30 of A-Za-z0-9_), not {name!r}"
        )
    if url is None:
        return None, name
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname or parts.fragment or parts.query:
        raise ConfigError(
            "MINIAPP_URL must be the public https:// address of the Mini App page"
            f" (no query or #fragment), not {url!r}"
        )
    return url, name


def _port(env: Mapping[str, str]) -> int:
    raw = env.get("PORT", "").strip() or str(DEFAULT_PORT)
    port = ascii_number(raw, 5)
    if port is None or not 0 < port < 65536:
        raise ConfigError(f"PORT must be a TCP port number (1-65535), not {raw!r}")
    return port


def _host(env: Mapping[str, str]) -> str:
    raw = env.get("HOST", "").strip() or DEFAULT_HOST
    if not re.fullmatch(r"[A-Za-z0-9.:_-]{1,253}", raw):
        raise ConfigError(f"HOST must be an address or host name to bind to, not {raw!r}")
    return raw


def _lease(env: Mapping[str, str]) -> float:
    raw = env.get("KOLODA_LEASE_SECONDS", "").strip() or str(DEFAULT_LEASE_SECONDS)
    seconds = ascii_decimal(raw)
    if seconds is None or not 0.5 <= seconds <= 3600:
        raise ConfigError(f"KOLODA_LEASE_SECONDS must be seconds between 0.5 and 3600, not {raw!r}")
    return seconds
