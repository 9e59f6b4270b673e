"""Text that Telegram always takes: names made safe, messages cut to fit.

Telegram counts a message's length after parsing its HTML, in UTF-16 code units,
and refuses the whole message if its HTML does not parse. :func:`fit` cuts a
long text by that visible length at line boundaries, never inside a tag or an
entity, and closes the tags left open. :func:`clean_name` is the one rule for
people's names, applied where a name comes in and again where it is drawn (a
name stored by an older release is drawn safely too): no control or format
characters (bidi overrides, zero-width characters, line separators), at most
:data:`MAX_NAME` characters; :func:`shown_name` also isolates a right-to-left
name, so it cannot reorder the line around it.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

#: The most characters of a name shown (longer ones end in an ellipsis).
MAX_NAME = 32
#: Combining marks kept on one letter (more only pile up over the lines around).
MAX_MARKS = 2
#: Marks the end of a cut text.
ELLIPSIS = "…"
#: Shown for a name with nothing printable in it.
NO_NAME = "?"
#: FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE around a right-to-left name.
ISOLATE, POP = "\u2068", "\u2069"

# A tag, an entity (as the bot writes them: escaped by html.escape), or one character.
_TOKEN = re.compile(r"<[^<>]*>|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]+);|.", re.DOTALL)
_TAG_NAME = re.compile(r"</?\s*([^\s>/]+)")
_TAG = re.compile(r"<[^>]*>")
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})
# Control and format characters, lone surrogates. Private-use characters (Apple's
# logo) and those unassigned in Python's Unicode tables (a newer emoji) are kept.
_INVISIBLE = frozenset({"Cc", "Cf", "Cs"})


def clean_name(name: str) -> str:
    """A person's name fit for a table line: spaces of every kind as one space, control
    and format characters dropped (Cc, Cf: bidi overrides and embeddings, zero-width
    characters; lone surrogates too), no more than :data:`MAX_MARKS` combining marks
    on a letter, and at most :data:`MAX_NAME` characters (a longer one ends in "…").
    Empty if nothing printable is left."""
    kept: list[str] = []
    marks = 0
    for char in name:
        if char.isspace():  # includes the line and paragraph separators
            kept.append(" ")
            marks = 0
            continue
        category = unicodedata.category(char)
        if category in _INVISIBLE:
            continue
        marks = marks + 1 if category[0] == "M" else 0
        if marks <= MAX_MARKS:
            kept.append(char)
    cleaned = " ".join("".join(kept).split())
    if len(cleaned) > MAX_NAME:
        cleaned = cleaned[: MAX_NAME - 1].rstrip() + ELLIPSIS
    return cleaned


@lru_cache(maxsize=4096)
def shown_name(name: str) -> str:
    """A name as HTML for a message: cleaned, escaped, and isolated if it has
    right-to-left letters (so it cannot reorder the text around it)."""
    cleaned = clean_name(name) or NO_NAME
    if any(unicodedata.bidirectional(char) in _RIGHT_TO_LEFT for char in cleaned):
        cleaned = f"{ISOLATE}{cleaned}{POP}"
    return html.escape(cleaned, quote=False)


def utf16_length(text: str) -> int:
    """How long Telegram counts ``text``: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def visible_length(text: str) -> int:
    """The length Telegram counts of HTML ``text``: after parsing, in UTF-16 code units."""
    return sum(_width(token) for token in _TOKEN.findall(text))


def fit(text: str, limit: int) -> str:
    """``text`` (Telegram HTML) cut to at most ``limit`` visible characters: whole lines
    while they fit, then "…"; only if the first line alone is too long is it cut,
    between characters. Tags and entities are never split, and tags left open are
    closed. A text that fits is returned as it is."""
    if utf16_length(text) <= limit or visible_length(text) <= limit:
        return text  # (a tag or an entity never shows longer than it is written)
    room = max(limit - utf16_length("\n" + ELLIPSIS), 0)
    lines = _lines(_TOKEN.findall(text))
    kept: list[str] = []
    used = whole = 0
    for line in lines:
        width = sum(_width(token) for token in line) + (1 if whole else 0)
        if used + width > room:
            break
        kept += ["\n", *line] if whole else line
        used += width
        whole += 1
    tail = "\n" + ELLIPSIS
    if not whole:  # not even the first line fits: cut it
        kept, tail = _prefix(lines[0], room), ELLIPSIS
    closing = "".join(f"</{name}>" for name in reversed(_open_tags(kept)))
    return "".join(kept) + closing + tail


def plain(text: str) -> str:
    """Telegram HTML as the plain text it shows: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", text))


def plain_text(text: str, limit: int) -> str:
    """HTML ``text`` as plain text (:func:`plain`) of at most ``limit`` characters (cut
    like :func:`fit`), for sending without a parse mode."""
    shown = plain(text)
    return html.unescape(fit(html.escape(shown, quote=False), limit))


def _width(token: str) -> int:
    if token.startswith("<") and token.endswith(">") and len(token) > 1:
        return 0
    if token.startswith("&") and len(token) > 1:
        return utf16_length(html.unescape(token))
    return utf16_length(token)


def _lines(tokens: list[str]) -> list[list[str]]:
    """Tokens grouped into lines (the newlines themselves dropped)."""
    lines: list[list[str]] = [[]]
    for token in tokens:
        if token == "\n":
            lines.append([])
        else:
            lines[-1].append(token)
    return lines


def _prefix(tokens: list[str], room: int) -> list[str]:
    """The longest start of ``tokens`` within ``room`` visible characters."""
    kept: list[str] = []
    used = 0
    for token in tokens:
        used += _width(token)
        if used > room:
            break
        kept.append(token)
    return kept


def _open_tags(tokens: list[str]) -> list[str]:
    """The names of the tags still open after ``tokens``, outermost first."""
    names: list[str] = []
    for token in tokens:
        if not (token.startswith("<") and len(token) > 1):
            continue
        found = _TAG_NAME.match(token)
        if found is None:
            continue
        name = found.group(1).lower()
        if token.startswith("</"):
            if name in names:
                del names[len(names) - 1 - names[::-1].index(name) :]
        else:
            names.append(name)
    return names
