"""The golden screens of the bot: where they are stored, the seats, the text form."""

from __future__ import annotations

import os
from pathlib import Path

from bot.render.common import Screen
from sessions import Player

GOLDEN = Path(__file__).resolve().parents[1] / "bot" / "golden"

SEATS = [
    Player(11, "Алиса", None),
    Player(12, "Bob & <Co>", None),
    Player(None, "Computer (easy)", "easy"),
    Player(None, "Computer (strong)", "strong"),
]


def snapshot(screen: Screen) -> str:
    """The screen as plain text: message, then ``[label → data]`` per row."""
    rows = [" ".join(f"[{b.label} → {b.data or b.url}]" for b in row) for row in screen.rows]
    return "\n".join([screen.text, "---", *rows]) + "\n"


def check_golden(name: str, screen: Screen) -> None:
    """``screen`` is the golden ``bot_<name>.txt`` (written first, or again with
    ``KOLODA_UPDATE_GOLDEN=1``)."""
    text = snapshot(screen)
    path = GOLDEN / f"bot_{name}.txt"
    if os.environ.get("KOLODA_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
