"""Routing: typed button fields, one placement per screen, views built once, languages
read once per update."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.callback import BadCallback, DealButton, HintsSetting, Join, SetTimer, unpack
from bot.placement import How, Pace, Placement, Where, place
from bot.render.common import screen
from games import REGISTRY
from sessions import Player, Preferences, Session
from tests.support.harness import Harness

# ---------------------------------------------------------------- typed buttons


def test_button_fields_come_back_typed() -> None:
    assert unpack("deal:7:2") == DealButton(7, 2)
    assert unpack("timer:7:300") == SetTimer(7, 300)
    assert unpack("timer:7:off") == SetTimer(7, None)
    assert unpack("hints:7:on") == HintsSetting(7, True)
    assert unpack("hints:7:off") == HintsSetting(7, False)
    for press in (DealButton(7, 2), SetTimer(7, None), SetTimer(7, 86400), HintsSetting(7, False)):
        assert unpack(press.pack()) == press


@pytest.mark.parametrize(
    ("data", "refusal"),
    [("deal:7:x", "deal_not_finished"), ("hints:7:maybe", "bad_option"), ("timer:7:soon", None)],
)
def test_a_bad_field_names_its_refusal_or_none(data: str, refusal: str | None) -> None:
    with pytest.raises(BadCallback) as raised:
        unpack(data)
    assert raised.value.refusal == refusal


def test_negative_numbers_are_not_packed() -> None:
    with pytest.raises(ValueError):
        DealButton(7, -1).pack()
    with pytest.raises(ValueError):
        Join(-3).pack()


# ---------------------------------------------------------------- placements


class _Recorder:
    """Delivery's two screen calls, recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def show(self, *args: Any, **flags: Any) -> None:
        self.calls.append(("show", flags))

    def show_ephemeral(self, *args: Any, **flags: Any) -> None:
        self.calls.append(("show_ephemeral", flags))


@pytest.mark.parametrize(
    ("placement", "call", "flags"),
    [
        (Placement(Where.GROUP, pace=Pace.URGENT), "show",
         {"repost": False, "edit_only": False, "final": False, "deferred": False,
          "urgent": True, "force": False, "thread": 0, "table": False}),
        (Placement(Where.GROUP, pace=Pace.TABLE), "show",
         {"repost": False, "edit_only": False, "final": False, "deferred": False,
          "urgent": False, "force": False, "thread": 0, "table": True}),
        (Placement(Where.PRIVATE, How.EDIT_ONLY, Pace.DEFERRED, final=True), "show",
         {"repost": False, "edit_only": True, "final": True, "deferred": True,
          "urgent": False, "force": False, "thread": 0, "table": False}),
        (Placement(Where.PRIVATE, How.REPOST, Pace.URGENT), "show",
         {"repost": True, "edit_only": False, "final": False, "deferred": False,
          "urgent": True, "force": False, "thread": 0, "table": False}),
        (Placement(Where.EPHEMERAL, How.REDRAW), "show_ephemeral",
         {"final": False, "force": True, "deferred": False, "urgent": False, "chat_id": -5}),
        (Placement(Where.EPHEMERAL, pace=Pace.URGENT), "show_ephemeral",
         {"final": False, "force": False, "deferred": False, "urgent": True, "chat_id": -5}),
        (Placement(Where.EPHEMERAL, pace=Pace.DEFERRED), "show_ephemeral",
         {"final": False, "force": False, "deferred": True, "urgent": False, "chat_id": -5}),
    ],
)
def test_a_placement_is_delivery_s_flags(
    placement: Placement, call: str, flags: dict[str, Any]
) -> None:
    recorder = _Recorder()
    place(recorder, 1, "table", -5, screen("x"), 3, placement)  # type: ignore[arg-type]
    assert recorder.calls == [(call, flags)]


# ---------------------------------------------------------------- views


def _session(game: Any) -> Session:
    seats = [Player(1, "A", None), Player(None, "C", "easy")]
    return Session(1, -5, "group", "eleven", "running", 1, seats, {}, None, 1, None, game,
                   None, 0.0)


def test_a_snapshot_builds_each_view_once(monkeypatch: pytest.MonkeyPatch) -> None:
    game_class = REGISTRY["eleven"]
    built: list[int | None] = []
    original = game_class.view

    def counted(self: Any, seat: int | None) -> Any:
        built.append(seat)
        return original(self, seat)

    monkeypatch.setattr(game_class, "view", counted)
    session = _session(game_class.new(players=2, seed=3))
    assert session.view(0) is session.view(0)
    session.hand_key(0)
    session.view(None)
    assert built == [0, None]
    later = replace(session, version=2)  # the same game: the same views
    assert later.view(0) is session.view(0) and built == [0, None]
    moved = replace(session, game=session.game.clone() if session.game else None)
    moved.view(0)
    assert built == [0, None, 0]


# ---------------------------------------------------------------- languages


async def test_a_press_reads_the_presser_s_language_once(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = harness.fake
    ivan = fake.user("Ivan", language_code="ru")
    chat = fake.private(ivan)
    await harness.command(ivan, chat.id, "/rules")
    menu = fake.last_message(chat.id)
    assert menu is not None
    reads: list[tuple[str, int]] = []
    original = Preferences.language

    async def counted(self: Preferences, scope: str, key: int) -> str | None:
        reads.append((scope, key))
        return await original(self, scope, key)

    monkeypatch.setattr(Preferences, "language", counted)
    answer = await fake.answer(fake.push_callback(ivan, chat, menu.message_id, "rules:0:king"))
    await harness.settle()
    assert "text" not in answer.params  # a plain answer: the rules came as a message
    assert reads == [("user", ivan.id)]
    rules = fake.last_message(chat.id)
    assert rules is not None and "Кинг" in rules.text
