"""Webhook mode in-process: setWebhook with the secret, updates POSTed by the fake
Bot API, forged requests refused, the health check, a clean stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession

from bot.app import build_application
from bot.config import ConfigError, load_settings
from bot.flood_limits import Limits
from bot.webhook import HEALTH_PATH, SECRET_HEADER, serve
from tests.support.computers import RandomComputer
from tests.support.fake_telegram import TOKEN, FakeTelegram
from tests.support.webhook import SECRET, free_port, webhook_env


@pytest.fixture
async def webhook_bot(fake: FakeTelegram, db_dir: Path) -> AsyncIterator[str]:
    """The bot in webhook mode in this process; yields its update endpoint's URL."""
    port = free_port()
    settings = load_settings(webhook_env(fake, db_dir / "hook.sqlite3", port))
    app = build_application(settings, RandomComputer(), limits=Limits.off(), defer=0.0)
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(serve(app, settings, stop))
    await fake.wait_until(lambda: fake.webhook is not None, timeout=30)
    yield f"http://127.0.0.1:{port}{settings.webhook_path}"
    stop.set()
    await asyncio.wait_for(task, 30)


async def test_set_webhook_carries_the_secret_and_the_update_types(
    fake: FakeTelegram, webhook_bot: str
) -> None:
    assert fake.webhook is not None
    assert fake.webhook["url"].startswith("https://bot.example.org/tg/")
    assert fake.webhook["secret_token"] == SECRET
    assert {"message", "callback_query", "my_chat_member"} <= set(fake.webhook["allowed_updates"])
    assert fake.calls_of("getUpdates") == []


async def test_updates_posted_with_the_secret_are_handled_and_answered_200(
    fake: FakeTelegram, webhook_bot: str
) -> None:
    alice = fake.user("Alice")
    group = fake.group("Hooked")
    fake.push_webhooks([webhook_bot])
    fake.push_command(alice, group, "/new king")
    await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == group.id)
    assert [status for _, _, status in fake.webhook_posts] == [200]
    assert fake.undelivered() == 0


async def test_a_forged_request_is_refused_logged_and_changes_nothing(
    fake: FakeTelegram, webhook_bot: str, caplog: pytest.LogCaptureFixture
) -> None:
    alice = fake.user("Alice")
    group = fake.group("Forged")
    update = {
        "update_id": 777,
        "message": {
            "message_id": 1, "date": 0, "chat": group.as_dict(), "from": alice.as_dict(),
            "text": "/new king", "entities": [{"type": "bot_command", "offset": 0, "length": 4}],
        },
    }
    caplog.set_level(logging.WARNING, logger="bot.webhook")
    async with ClientSession() as client:
        for headers in ({}, {SECRET_HEADER: "wrong"}, {SECRET_HEADER: SECRET + "x"}):
            async with client.post(webhook_bot, json=update, headers=headers) as answer:
                assert answer.status == 403
        async with client.get(webhook_bot.rsplit("/tg/", 1)[0] + HEALTH_PATH) as health:
            assert health.status == 200
    await asyncio.sleep(0.3)  # what a wrongly accepted update would have had time to do
    assert fake.calls_of("sendMessage") == []
    refusals = [r for r in caplog.records if "refused (403)" in r.getMessage()]
    assert len(refusals) == 3 and all(r.levelno == logging.WARNING for r in refusals)
    # the same update with the right secret is handled: the check is what refused it
    async with ClientSession() as client:
        headers = {SECRET_HEADER: SECRET}
        async with client.post(webhook_bot, json=update, headers=headers) as answer:
            assert answer.status == 200
    await fake.wait_for(lambda c: c.method == "sendMessage" and c.chat_id == group.id)


async def test_the_server_runs_the_hooks_the_application_holds(
    fake: FakeTelegram, db_dir: Path
) -> None:
    port = free_port()
    settings = load_settings(webhook_env(fake, db_dir / "hooks.sqlite3", port))
    app = build_application(settings, RandomComputer(), limits=Limits.off(), defer=0.0)
    ran: list[str] = []
    for name in ("post_init", "post_stop", "post_shutdown"):
        hook = getattr(app, name)

        async def recorded(app: Any, hook: Any = hook, name: str = name) -> None:
            ran.append(name)
            await hook(app)

        setattr(app, name, recorded)
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(serve(app, settings, stop))
    await fake.wait_until(lambda: fake.webhook is not None, timeout=30)

    async def started() -> None:
        while not app.running:  # setWebhook comes before Application.start
            await asyncio.sleep(0.01)

    await asyncio.wait_for(started(), 30)
    assert ran == ["post_init"]
    stop.set()
    await asyncio.wait_for(task, 30)
    assert ran == ["post_init", "post_stop", "post_shutdown"] and not app.running


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"WEBHOOK_URL": "https://x.example/hook"}, "WEBHOOK_SECRET is not set"),
        ({"WEBHOOK_URL": "https://x.example/hook", "WEBHOOK_SECRET": "has space"}, "A-Z"),
        ({"WEBHOOK_URL": "https://x.example/hook", "WEBHOOK_SECRET": "x" * 257}, "1-256"),
        ({"WEBHOOK_URL": "not a url", "WEBHOOK_SECRET": "ok"}, "WEBHOOK_URL must be"),
        ({"PORT": "http"}, "PORT must be"),
        ({"PORT": "70000"}, "PORT must be"),
        ({"KOLODA_LEASE_SECONDS": "0"}, "KOLODA_LEASE_SECONDS"),
    ],
)
def test_a_bad_webhook_setting_is_one_line(extra: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"TELEGRAM_BOT_TOKEN": TOKEN, **extra})
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_webhook_settings() -> None:
    base = {"TELEGRAM_BOT_TOKEN": TOKEN}
    polling = load_settings(base)
    assert polling.webhook_url is None and polling.port == 8080 and not polling.shared
    hooked = load_settings(
        {**base, "WEBHOOK_URL": "https://x.example/a/b", "WEBHOOK_SECRET": "k", "PORT": "9000",
         "DATABASE_URL": "postgresql://u:p@db/koloda"}
    )
    assert (hooked.webhook_path, hooked.port, hooked.shared) == ("/a/b", 9000, True)
    # a poller on PostgreSQL shares its store too (other processes may use it)
    assert load_settings({**base, "DATABASE_URL": "postgresql://u:p@db/koloda"}).shared
