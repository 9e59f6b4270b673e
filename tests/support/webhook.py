"""Webhook mode against the fake Bot API: the secret, a free port, the settings, and
``python -m bot`` workers in webhook mode that can be killed and started again."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
from pathlib import Path

from aiohttp import ClientError, ClientSession

from tests.support.fake_telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]

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


class WebhookWorker:
    """One ``python -m bot`` in webhook mode against ``fake``, always on the same port
    (its URL stays when it is started again); ``env`` adds to the fake's settings
    (``DATABASE_URL``, ``WEBHOOK_URL`` …), stderr goes to ``log``."""

    def __init__(self, fake: FakeTelegram, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.env = fake.bot_environment(Path("unused"), PORT=str(self.port), **env)
        self.log = log
        self.process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        """Where the load balancer sends updates to this worker."""
        return f"http://127.0.0.1:{self.port}/telegram"

    async def start(self) -> None:
        """Start it; return once its health check answers 200."""
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=ROOT, env=self.env,
                stdout=asyncio.subprocess.DEVNULL, stderr=log,
            )
        async with ClientSession() as client:
            for _ in range(1200):
                try:
                    async with client.get(f"http://127.0.0.1:{self.port}/healthz") as answer:
                        if answer.status == 200:
                            return
                except ClientError:
                    pass
                if self.process.returncode is not None:
                    raise RuntimeError(f"a worker exited: {self.log.read_text()[-3000:]}")
                await asyncio.sleep(0.1)
        raise RuntimeError("a worker did not become healthy")

    async def kill(self) -> None:
        """SIGKILL: no goodbye, no flush."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        """SIGTERM, as a deploy does; SIGKILL after 30 s."""
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
