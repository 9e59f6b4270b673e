"""Golden snapshots of ⚖️ Compare in both languages (tests/bot/golden/bot_compare_*.txt):
a rival who chose differently, runs of agreed decisions folded into one line, a
rival's card hidden while the day lasts, the viewer alone on the day's board.

Regenerate after an intended change with
``KOLODA_UPDATE_GOLDEN=1 python -m pytest tests/bot/test_bot_golden_compare.py``.
"""

from __future__ import annotations

import pytest

from bot.render.common import Screen
from bot.render.compare import render_compare
from sessions.compare import Comparison, Rival, Same, Step
from tests.support.golden_screens import check_golden

#: The best of the day's board, with a name to escape.
BOB = Rival(12, "Bob & <Co>", 13.0, 1)
#: The runner-up when the viewer tops the board.
ALICE = Rival(11, "Алиса", 2.0, 2)


def oh_hell(rival: Rival | None, *steps: Step, unjudged: int = 0) -> Comparison:
    """Seat 0's decisions in deal 3 of a daily Oh Hell."""
    return Comparison(7, 2, "oh_hell", 0, rival, steps, unjudged)


def eleven(rival: Rival, *steps: Step) -> Comparison:
    """Seat 0's decisions in the daily Eleven deal: drawn from a stock, so a rival's
    game that went apart holds cards the viewer never saw."""
    return Comparison(8, 0, "eleven", 0, rival, steps, 0)


def screens(lang: str) -> dict[str, Screen]:
    """⚖️ Compare of made-up daily deals, in its four shapes."""
    differed = oh_hell(
        BOB,
        Step(1, 0, "bid:1", "bid:1", "bid:1"),
        Step(2, 1, "AS", "AS", "AS"),
        Step(3, 2, "KH", "KH", "KH"),
        Step(4, 3, "QD", "2D", "2D"),
        Step(5, 4, "9C", "9C", "9C"),
        Step(6, 5, "JS", "3S", "JS"),
        Step(7, 6, "5H", None, "5H"),
    )
    hidden = eleven(
        ALICE,
        Step(1, 1, "AS", "AS", "AS"),
        Step(2, 2, "7H", "KD", "7H"),
        Step(3, 3, "TS", "", "TS", hidden=True),
        Step(4, 4, "QC", "QC", "QC"),
        Step(5, 5, "4C", "", "7C", hidden=True),
    )
    alone = oh_hell(
        None,
        Step(1, 0, "bid:0", None, "bid:1"),
        Step(2, 1, "AS", None, "AS"),
        Step(3, 2, "KH", None, "KH"),
        Step(4, 3, "QD", None, None),
        unjudged=1,
    )
    return {
        "compare_differed": render_compare(differed, lang),
        "compare_hidden": render_compare(hidden, lang),
        "compare_alone": render_compare(alone, lang),
        "compare_nothing": render_compare(oh_hell(None), lang),
    }


NAMES = sorted(screens("en"))


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", NAMES)
def test_golden_compare_screen(name: str, lang: str) -> None:
    check_golden(f"{name}_{lang}", screens(lang)[name])


def test_a_decision_with_a_choice_missing_is_never_called_the_same() -> None:
    over = Step(1, 1, "5H", None, "5H")  # the rival's deal was over before it
    unjudged = Step(2, 2, "AS", "AS", None)  # the computer had no time for it
    both = Step(3, 3, "KS", "KS", "KS")
    assert list(oh_hell(BOB, over, unjudged, both).runs()) == [over, unjudged, Same(3, 3)]
    # alone on the board, the rival is missing everywhere: only the computer counts
    assert list(oh_hell(None, over, unjudged).runs()) == [Same(1, 1), unjudged]
