"""Lobby screens: the seat list, the computer-level and settings menus."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.callback import (
    AddComputer,
    Back,
    Cancel,
    Computers,
    Invite,
    Join,
    Leave,
    SetOption,
    SetTimer,
    Settings,
    Start,
    TypeValue,
    VersusComputer,
)
from bot.i18n import t, t_or
from bot.numbers import signed_number
from bot.render.common import Button, Screen, SeatLike, esc, game_name, screen, seat_name
from games.base import Option
from sessions import LEVELS

TIMERS: tuple[int | None, ...] = (None, 60, 300, 86400)


def option_value(option: Option, value: object, lang: str) -> str:
    """A localized option value: yes/no, a named choice, or the number."""
    if isinstance(value, bool):
        return t(lang, "value-yes" if value else "value-no")
    if isinstance(value, str):
        return t_or(lang, f"value-{value}", value)
    return str(value)


def option_name(game_id: str, name: str, lang: str) -> str:
    """A localized option name (game-specific wording first)."""
    return t_or(lang, f"option-{game_id}-{name}", t_or(lang, f"option-{name}", name))


def timer_name(seconds: int | None, lang: str) -> str:
    """The turn timer setting in words."""
    if seconds is None:
        return t(lang, "timer-off")
    return t_or(lang, f"timer-{seconds}", t(lang, "timer-minutes", n=seconds // 60))


def settings_lines(
    game_id: str, schema: Sequence[Option], options: dict[str, Any], timer: int | None, lang: str
) -> list[str]:
    """One line per table option plus the turn timer."""
    lines = [
        f"• {esc(option_name(game_id, o.name, lang))}: "
        f"<b>{esc(option_value(o, options.get(o.name, o.default), lang))}</b>"
        for o in schema
    ]
    lines.append(f"• {t(lang, 'option-timer')}: <b>{timer_name(timer, lang)}</b>")
    return lines


def render_lobby(
    session: int,
    game_id: str,
    kind: str,
    seats: Sequence[SeatLike],
    max_players: int,
    schema: Sequence[Option],
    options: dict[str, Any],
    timer: int | None,
    lang: str,
) -> Screen:
    """The lobby message: who sits, the settings, and the lobby buttons."""
    lines = [t(lang, "lobby-title", game=esc(game_name(game_id, lang))), ""]
    lines.append(t(lang, "lobby-seats", n=len(seats), max=max_players))
    lines += [f"{i + 1}. {seat_name(s, lang)}" for i, s in enumerate(seats)]
    lines += ["", t(lang, "lobby-settings"), *settings_lines(game_id, schema, options, timer, lang)]
    lines += ["", t(lang, "lobby-hint-private" if kind == "private" else "lobby-hint")]
    rows: list[list[Button]] = []
    if kind == "private":
        rows.append(
            [
                Button(t(lang, "button-invite"), Invite(session).pack()),
                Button(t(lang, "button-vs-computer"), VersusComputer(session).pack()),
            ]
        )
    else:
        rows.append(
            [
                Button(t(lang, "button-join"), Join(session).pack()),
                Button(t(lang, "button-leave"), Leave(session).pack()),
            ]
        )
        rows.append([Button(t(lang, "button-add-computer"), Computers(session).pack())])
    rows.append([Button(t(lang, "button-settings"), Settings(session).pack())])
    last = [Button(t(lang, "button-cancel"), Cancel(session).pack())]
    if kind != "private":
        last.insert(0, Button(t(lang, "button-start"), Start(session).pack()))
    rows.append(last)
    return screen("\n".join(lines), rows)


def render_levels(session: int, game_id: str, lang: str) -> Screen:
    """The "add a computer" menu: one button per level."""
    rows = [
        [Button(t(lang, f"level-{lv}"), AddComputer(session, lv).pack()) for lv in LEVELS],
        [Button(t(lang, "button-back"), Back(session).pack())],
    ]
    return screen(t(lang, "levels-title", game=esc(game_name(game_id, lang))), rows)


def next_value(option: Option, value: object) -> bool | int | str:
    """The value a settings button switches ``option`` to: the next choice, cycling."""
    if isinstance(option.default, bool):
        return not bool(value)
    values: list[Any] = list(option.choices)
    if not values and option.low is not None and option.high is not None:
        values = sorted({option.low, option.default, option.high})
    if not values:
        return option.default
    position = values.index(value) if value in values else -1
    next_one: bool | int | str = values[(position + 1) % len(values)]
    return next_one


def encode_value(value: bool | int | str) -> str:
    """An option value as button data (bools as 1/0)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def decode_value(option: Option, text: str) -> bool | int | str:
    """Button data back into an option value of the option's type."""
    if isinstance(option.default, bool):
        return text == "1"
    if isinstance(option.default, int):
        number = signed_number(text, 9)
        return text if number is None else number
    return text


def render_settings(
    session: int,
    game_id: str,
    schema: Sequence[Option],
    options: dict[str, Any],
    timer: int | None,
    lang: str,
) -> Screen:
    """The settings menu: each button switches one option to its next value; a number
    option with a range, and the turn timer, may also be typed ("✏️")."""
    rows: list[list[Button]] = []
    typed = t(lang, "button-type-value")
    for option in schema:
        current = options.get(option.name, option.default)
        label = f"{option_name(game_id, option.name, lang)}: {option_value(option, current, lang)}"
        data = SetOption(session, option.name, encode_value(next_value(option, current))).pack()
        rows.append([Button(label, data)])
        if option.low is not None and option.high is not None:
            rows[-1].append(Button(typed, TypeValue(session, option.name).pack()))
    following = TIMERS[(TIMERS.index(timer) + 1) % len(TIMERS)] if timer in TIMERS else None
    rows.append(
        [
            Button(
                f"{t(lang, 'option-timer')}: {timer_name(timer, lang)}",
                SetTimer(session, following or None).pack(),
            ),
            Button(typed, TypeValue(session, "timer").pack()),
        ]
    )
    rows.append([Button(t(lang, "button-back"), Back(session).pack())])
    lines = [
        t(lang, "settings-title", game=esc(game_name(game_id, lang))),
        "",
        *settings_lines(game_id, schema, options, timer, lang),
    ]
    return screen("\n".join(lines), rows)
