"""Text Telegram always takes: the cutter, the name rule, the plain-text fallback, and
the fake Bot API refusing what Telegram refuses."""

from __future__ import annotations

import html
import logging
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from telegram import Bot, User
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.handlers.common import display_name
from bot.render.common import MAX_TEXT, Screen, screen
from bot.render.text import MAX_NAME, clean_name, fit, shown_name, visible_length
from sessions import TABLE
from tests.support.fake_telegram import FakeTelegram, HtmlError, parse_html, utf16_length
from tests.support.harness import Harness

# ------------------------------------------------------------------ valid HTML to cut

WORDS = st.text(
    st.sampled_from(["a", "Я", " ", "&", "<", ">", '"', "♠", "😀", "\u2068", "é"]), max_size=12
)
TAGS = ["b", "i", "u", "s", "code", "tg-spoiler"]


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Telegram HTML as the bot writes it: escaped words in nested tags (a link, a
    blockquote over several lines), lines of every length."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        parts = []
        for _ in range(draw(st.integers(0, 5))):
            word = html.escape(draw(WORDS), quote=False)
            kind = draw(st.sampled_from(["plain", "tag", "nested", "link"]))
            if kind == "tag":
                tag = draw(st.sampled_from(TAGS))
                word = f"<{tag}>{word}</{tag}>"
            elif kind == "nested":
                word = f"<b>x<i>{word}</i>{word}</b>"
            elif kind == "link":
                word = f'<a href="tg://user?id=7">{word}</a>'
            parts.append(word)
        lines.append("".join(parts))
    if draw(st.booleans()) and len(lines) > 2:
        lines[1] = "<blockquote>" + lines[1]
        lines[-1] += "</blockquote>"
    return "\n".join(lines)


@settings(max_examples=300, deadline=None)
@given(document=documents(), limit=st.integers(2, 120))
def test_a_cut_text_parses_and_fits(document: str, limit: int) -> None:
    cut = fit(document, limit)
    shown = parse_html(cut)  # never a split tag or entity, every tag closed
    assert utf16_length(shown) <= limit
    assert visible_length(cut) == utf16_length(shown)
    whole = parse_html(document)
    if utf16_length(whole) <= limit:
        assert cut == document
    else:  # the start of the text, then "…"
        assert shown.endswith("…") and whole.startswith(shown[:-1])


@settings(max_examples=20, deadline=None)
@given(document=documents(), copies=st.integers(60, 200))
def test_a_long_screen_is_cut_at_a_line_to_what_telegram_takes(document: str, copies: int) -> None:
    text = "\n".join([document] * copies)
    shown = parse_html(screen(text).text)
    assert utf16_length(shown) <= MAX_TEXT
    if utf16_length(parse_html(text)) > MAX_TEXT:
        kept = shown.removesuffix("\n…").split("\n")
        assert kept == parse_html(text).split("\n")[: len(kept)]  # whole lines only


def test_three_ampersand_names_cannot_break_a_screen() -> None:
    """The case of the issue: the cut fell inside ``&amp;`` and Telegram refused it."""
    name = html.escape("&" * 64, quote=False)
    text = "<b>Table</b>\n" + "\n".join(f"{i % 3 + 1}. <i>{name}</i> — 12" for i in range(40))
    assert len(text) > MAX_TEXT and visible_length(text) < MAX_TEXT
    assert screen(text).text == text  # under 3,000 characters shown: it fits as it is
    longer = "\n".join([text] * 2)
    cut = screen(longer).text
    assert utf16_length(parse_html(cut)) <= MAX_TEXT and cut.endswith("— 12\n…")


def test_a_first_line_too_long_is_cut_inside_with_its_tags_closed() -> None:
    text = "<b>" + "&lt;😀" * 3000 + "</b>\nnext"
    cut = fit(text, MAX_TEXT)
    assert cut.endswith("</b>…") and utf16_length(parse_html(cut)) <= MAX_TEXT


# ------------------------------------------------------------------ names


@pytest.mark.parametrize(
    ("name", "cleaned"),
    [
        ("Alice", "Alice"),
        ("\u202eevil\u202c", "evil"),  # a right-to-left override and its pop
        ("A\u200bl\u200ci\u200dc\ufeffe\u2060", "Alice"),  # zero-width characters
        ("Ann\nBob\u2028Cy\u2029Di\tEd", "Ann Bob Cy Di Ed"),  # line breaks of every kind
        ("  Bo\u00a0\u3000b  ", "Bo b"),
        ("\x00\x07Zoe\x7f\x9b", "Zoe"),
        ("Z\u0301\u0301\u0301\u0301\u0301oe", "Z\u0301\u0301oe"),  # no marks piled up
        ("x" * 64, "x" * 31 + "…"),
        ("\u202e\u200b", ""),
        ("Ёжик 🦔", "Ёжик 🦔"),
        ("Tim \uf8ff \U0001fae8", "Tim \uf8ff \U0001fae8"),  # private use, a newer emoji
    ],
)
def test_names_lose_what_rewrites_a_line(name: str, cleaned: str) -> None:
    assert clean_name(name) == cleaned


