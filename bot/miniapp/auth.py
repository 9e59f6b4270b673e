"""Who opened the page: Telegram's ``initData``, checked with the bot's token.

Telegram hands a Mini App its launch data as a query string (``tgWebAppData``
in the URL fragment, ``Telegram.WebApp.initData`` with Telegram's script); the
page sends it back with every request. As the Mini Apps documentation
("Validating data received via the Mini App") specifies, the data-check-string
is every received field but ``hash``, as ``key=<value>``, sorted by key and
joined by line feeds; the secret key is HMAC-SHA256 of the bot token with the
key ``"WebAppData"``; ``hash`` must be the hex HMAC-SHA256 of the
data-check-string under that secret key. ``auth_date`` (unix seconds) tells how
old the data is: older than :data:`MAX_AGE` is refused, so a leaked launch
link stops working. The user is the ``user`` field's JSON object.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bot.numbers import ascii_number

#: Seconds a launch's initData is taken for (Telegram signs it when the page opens;
#: a page left open a day reloads its view with the same data, so a day it is).
MAX_AGE = 24 * 3600
#: Seconds ``auth_date`` may lie ahead of our clock (clocks drift).
CLOCK_SKEW = 60
#: The longest initData taken (Telegram's is well under a kilobyte or two).
MAX_LENGTH = 8192


class AuthError(Exception):
    """initData that proves nothing; the message says why (for the log, not the user)."""


@dataclass(frozen=True)
class WebAppUser:
    """The Telegram user initData names, and the launch's start parameter."""

    id: int
    first_name: str
    language_code: str | None
    #: ``start_param`` of a direct link (t.me/<bot>/<app>?startapp=…), else None
    start_param: str | None
    auth_date: int


def secret_key(token: str) -> bytes:
    """HMAC-SHA256 of the bot token under the key ``"WebAppData"``."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def check_string(fields: dict[str, str]) -> str:
    """The data-check-string of the fields (``hash`` left out)."""
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def sign(fields: dict[str, str], token: str) -> str:
    """The ``hash`` Telegram would give these fields (for tests and the fake)."""
    return hmac.new(secret_key(token), check_string(fields).encode(), hashlib.sha256).hexdigest()


def validate(init_data: str, token: str, now: float, max_age: float = MAX_AGE) -> WebAppUser:
    """The user ``init_data`` proves, or :class:`AuthError`."""
    if not init_data or len(init_data) > MAX_LENGTH:
        raise AuthError("no initData" if not init_data else "initData too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError as error:
        raise AuthError(f"initData is not a query string: {error}") from error
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("a field appears twice")
    given = fields.get("hash", "")
    if not hmac.compare_digest(given.encode(), sign(fields, token).encode()):
        raise AuthError("hash does not match")
    auth_date = ascii_number(fields.get("auth_date", ""), 12)
    if auth_date is None:
        raise AuthError("no auth_date")
    if auth_date < now - max_age or auth_date > now + CLOCK_SKEW:
        raise AuthError(f"auth_date {auth_date} is stale")
    try:
        user = json.loads(fields.get("user", ""))
        user_id = user["id"]
    except (ValueError, TypeError, KeyError) as error:
        raise AuthError("no user in initData") from error
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise AuthError("user.id is not a user id")
    name = user.get("first_name")
    code = user.get("language_code")
    return WebAppUser(
        id=user_id,
        first_name=name if isinstance(name, str) else "",
        language_code=code if isinstance(code, str) else None,
        start_param=fields.get("start_param") or None,
        auth_date=auth_date,
    )
