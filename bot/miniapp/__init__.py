"""The Mini App: the table as a picture, in a page the bot serves itself.

``auth`` checks Telegram's initData; ``payload`` draws a seat's view as JSON;
``live`` keeps the open pages and wakes them at each committed version;
``server`` holds the aiohttp routes (the page in ``static/``, its API and its
event stream). See docs/miniapp.md.
"""

from bot.miniapp.auth import AuthError, WebAppUser, validate
from bot.miniapp.live import Pages

__all__ = ["AuthError", "Pages", "WebAppUser", "validate"]
