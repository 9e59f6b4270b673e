"""Small pure pieces: configuration, the callback codec, the catalogs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.callback import MAX_BYTES, BadCallback, Join, Move, SetOption, Verb, unpack
from bot.config import DEFAULT_API_URL, DEFAULT_DATABASE_URL, ConfigError, load_settings
from bot.i18n import LANGUAGES, catalog, language_from_code, t
from games import REGISTRY
from sessions.model import REFUSAL_CODES

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ"

# ---------------------------------------------------------------- config


def test_settings_defaults() -> None:
    s = load_settings({"TELEGRAM_BOT_TOKEN": TOKEN})
    assert (s.token, s.api_url, s.database_url) == (TOKEN, DEFAULT_API_URL, DEFAULT_DATABASE_URL)
    assert s.base_file_url == "https://api.telegram.org/file/bot"


def test_settings_custom_api_url() -> None:
    s = load_settings(
        {
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_API_URL": "http://127.0.0.1:81/bot",
            "DATABASE_URL": "sqlite:////tmp/k.sqlite3",
        }
    )
    assert s.base_url == "http://127.0.0.1:81/bot"
    assert s.base_file_url == "http://127.0.0.1:81/file/bot"
    assert s.database_url == "sqlite:////tmp/k.sqlite3"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({}, "TELEGRAM_BOT_TOKEN is not set"),
        ({"TELEGRAM_BOT_TOKEN": "nonsense"}, "does not look like a bot token"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_URL": "ftp://x"}, "TELEGRAM_API_URL"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN, "DATABASE_URL": "mysql://x"}, "DATABASE_URL"),
    ],
)
def test_bad_settings_are_refused(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        load_settings(env)


@pytest.mark.parametrize(
    "env",
    [{}, {"TELEGRAM_BOT_TOKEN": "x"}, {"TELEGRAM_BOT_TOKEN": TOKEN, "DATABASE_URL": "mysql://db"}],
)
def test_python_m_bot_with_bad_settings_exits_2_with_one_line(env: dict[str, str]) -> None:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("TELEGRAM_BOT_TOKEN", "TELEGRAM_API_URL", "DATABASE_URL")
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("koloda: ")
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- callback data


def test_move_round_trip() -> None:
    data = Move(12, 345, "lay:8H:2").pack()
    assert data == "12:345:lay:8H:2"
    assert unpack(data) == Move(12, 345, "lay:8H:2")


def test_button_round_trip() -> None:
    data = SetOption(9, "positive", "lottery").pack()
    assert data == "opt:9:positive:lottery"
    assert unpack(data) == SetOption(9, "positive", "lottery")
    assert unpack(Join(4).pack()) == Join(4)


def test_every_kind_of_button_has_exactly_one_handler() -> None:
    from bot.app import HANDLER_MODULES

    kinds = [Move, *Verb.kinds.values()]
    handled: list[object] = []
    for module in HANDLER_MODULES:
        for handler in module.HANDLERS:
            pattern = getattr(handler, "pattern", None)
            if callable(pattern):
                handled += [k for k in kinds if pattern(_sample(k))]
    assert sorted(map(str, handled)) == sorted(map(str, kinds))


def _sample(kind: object) -> str:
    if kind is Move:
        return Move(1, 1, "QS").pack()
    assert isinstance(kind, type) and issubclass(kind, Verb)
    fields = kind._arguments()
    return ":".join([kind.prefix, "1", *("a" for _ in fields)])


@pytest.mark.parametrize(
    "data",
    [
        None,
        "",
        "x" * 65,
        "join",
        "join:",
        "join:1:2",
        "nope:1",
        "1:2:",
        "1:x:QS",
        "a:1:QS",
        "1:2:<script>",
        "opt:1:a",
        "comp:1:easy level",
        "12345678901234567890:1:QS",
    ],
)
def test_garbled_data_is_refused(data: str | None) -> None:
    with pytest.raises(BadCallback):
        unpack(data)


def test_pack_refuses_what_would_not_fit() -> None:
    with pytest.raises(ValueError):
        Move(1, 1, "x" * 60).pack()
    with pytest.raises(ValueError):
        SetOption(1, "name", "a" * 30).pack()
    with pytest.raises(ValueError):
        SetOption(1, "name", "with space").pack()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_unpack_never_crashes_on_arbitrary_data(data: str) -> None:
    try:
        press = unpack(data)
    except BadCallback:
        return
    assert len(data.encode()) <= MAX_BYTES
    if isinstance(press, Verb):
        assert Verb.kinds[press.prefix] is type(press)


@settings(max_examples=100, deadline=None)
@given(
    session=st.integers(0, 10**9),
    version=st.integers(0, 10**6),
    action=st.from_regex(r"[A-Za-z0-9:]{1,24}", fullmatch=True),
)
def test_every_real_action_round_trips_within_64_bytes(
    session: int, version: int, action: str
) -> None:
    data = Move(session, version, action).pack()
    assert len(data.encode()) <= MAX_BYTES
    assert unpack(data) == Move(session, version, action)


# ---------------------------------------------------------------- catalogs


def test_catalogs_define_the_same_messages() -> None:
    assert catalog().keys("en") == catalog().keys("ru")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_has_a_pop_up(lang: str) -> None:
    for code in REFUSAL_CODES:
        assert catalog().has(lang, f"refusal-{code}"), code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_text_belongs_to_a_refusal(lang: str) -> None:
    texts = {key.removeprefix("refusal-") for key in catalog().keys(lang)
             if key.startswith("refusal-")}
    assert texts == REFUSAL_CODES


def _reason_codes() -> set[str]:
    codes = {"finished", "not_your_turn", "bad_seat", "unknown_action", "illegal"}
    for game_id in REGISTRY:
        source = (ROOT / "games" / f"{game_id}.py").read_text()
        codes |= set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', source))
        if "def _why_illegal" in source:
            body = source.split("def _why_illegal", 1)[1].split("\n    def ", 1)[0]
            codes |= set(re.findall(r'(?:return|else) "([a-z_]+)"', body))
    return codes


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_illegal_reason_has_a_pop_up(lang: str) -> None:
    missing = {c for c in _reason_codes() if not catalog().has(lang, f"illegal-{c}")}
    assert not missing


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_game_option_and_value_is_named(lang: str) -> None:
    for game in REGISTRY.values():
        assert catalog().has(lang, f"game-{game.id}")
        assert catalog().has(lang, f"rules-{game.id}")
        for option in game.options_schema:
            assert catalog().has(lang, f"option-{option.name}"), option.name
            for value in option.choices:
                if isinstance(value, str):
                    assert catalog().has(lang, f"value-{value}"), value


@pytest.mark.parametrize(
    ("n", "word"),
    [
        (1, "1 взятка"),
        (2, "2 взятки"),
        (4, "4 взятки"),
        (5, "5 взяток"),
        (11, "11 взяток"),
        (21, "21 взятка"),
        (22, "22 взятки"),
        (0, "0 взяток"),
    ],
)
def test_russian_plurals(n: int, word: str) -> None:
    assert t("ru", "n-tricks", n=n) == word


def test_english_plurals() -> None:
    assert t("en", "n-tricks", n=1) == "1 trick"
    assert t("en", "n-cards", n=2) == "2 cards"


@pytest.mark.parametrize(
    ("code", "lang"), [("ru", "ru"), ("ru-RU", "ru"), ("en-GB", "en"), ("uk", "en"), (None, "en")]
)
def test_language_from_telegram_code(code: str | None, lang: str) -> None:
    assert language_from_code(code) == lang


def test_missing_message_falls_back_to_its_id() -> None:
    assert t("ru", "no-such-message") == "no-such-message"
