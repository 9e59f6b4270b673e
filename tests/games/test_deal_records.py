"""Deal records from seed + move log: complete, and nothing of a deal in play.

Property: for any prefix of any match, the records are exactly the finished
deals — the same as those of the whole match — so no card of the deal being
played (nor of one not yet dealt) appears in a record or in the document.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.record import match_record, render_deal
from games import REGISTRY
from games.record import deal_records
from sessions import Player

PLAYERS = {"king": 4, "oh_hell": 3, "two_ten_jack": 3, "mau_mau": 3}


def playout(game_id: str, seed: int) -> tuple[int, dict[str, object], list[tuple[int, str]]]:
    """A whole random match: players, options, move log."""
    cls = REGISTRY[game_id]
    players = PLAYERS.get(game_id, cls.min_players)
    options = cls.validate_options(players, {})
    game, rng, log = cls.new(players, options, seed), random.Random(seed), []
    while not game.finished:
        seat = game.to_move
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        log.append((seat, action))
    return players, options, log


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(REGISTRY)), st.integers(0, 2**31), st.floats(0, 1))
def test_a_record_holds_only_finished_deals(game_id: str, seed: int, cut: float) -> None:
    players, options, log = playout(game_id, seed)
    whole = deal_records(game_id, players, options, seed, log)
    prefix = log[: int(len(log) * cut)]
    game = REGISTRY[game_id].new(players, options, seed)
    deal_began = 0  # where in the log the deal in play began
    for n, (seat, action) in enumerate(prefix, start=1):
        before = game.deal_no
        game.apply(seat, action)
        if game.deal_no != before or game.finished:
            deal_began = n
    partial = deal_records(game_id, players, options, seed, prefix)
    finished = game.deal_no + 1 if game.finished else game.deal_no
    assert partial == whole[:finished]  # nothing of the deal in play, however far it is
    if not game.finished:
        assert all(record.deal_no < game.deal_no for record in partial)
        # not one move of the deal in play is in a record
        assert sum(len(record.turns) for record in partial) == deal_began
    seats = [Player(n, f"P{n}", None) for n in range(players)]
    for record in partial:
        assert render_deal(record, game_id, seats, "en") == render_deal(
            whole[record.deal_no], game_id, seats, "en"
        )


def test_every_deal_of_a_match_is_recorded_with_its_points() -> None:
    for game_id in sorted(REGISTRY):
        players, options, log = playout(game_id, 11)
        records = deal_records(game_id, players, options, 11, log)
        assert sum(len(r.turns) for r in records) == len(log)
        assert [r.deal_no for r in records] == list(range(len(records)))
        game = REGISTRY[game_id].new(players, options, 11)
        for seat, action in log:
            game.apply(seat, action)
        assert game.result is not None
        assert list(records[-1].scores) == list(game.result["scores"])
        seats = [Player(n, f"P{n}", None) for n in range(players)]
        for lang in ("en", "ru"):
            document = match_record(game_id, records, seats, game.result, 1.8e9, lang)
            assert document.count("📜") == len(records)
