"""Golden snapshots of the record screens in both languages (tests/bot/golden/bot_*.txt).

Regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_golden_records.py``.
"""

from __future__ import annotations

import os
import random

import pytest

from bot.render.common import Screen, screen
from bot.render.record import match_record, render_deal, render_history, seed_lines
from games import REGISTRY
from games.record import deal_records
from tests.support.golden_screens import GOLDEN, SEATS, snapshot

WHEN = 1_800_000_000.0


def screens(lang: str) -> dict[str, Screen]:
    """The first deal of a seeded Oh Hell match (three deals), its document, a history."""
    oh_hell = REGISTRY["oh_hell"]
    options = oh_hell.validate_options(3, {})
    game, rng, log = oh_hell.new(3, options, 2026), random.Random(2026), []
    while game.deal_no < 3:
        seat = game.to_move
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        log.append((seat, action))
    records = deal_records("oh_hell", 3, options, 2026, log)
    result = {"scores": list(game.scores), "winners": [0]}
    history = render_history(
        [(9, "oh_hell", WHEN, ["Алиса"]), (4, "mau_mau", WHEN - 86400, [])], lang
    )
    return {
        # mid-match: the seed is still sealed; the whole match: it is revealed
        "deal": render_deal(
            records[1], "oh_hell", SEATS[:3], lang,
            seed_lines("oh_hell", 3, options, 2026, False, lang),
        ),
        "record": screen(
            match_record(
                "oh_hell", records, SEATS[:3], result, WHEN, lang,
                seed_lines("oh_hell", 3, options, 2026, True, lang),
            )
        ),
        "history": history,
    }


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", ["deal", "record", "history"])
def test_golden_record_screen(name: str, lang: str) -> None:
    text = snapshot(screens(lang)[name])
    path = GOLDEN / f"bot_{name}_{lang}.txt"
    if os.environ.get("KOLODA_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
