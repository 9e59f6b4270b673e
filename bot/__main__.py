"""Entry point: ``python -m bot`` — read the settings, then serve Telegram's updates.

This is where the transport is chosen: long polling through the Application's
own Updater (PTB's ``run_polling``), or with ``WEBHOOK_URL`` set the aiohttp
server of ``bot.webhook``. Both run the Application's lifecycle hooks the same
way (``bot.app``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import TYPE_CHECKING

from telegram import Update
from telegram.error import InvalidToken, TelegramError

from bot.config import ConfigError, Settings, load_settings

if TYPE_CHECKING:
    from sessions import Computer


def main() -> int:
    """Run the bot; a bad setting is one line on stderr and exit code 2."""
    try:
        settings = load_settings(os.environ)
    except ConfigError as error:
        print(f"koloda: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("telegram.ext").addFilter(_no_bootstrap_error)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request otherwise

    from bot.app import DatabaseUnavailable
    from sessions.computer import ComputerPlayer

    computer = ComputerPlayer()
    try:
        computer.start()
        run(settings, computer)
    except InvalidToken:
        print(
            "koloda: Telegram rejected TELEGRAM_BOT_TOKEN; check it with @BotFather",
            file=sys.stderr,
        )
        return 2
    except DatabaseUnavailable as error:
        print(f"koloda: {error}", file=sys.stderr)
        return 2
    except TelegramError as error:
        print(f"koloda: cannot reach the Bot API at {settings.api_url}: {error}", file=sys.stderr)
        return 1
    finally:
        computer.close(wait=True)
    return 0


def run(settings: Settings, computer: Computer) -> None:
    """Serve until interrupted: long polling, or webhook mode with ``WEBHOOK_URL`` set."""
    from bot.app import build_application

    app = build_application(settings, computer)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        if settings.webhook_url is not None:
            from bot import webhook  # aiohttp is loaded only to serve webhooks

            loop.run_until_complete(webhook.serve(app, settings))
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES, close_loop=False)
    finally:
        # a failed start-up skips PTB's shutdown: close the HTTP clients ourselves
        loop.run_until_complete(app.bot.shutdown())
        loop.close()


def _no_bootstrap_error(record: logging.LogRecord) -> bool:
    """PTB logs a failed start-up (getMe, deleteWebhook) at ERROR with its traceback and
    then raises it; ``main`` says it in one line, so PTB's record is dropped."""
    return not (
        record.levelno >= logging.ERROR
        and record.getMessage().startswith("Network Retry Loop (Bootstrap")
    )


if __name__ == "__main__":
    sys.exit(main())
