"""Numbers from outside — button data, deep links, typed values, settings — are ASCII
digits with a length cap: anything else is a clear answer, never a traceback."""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from bot.callback import BadCallback, unpack
from bot.config import ConfigError, load_settings, masked_url
from bot.i18n import t
from bot.numbers import ascii_decimal, ascii_number
from tests.support.harness import Harness
from tests.support.tables import open_table, pop_up

UNICODE_DIGITS = ("²", "٣", "１２", "߁", "1²", "⁵0")


@pytest.mark.parametrize("text", [*UNICODE_DIGITS, "", " 7", "+7", "1_0", "-3", "7\n", "9" * 19])
def test_only_capped_ascii_digits_are_numbers(text: str) -> None:
    assert ascii_number(text) is None
    assert ascii_decimal(text) is None


def test_ascii_numbers_read_as_before() -> None:
    assert ascii_number("0") == 0 and ascii_number("017") == 17
    assert ascii_number("9" * 18) == 10**18 - 1 and ascii_number("123", 2) is None
    assert ascii_decimal("0.5") == 0.5 and ascii_decimal("30") == 30.0
    assert ascii_decimal("1e3") is None and ascii_decimal("nan") is None


@pytest.mark.parametrize("data", ["join:²", "²:1:QS", "1:²:QS", "deal:1:²", "join:" + "9" * 30])
def test_forged_numbers_in_button_data_are_bad_callbacks(data: str) -> None:
    with pytest.raises(BadCallback):
        unpack(data)


async def test_unicode_digits_get_answers_not_tracebacks(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    fake = harness.fake
    table = await open_table(harness, "eleven", started=False)
    sid = table.session_id
    for data in (f"join:{sid}²", f"{sid}²:1:QS", f"deal:{sid}:²", f"timer:{sid}:６0"):
        answer = await pop_up(harness, table.bob, table.group, table.message.message_id, data)
        assert answer in (t("en", "bad-button"), t("en", "refusal-deal_not_finished"),
                          t("en", "refusal-not_creator")), data
    private = fake.private(table.bob)
    for payload in ("h²", "j" + "9" * 40, "h" + "9" * 40, "h١"):
        before = len(fake.calls_of("sendMessage", private.id))
        await harness.command(table.bob, private.id, f"/start {payload}")
        sent = fake.calls_of("sendMessage", private.id)[before:]
        # the welcome, or for a well-formed token that is no table's: that it is none
        assert any(
            "Koloda" in c.params["text"] or c.params["text"] == t("en", "refusal-no_session")
            for c in sent
        ), payload

    await harness.press(table.alice, table.message, "⚙️ Settings")
    (menu,) = fake.chat_messages(table.group.id, ephemeral=True)
    await harness.press(table.alice, menu, f"type:{sid}:target")
    prompt = fake.last_message(table.group.id, containing="✏️")
    assert prompt is not None
    for typed in ("1²", "１２", "9" * 40):
        fake.push_message(table.alice, table.group, typed, reply_to=prompt)
        await harness.settle()
        bad = fake.last_message(table.group.id, containing="won't do")
        assert bad is not None and "a whole number from 1 to 50" in bad.text, typed
    assert (await harness.kol.manager.get(sid)).options["target"] == 5  # nothing changed
    assert (await harness.kol.manager.get(sid)).seat_of(table.bob.id) is not None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


BASE = {"TELEGRAM_BOT_TOKEN": "123:" + "a" * 30}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PORT", "²"), ("PORT", "８０８０"), ("PORT", "0"), ("PORT", "9" * 40), ("PORT", "80 80"),
        ("KOLODA_LEASE_SECONDS", "３0"), ("KOLODA_LEASE_SECONDS", "nan"),
        ("KOLODA_LEASE_SECONDS", "1e1"), ("KOLODA_FLOOD_SCALE", "²"),
        ("KOLODA_FLOOD_SCALE", "inf"), ("KOLODA_FLOOD_LIMITS", "maybe"),
        ("LOG_LEVEL", "chatty"), ("LOG_LEVEL", "5"),
    ],
)
def test_every_malformed_setting_is_one_line(name: str, value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings({**BASE, name: value})
    message = str(raised.value)
    assert message.startswith(name) and "\n" not in message


SECRETS = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=4
)


def password_forms(secret: str) -> list[str]:
    """Every form a PostgreSQL address can carry ``secret`` as its password in."""
    quoted = secret.replace("\\", "\\\\").replace("'", "\\'")
    return [
        f"postgresql://koloda:{secret}@db.example:5432/koloda",
        f"postgresql://koloda@db.example/koloda?sslmode=require&password={quote(secret)}",
        f"postgresql://db.example/koloda?password={quote(secret)}",
        f"host=db.example user=koloda password='{quoted}' dbname=koloda",
    ]


@settings(max_examples=300, deadline=None)
@given(SECRETS)
@example(":***")  # what the mask shows anyway: not a leak
def test_every_password_form_is_masked(secret: str) -> None:
    quoted = secret.replace("\\", "\\\\").replace("'", "\\'")
    # a secret that the masked address of another password shows anyway (":***") proves
    # nothing either way
    plain = [masked_url(url) for url in password_forms("Zq7Zq7")]
    for url, neutral in zip(password_forms(secret), plain, strict=True):
        masked = masked_url(url)
        assert "***" in masked, url
        for piece in {secret, quote(secret), quoted}:
            assume(piece not in url.replace(piece, "", 1))  # it shows up only as the secret
            assume(piece not in neutral)
            assert piece not in masked, (url, masked)


def test_masking_keeps_what_helps_an_operator() -> None:
    assert masked_url("postgresql://u:p@ss@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert masked_url("postgresql://u@h/db?password=x&sslmode=require") == (
        "postgresql://u@h/db?password=***&sslmode=require"
    )
    assert masked_url("host=h password=x dbname=d") == "host=h password=*** dbname=d"
    assert masked_url("sqlite:///var/lib/koloda.sqlite3") == "sqlite:///var/lib/koloda.sqlite3"
