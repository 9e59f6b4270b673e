"""Deals anyone can verify (games/verify.py): the committed hash, the revealed seed and
the re-dealt cards agree, for every game, and the command line prints them."""

from __future__ import annotations

import hashlib
import random

import pytest

from games import REGISTRY
from games.record import deal_records
from games.verify import command, deck_order, first_deal, main, seed_hash, short_hash


def test_the_hash_is_sha256_of_the_canonical_seed_string() -> None:
    assert seed_hash(12345) == hashlib.sha256(b"koloda:12345").hexdigest()
    assert short_hash(12345) == seed_hash(12345)[:8]
    assert short_hash(12345) != short_hash(12346)


@pytest.mark.parametrize("game_id", sorted(REGISTRY))
def test_the_re_dealt_cards_are_the_recorded_ones(game_id: str) -> None:
    rules = REGISTRY[game_id]
    players = rules.min_players
    options = rules.validate_options(players, {})
    seed = random.Random(game_id).randrange(2**63)
    game, rng, log = rules.new(players, options, seed), random.Random(7), []
    while game.deal_no < 1 and not game.finished:
        seat = game.to_move
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        log.append((seat, action))
    record = deal_records(game_id, players, options, seed, log)[0]
    dealer, hands = first_deal(game_id, players, options, seed)
    assert dealer == record.dealer
    assert [tuple(hand) for hand in hands] == list(record.hands)
    # another seed deals other cards
    assert first_deal(game_id, players, options, seed + 1)[1] != hands


def test_the_command_line_prints_the_hash_and_the_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eleven", "12345", "--players", "2", "--deal", "2"]) == 0
    out = capsys.readouterr().out
    assert f"table:     {short_hash(12345)}" in out
    _, hands = first_deal("eleven", 2, {}, 12345)
    assert f"seat 1: {' '.join(hands[0])}" in out
    assert " ".join(deck_order("eleven", 2, {}, 12345, 1)) in out


def test_the_record_s_command_re_deals_a_table_with_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = command("eleven", 2, {"target": 7, "dealer_leads": False}, 99)
    assert line == "python -m games.verify eleven 99 --players 2 --option target=7"
    assert main(line.split()[3:]) == 0
    assert "options {\"dealer_leads\": false, \"target\": 7}" in capsys.readouterr().out


def test_a_bad_table_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eleven", "1", "--players", "9"]) == 2
    assert "bad table" in capsys.readouterr().err
    assert main(["eleven", "1", "--deal", "0"]) == 2
