"""Entry point: ``python -m bot`` — read the settings, then poll Telegram."""

from __future__ import annotations

import logging
import os
import sys

from telegram.error import InvalidToken, TelegramError

from bot.config import ConfigError, load_settings


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

    from bot.app import DatabaseUnavailable, run
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


def _no_bootstrap_error(record: logging.LogRecord) -> bool:
    """PTB logs a failed start-up (getMe, deleteWebhook) at ERROR with its traceback and
    then raises it; ``main`` says it in one line, so PTB's record is dropped."""
    return not (
        record.levelno >= logging.ERROR
        and record.getMessage().startswith("Network Retry Loop (Bootstrap")
    )


if __name__ == "__main__":
    sys.exit(main())
