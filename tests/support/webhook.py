"""Webhook mode against the fake Bot API: the secret, a free port, the settings."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.support.fake_telegram import FakeTelegram

SECRET = "s3cret_-token"


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def webhook_env(fake: FakeTelegram, database: Path, port: int) -> dict[str, str]:
    """Settings for webhook mode against ``fake``."""
    return {
        "TELEGRAM_BOT_TOKEN": fake.token,
        "TELEGRAM_API_URL": fake.api_url,
        "DATABASE_URL": f"sqlite:///{database}",
        "WEBHOOK_URL": f"https://bot.example.org/tg/{port}",
        "WEBHOOK_SECRET": SECRET,
        "PORT": str(port),
    }
