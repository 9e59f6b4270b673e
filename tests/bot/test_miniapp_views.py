"""The Mini App's payload never holds a card its reader may not see, in any game.

Every game is played at random from a new match; at every position the page's
JSON for each seat (and for a spectator: the public view) is searched for card
codes and card names, and none may be one ``game.hidden_cards(seat)`` names
(the previous deal's summary in the table's text is exempt: its cards are back
in the deck).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from bot.i18n import t
from bot.miniapp.payload import seat_view
from bot.screens import Screens
from games import REGISTRY
from games.base import Game
from games.cards import display
from sessions import Player, Session

CODE_RUN = re.compile(r"(?<![A-Za-z0-9])((?:[AKQJT2-9][SHDC])+)(?![A-Za-z0-9])")
SUMMARY_KEYS = ("showdown-won", "showdown-carried", "last-deal-out", "last-deal-rummy")
STEPS = 120


def summary_prefixes() -> tuple[str, ...]:
    """The opening words of every previous-deal summary line, both languages."""
    found = []
    for lang in ("en", "ru"):
        for key in SUMMARY_KEYS:
            text = t(lang, key, hands="@", winner="@", n=0, penalties="@")
            found.append(text.split("@")[0].strip())
    return tuple(found)


PREFIXES = summary_prefixes()


def codes_in(value: Any) -> set[str]:
    """Every card code in the JSON's strings (runs such as meld:7H8H9H too)."""
    found: set[str] = set()
    for run in CODE_RUN.findall(json.dumps(value)):
        found.update(run[i : i + 2] for i in range(0, len(run), 2))
    return found


def names_in(text: str, hidden: set[str], lang: str) -> set[str]:
    """Which hidden cards the table's text names, summary lines aside."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith(PREFIXES))
    return {
        code for code in hidden
        if re.search(r"(?<![0-9A-Za-zА-Яа-яЁё])" + re.escape(display(code, lang)), body)
    }


def session_of(game: Game, game_id: str, version: int) -> Session:
    """A running group session around ``game``: every seat a human."""
    seats = [Player(1000 + seat, f"P{seat}", None) for seat in range(game.players)]
    return Session(
        id=1, chat_id=-100, kind="group", game_id=game_id, status="running", creator_id=1000,
        seats=seats, options=dict(game.options), timer=None, version=version, deadline=None,
        game=game, result=None, created_at=0.0, link="tok",
    )


def audit(session: Session, screens: Screens, lang: str) -> None:
    game = session.game
    assert game is not None
    for seat in [None, *range(game.players)]:
        payload = seat_view(screens, session, seat, lang)
        hidden = game.hidden_cards(seat)
        text = payload.pop("table")
        leaked = codes_in(payload) & hidden
        assert not leaked, (session.game_id, seat, leaked)
        assert not names_in(text, hidden, lang), (session.game_id, seat, text)
        if seat is None:
            assert payload["moves"] == [] and payload["view"]["hand"] is None
        else:
            view = game.view(seat)
            assert sorted(payload["view"]["hand"]) == sorted(view["hand"])
            assert [m["action"] for m in payload["moves"]] == list(view["legal"])


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_no_payload_shows_a_hidden_card(game_id: str, lang: str) -> None:
    kind = REGISTRY[game_id]
    rng = random.Random(f"{game_id}-{lang}")
    screens = Screens("koloda_bot")
    for players in sorted({kind.min_players, kind.players_allowed({})}):
        game = kind.new(players=players, seed=rng.randrange(1 << 30))
        for version in range(STEPS):
            if game.finished or game.to_move is None:
                break
            audit(session_of(game, game_id, version), screens, lang)
            seat = game.to_move
            game.apply(seat, rng.choice(game.legal_actions(seat)))


def test_a_spectator_gets_the_public_table_and_no_buttons() -> None:
    game = REGISTRY["eleven"].new(players=2, seed=3)
    payload = seat_view(Screens("koloda_bot"), session_of(game, "eleven", 5), None, "en")
    assert payload["seat"] is None and payload["moves"] == [] and payload["extras"] == []
    assert payload["view"]["hand"] is None
    assert "Stock" in payload["table"] and "<" not in payload["table"]


def test_card_names_are_the_chats_own_in_each_language() -> None:
    game = REGISTRY["king"].new(players=4, seed=7)
    session = session_of(game, "king", 1)
    seat = game.to_move
    assert seat is not None
    ru = seat_view(Screens(), session, seat, "ru")
    en = seat_view(Screens(), session, seat, "en")
    for code in ru["view"]["hand"]:
        assert ru["names"][code] == display(code, "ru")
        assert en["names"][code] == display(code, "en")
    assert ru["words"]["play"] == "сыграть" and en["words"]["play"] == "play"


def test_the_deal_before_this_one_is_offered_to_every_reader_as_the_table_does() -> None:
    game = REGISTRY["fifteen"].new(players=2, seed=11)
    rng = random.Random(4)
    for version in range(200):
        if game.deal_no >= 1:
            break
        seat = game.to_move
        assert seat is not None
        session = session_of(game, "fifteen", version)
        assert all(not any(e["action"].startswith("deal:") for e in
                           seat_view(Screens(), session, s, "en")["extras"])
                   for s in (None, 0, 1))
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    session = session_of(game, "fifteen", 300)
    deal = {"action": f"deal:{game.deal_no - 1}", "label": t("ru", "button-deal")}
    for seat in (None, 0, 1):
        assert deal in seat_view(Screens(), session, seat, "ru")["extras"]
