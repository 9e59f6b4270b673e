"""A real headless browser for the Mini App's tests: Debian's ``chromium``, driven by
Playwright.

Playwright's own browser downloads are never used (no ``playwright install``):
the browser is the distribution's, found as ``$KOLODA_CHROMIUM`` or ``chromium``
(``chromium-browser``) on PATH; ``make test`` installs Debian's ``chromium``
where it is missing, as the PostgreSQL server comes with the dev extra. One
browser serves the whole test session (``browser``); each test gets fresh,
isolated contexts from it (:func:`open_page`), in which every request that
does not go to 127.0.0.1 is refused — Telegram's WebApp script included — so
nothing is downloaded and the page is shown working without it.

Without a browser the tests that need one skip with the reason; under CI
(``CI`` set, as ``.ci/run`` runs) they fail instead, so a green CI means the
page was tested in a browser. Chromium refuses to run as root with its
sandbox, so under root it runs with ``--no-sandbox``.

Screenshots go to :func:`artifacts` (``$KOLODA_ARTIFACTS``, else
``tests/artifacts/``, which git ignores).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import pytest
import pytest_asyncio
from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Request,
    Route,
    ViewportSize,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parents[2]
#: Any address but the bot's own page server on 127.0.0.1.
ELSEWHERE = re.compile(r"^(?!https?://127\.0\.0\.1[:/])[a-z]+:")
#: A phone-sized window, as Telegram opens a Mini App.
VIEWPORT: ViewportSize = {"width": 412, "height": 860}


def find_chromium() -> str | None:
    """The chromium binary: ``$KOLODA_CHROMIUM`` (only it, when set), else on PATH."""
    chosen = os.environ.get("KOLODA_CHROMIUM")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def chromium_args() -> list[str]:
    """The command-line switches: no sandbox under root (chromium refuses it there)."""
    args = ["--disable-gpu", "--no-first-run", "--mute-audio"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


async def launch(playwright: Playwright, binary: str) -> Browser:
    """Chromium at ``binary``, headless."""
    return await playwright.chromium.launch(
        executable_path=binary, headless=True, args=chromium_args()
    )


def _no_browser(reason: str) -> NoReturn:
    """Skip (a developer's machine without chromium) or, under CI, fail."""
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(f"no browser for the Mini App's tests: {reason}")


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """One headless chromium for the whole test session (skipped or failed without one)."""
    binary = find_chromium()
    if binary is None:
        _no_browser("no chromium on PATH (make test installs Debian's chromium)")
    async with async_playwright() as playwright:
        try:
            started = await launch(playwright, binary)
        except PlaywrightError as error:
            _no_browser(f"{binary} did not start: {error.message.splitlines()[0]}")
        try:
            yield started
        finally:
            await started.close()


def artifacts() -> Path:
    """Where the tests leave screenshots: ``$KOLODA_ARTIFACTS`` or ``tests/artifacts/``."""
    folder = Path(os.environ.get("KOLODA_ARTIFACTS") or ROOT / "tests" / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class Opened:
    """A page in its own browser context, and what it tried to fetch from elsewhere."""

    context: BrowserContext
    page: Page
    refused: list[str] = field(default_factory=list)
    #: every request the page made (its URL), in order
    requests: list[str] = field(default_factory=list)

    async def close(self) -> None:
        """Close the page's context (its streams end with it)."""
        await self.context.close()


async def open_page(browser: Browser, url: str, locale: str = "en-US",
                    dark: bool = False) -> Opened:
    """A new isolated context (its own storage) showing ``url``; requests to anywhere
    but 127.0.0.1 are aborted and noted."""
    context = await browser.new_context(
        viewport=VIEWPORT,
        locale=locale,
        color_scheme="dark" if dark else "light",
        device_scale_factor=2,
    )
    page = await context.new_page()
    opened = Opened(context, page)

    async def refuse(route: Route) -> None:
        opened.refused.append(route.request.url)
        await route.abort()

    def seen(request: Request) -> None:
        opened.requests.append(request.url)

    await context.route(ELSEWHERE, refuse)
    page.on("request", seen)
    await page.goto(url)
    return opened
