"""The rules API contract, checked for every registered game (docs/games-api.md).

Random legal play from many seeds, player counts and option sets, with the
invariants every game must keep at every step: cards conserved, no hidden card
in a view or an event, the JSON round trip and determinization faithful,
illegal actions refused without a trace.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import REGISTRY, BadOptions, Game, IllegalAction
from games.base import copy_state
from games.cards import is_card

GAME_IDS = sorted(REGISTRY)
STEP_LIMIT = 60_000
CHECK_EVERY = 5

if not GAME_IDS:  # pragma: no cover - only before the first engine exists
    pytest.skip("no games registered", allow_module_level=True)


def card_tokens(value: Any) -> set[str]:
    """Every card code mentioned anywhere in JSON-like data."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            for part in item.replace(",", ":").replace("-", ":").split(":"):
                if is_card(part):
                    found.add(part)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


@st.composite
def tables(draw: st.DrawFn, game_id: str) -> tuple[int, dict[str, Any], int]:
    """A player count, a valid option set and a seed for ``game_id``."""
    cls = REGISTRY[game_id]
    for _ in range(50):
        players = draw(st.integers(cls.min_players, min(cls.max_players, 7)))
        options: dict[str, Any] = {}
        for opt in cls.options_schema:
            choices = list(opt.choices) or [opt.default]
            if isinstance(opt.default, int) and not isinstance(opt.default, bool):
                # Short matches keep the suite fast: the smallest offered limit.
                choices = [min(choices)] if opt.name in {"target", "limit"} else choices
            options[opt.name] = draw(st.sampled_from(choices))
        try:
            cls.validate_options(players, options)
        except BadOptions:
            continue
        return players, options, draw(st.integers(0, 2**32))
    return cls.min_players, {}, draw(st.integers(0, 2**32))


def assert_cards_conserved(game: Game) -> None:
    zones = game.card_zones()
    placed = [card for cards in zones.values() for card in cards]
    assert sorted(placed) == sorted(game.deck_cards()), zones


#: View keys that describe the previous, finished deal: their cards are back in the deck.
PAST_DEAL_KEYS = ("last_deal", "last_showdown")


def assert_no_leaks(game: Game) -> None:
    for seat in [None, *range(game.players)]:
        hidden = game.hidden_cards(seat)
        view = game.view(seat)
        for key in PAST_DEAL_KEYS:
            view.pop(key, None)
        leaked = card_tokens(view) & hidden
        assert not leaked, f"view({seat}) shows hidden cards {sorted(leaked)}"


def assert_determinize_faithful(game: Game, rng: random.Random) -> None:
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    sample = type(game).determinize(view, random.Random(rng.random()))
    assert sample.view(seat) == view
    assert sample.legal_actions(seat) == game.legal_actions(seat)
    assert_cards_conserved(sample)


def assert_refuses_illegal(game: Game, rng: random.Random) -> None:
    before = game.to_dict()
    seat = game.to_move
    assert seat is not None
    legal = set(game.legal_actions(seat))
    others = [s for s in range(game.players) if s != seat]
    attempts = [(seat, "ZZ"), (seat, ""), (game.players, next(iter(legal))), (-1, "AS")]
    attempts += [(seat, card) for card in game.deck_cards() if card not in legal][:3]
    if others:
        wrong = rng.choice(others)
        attempts.append((wrong, next(iter(legal))))
        assert game.legal_actions(wrong) == []
    for who, action in attempts:
        with pytest.raises(IllegalAction) as refused:
            game.apply(who, action)
        assert refused.value.reason
        assert game.to_dict() == before


def play_and_check(game: Game, rng: random.Random) -> int:
    """Random legal play to the end with the contract's checks; returns the step count."""
    round_trip_at = rng.randrange(1, 200)
    steps = 0
    while not game.finished:
        assert steps < STEP_LIMIT, "the match does not end"
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions(seat)
        assert legal, "the seat to move has no legal action"
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        assert all(len(a.encode()) <= 24 for a in legal), legal
        if steps % CHECK_EVERY == 0:
            assert_cards_conserved(game)
            assert_no_leaks(game)
            assert_determinize_faithful(game, rng)
            assert game.view(seat)["legal"] == legal
        if steps % (CHECK_EVERY * 7) == 1:
            assert_refuses_illegal(game, rng)
        if steps == round_trip_at:
            restored = type(game).from_dict(json.loads(json.dumps(game.to_dict())))
            assert restored == game
            assert_same_future(game, restored, random.Random(steps))
            # what the session layer stores: the same data, uncopied
            assert game.snapshot() == game.to_dict()
            assert type(game).from_dict(json.loads(json.dumps(game.snapshot()))) == game
        action = rng.choice(legal)
        deal_no = game.deal_no
        events = game.apply(seat, action)
        assert isinstance(events, list)
        assert all(isinstance(e, dict) and "type" in e for e in events)
        json.dumps(events)
        if game.deal_no == deal_no and not game.finished:
            # (A move that ends a deal may show the cards the new deal hides again.)
            leaked = card_tokens(events) & game.hidden_cards(None)
            assert not leaked, f"events {events} reveal hidden cards {sorted(leaked)}"
        steps += 1
    return steps


def assert_same_future(a: Game, b: Game, rng: random.Random) -> None:
    """Two equal games stay equal under the same actions for a while."""
    a, b = a.clone(), b.clone()
    for _ in range(40):
        if a.finished:
            break
        seat = a.to_move
        assert seat is not None and seat == b.to_move
        action = rng.choice(a.legal_actions(seat))
        assert a.apply(seat, action) == b.apply(seat, action)
        assert a == b