@settings(max_examples=300)
@given(st.text(max_size=80))
def test_a_clean_name_is_short_printable_and_stable(name: str) -> None:
    cleaned = clean_name(name)
    assert len(cleaned) <= MAX_NAME
    assert all(c == " " or not c.isspace() for c in cleaned)  # one kind of space
    assert cleaned == " ".join(cleaned.split())
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in cleaned)
    assert clean_name(cleaned) == cleaned
    shown = parse_html(shown_name(name))  # escaped: always valid HTML
    assert shown.strip("\u2068\u2069") == (cleaned or "?")


def test_a_right_to_left_name_is_isolated_and_a_left_to_right_one_left_alone() -> None:
    assert shown_name("עמית 2") == "\u2068עמית 2\u2069"
    assert shown_name("عمر") == "\u2068عمر\u2069"
    assert shown_name("Bob <b>") == "Bob &lt;b&gt;"
    assert shown_name("\u202e") == "?"


def test_a_name_comes_in_clean_or_falls_back() -> None:
    def user(first_name: str, username: str | None = None) -> User:
        return User(42, first_name, is_bot=False, username=username)

    assert display_name(user("\u202eAnn\u200b")) == "Ann"
    assert display_name(user("\u200b\u202e", "ann_b")) == "ann_b"
    assert display_name(user("\u2028")) == "42"


# ------------------------------------------------------------------ the fake Bot API


@pytest.mark.parametrize(
    "text",
    ["<b>bold", "a </b>", "<b>x</i>", "<blink>x</blink>", "<<<", "a & b", "&nbsp;", "&amp",
     "<span>x</span>", "<b", "1 > 0", "&#xD800;"],
)
def test_the_fake_refuses_malformed_html(text: str) -> None:
    with pytest.raises(HtmlError):
        parse_html(text)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ('<b>a</b> <a href="tg://user?id=1">b</a> <i>c</i>', "a b c"),
        ("&lt;&gt;&amp;&quot;&#38;&#x1F600;", '<>&"&😀'),
        ('<span class="tg-spoiler">s</span><tg-spoiler>t</tg-spoiler>', "st"),
        ("<pre><code class=\"language-python\">x</code></pre><blockquote expandable>q"
         "</blockquote>", "xq"),
    ],
)
def test_the_fake_parses_what_telegram_parses(text: str, shown: str) -> None:
    assert parse_html(text) == shown


async def test_the_fake_counts_characters_after_parsing(fake: FakeTelegram) -> None:
    user = fake.user("Ann")
    fake.private(user)
    fake.started.add(user.id)
    bot = Bot(fake.token, base_url=fake.api_url)
    async with bot:
        # 5,000 characters of HTML, 1,000 shown: Telegram takes it
        await bot.send_message(user.id, "&amp;" * 1000, parse_mode=ParseMode.HTML)
        await bot.send_message(user.id, "😀" * 2048, parse_mode=ParseMode.HTML)
        with pytest.raises(BadRequest, match="too long"):  # 4,098 UTF-16 code units
            await bot.send_message(user.id, "😀" * 2049)
        with pytest.raises(BadRequest, match=r'(?i)parse entities: unsupported start tag "x"'):
            await bot.send_message(user.id, "a <x> b", parse_mode=ParseMode.HTML)
        await bot.send_message(user.id, "a <x> b")  # plain text: nothing to parse


# ------------------------------------------------------------------ the plain-text fallback


async def test_a_text_telegram_cannot_parse_goes_again_as_plain_text(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    ann = fake.user("Ann")
    group, lobby = await harness.open_lobby("eleven", [ann], "Cards")
    delivery = harness.kol.delivery
    caplog.set_level(logging.WARNING, logger="bot.delivery")
    delivery.show(1, TABLE, group.id, Screen("<b>Broken & <x>table"), 99, force=True)
    await delivery.flush()
    assert lobby.text == "Broken & table"  # the edit, without a parse mode
    await delivery.send_now(ann.id, Screen("<i>1 < 2"))
    reply = fake.last_message(ann.id)
    assert reply is not None and reply.text == "1 < 2"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("plain text" in r.getMessage() for r in warnings)
    refused = [c for c in fake.calls if not c.ok]
    assert len(refused) == 2 and all("can't parse entities" in str(c.error) for c in refused)
