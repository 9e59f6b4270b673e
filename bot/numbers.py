"""Reading numbers people (and forged buttons) send: ASCII digits only, capped.

``str.isdigit`` is true for ``"²"`` and ``"٣"``, and ``int`` takes ``" 7"``,
``"+7"``, ``"1_000"`` and Arabic-Indic digits; a number that comes from
outside is read here instead, so every parser refuses the same way and no
value grows past what the store can hold.
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")

#: the most digits of a stored id (a signed 64-bit integer has 19)
ID_DIGITS = 18


def ascii_number(text: str, max_digits: int = ID_DIGITS) -> int | None:
    """``text`` as a whole number if it is 1 to ``max_digits`` ASCII digits, else None."""
    if len(text) > max_digits or not _DIGITS.fullmatch(text):
        return None
    return int(text)


def signed_number(text: str, max_digits: int = ID_DIGITS) -> int | None:
    """Like :func:`ascii_number`, with an optional leading minus sign (chat ids)."""
    if text.startswith("-"):
        value = ascii_number(text[1:], max_digits)
        return None if value is None else -value
    return ascii_number(text, max_digits)


def ascii_decimal(text: str) -> float | None:
    """``text`` as a plain decimal (``30``, ``0.5``; ASCII, no sign or exponent), else None."""
    return float(text) if _DECIMAL.fullmatch(text) else None