def assert_finished_properly(game: Game) -> None:
    result = game.result
    assert result is not None
    assert game.to_move is None
    assert len(result["scores"]) == game.players
    assert set(result["winners"]) <= set(range(game.players))
    for seat in range(game.players):
        assert game.legal_actions(seat) == []
    with pytest.raises(IllegalAction) as refused:
        game.apply(0, "AS")
    assert refused.value.reason == "finished"


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_play_keeps_the_contract(game_id: str, data: st.DataObject) -> None:
    players, options, seed = data.draw(tables(game_id))
    game = REGISTRY[game_id].new(players, options, seed=seed)
    play_and_check(game, random.Random(seed))
    assert_finished_properly(game)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_same_seed_same_match(game_id: str) -> None:
    cls = REGISTRY[game_id]
    first, second = cls.new(cls.min_players, seed=7), cls.new(cls.min_players, seed=7)
    assert first == second
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(60):
        if first.finished:
            break
        seat = first.to_move
        assert seat is not None
        action = rng_a.choice(first.legal_actions(seat))
        assert action == rng_b.choice(second.legal_actions(seat))
        first.apply(seat, action)
        second.apply(seat, action)
        assert first == second
    different = [cls.new(cls.min_players, seed=s).view(None) for s in range(8)]
    assert len({json.dumps(v, sort_keys=True) for v in different}) > 1


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_stacked_deck_is_dealt_and_checked(game_id: str) -> None:
    cls = REGISTRY[game_id]
    players = cls.min_players
    deck = sorted(cls.new(players, seed=3).deck_cards())
    game = cls.new(players, seed=3, dealer=0, deck=deck)
    again = cls.new(players, seed=99, dealer=0, deck=deck)
    assert game.view(None) == again.view(None)
    for seat in range(players):
        assert game.view(seat)["hand"] == again.view(seat)["hand"]
    with pytest.raises(BadOptions):
        cls.new(players, seed=3, dealer=0, deck=deck[1:])
    with pytest.raises(BadOptions):
        cls.new(players, seed=3, dealer=players)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_bad_tables_are_refused(game_id: str) -> None:
    cls = REGISTRY[game_id]
    with pytest.raises(BadOptions) as too_few:
        cls.new(cls.min_players - 1)
    assert too_few.value.option == "players"
    with pytest.raises(BadOptions):
        cls.new(cls.max_players + 1)
    with pytest.raises(BadOptions) as unknown:
        cls.new(cls.min_players, {"no_such_option": 1})
    assert unknown.value.option == "no_such_option"
    for opt in cls.options_schema:
        wrong: object = "nonsense" if not isinstance(opt.default, str) else 12345
        with pytest.raises(BadOptions) as bad:
            cls.new(cls.min_players, {opt.name: wrong})
        assert bad.value.option == opt.name


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_old_or_foreign_data_is_refused(game_id: str) -> None:
    cls = REGISTRY[game_id]
    data = cls.new(cls.min_players, seed=1).to_dict()
    with pytest.raises(ValueError):
        cls.from_dict({**data, "format": cls.FORMAT + 1})
    other = next((g for g in GAME_IDS if g != game_id), None)
    if other:
        with pytest.raises(ValueError):
            cls.from_dict({**data, "game": other})


# ---------------------------------------------------------------- copy_state

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


def _mutate_every_container(value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            _mutate_every_container(item)
        value.append("changed")
    elif isinstance(value, dict):
        for item in value.values():
            _mutate_every_container(item)
        value["changed"] = "changed"


@given(json_like)
def test_copy_state_is_an_equal_independent_copy(value: Any) -> None:
    copied = copy_state(value)
    assert copied == value and type(copied) is type(value)
    original = json.dumps(value, sort_keys=True)
    _mutate_every_container(copied)  # every list and dict, however deep
    assert json.dumps(value, sort_keys=True) == original


def test_copy_state_copies_containers_around_values_marshal_cannot_carry() -> None:
    class Marker:
        pass

    marker = Marker()
    state: dict[str, Any] = {"hands": [["7S"], ["AH"]], "extra": marker}
    copied = copy_state(state)
    assert copied == state and copied["extra"] is marker  # shared, as before
    copied["hands"][0].append("KD")
    assert state["hands"][0] == ["7S"]  # the containers are still independent


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_views_are_independent_of_the_game_and_of_each_other(
    game_id: str, data: st.DataObject
) -> None:
    players, options, seed = data.draw(tables(game_id))
    game = REGISTRY[game_id].new(players, options, seed=seed)
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(0, 80))):  # somewhere into the match
        if game.finished or game.to_move is None:
            break
        game.apply(game.to_move, rng.choice(game.legal_actions(game.to_move)))
    state = json.dumps(game.to_dict(), sort_keys=True)
    seats: list[int | None] = [None, *range(players)]
    shown = [json.dumps(game.view(seat), sort_keys=True) for seat in seats]
    for seat in seats:
        _mutate_every_container(game.view(seat))  # a careless reader of one view
    assert json.dumps(game.to_dict(), sort_keys=True) == state
    assert [json.dumps(game.view(seat), sort_keys=True) for seat in seats] == shown


def test_the_fallback_copy_copies_inside_tuples_too() -> None:
    class Marker:
        pass

    parts = ([["7S"]], {"rows": [1]}, Marker())
    copied = copy_state(parts)
    assert type(copied) is tuple and copied[2] is parts[2]
    copied[0][0].append("KD")
    copied[1]["rows"].append(2)
    assert parts[0] == [["7S"]] and parts[1] == {"rows": [1]}
