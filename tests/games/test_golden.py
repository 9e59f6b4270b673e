"""Golden transcripts: a seeded match of every game must play out exactly as stored.

A failure shows the readable diff between ``tests/games/golden/<id>.txt`` and what the
rules produce now. If the change is intended, regenerate with
``.venv/bin/python -m tests.support.golden_transcripts --update`` and commit the new files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.support.golden_transcripts as golden
from games import REGISTRY
from tests.support.golden_transcripts import TABLES, diff, golden_path, transcript


def test_every_registered_game_has_a_golden_table() -> None:
    assert sorted(TABLES) == sorted(REGISTRY)


@pytest.mark.parametrize("game_id", sorted(TABLES))
def test_transcript_matches_the_golden_file(game_id: str) -> None:
    assert golden_path(game_id).exists(), (
        "no golden file: run python -m tests.support.golden_transcripts --update"
    )
    changes = diff(game_id)
    if changes:
        pytest.fail(
            f"{game_id} plays differently from its golden transcript "
            "(if intended: .venv/bin/python -m tests.support.golden_transcripts "
            f"--update {game_id})\n"
            + changes,
            pytrace=False,
        )


@pytest.mark.parametrize("game_id", sorted(TABLES))
def test_transcripts_are_deterministic_and_cover_the_deal(game_id: str) -> None:
    first = transcript(TABLES[game_id])
    assert transcript(TABLES[game_id]) == first
    assert "== deal 0" in first and "  1. seat " in first


def test_a_changed_rule_shows_as_a_readable_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(golden, "GOLDEN_DIR", tmp_path)
    assert golden.main(["--update", "eleven"]) == 0
    assert golden.diff("eleven") == ""
    stored = golden_path("eleven").read_text(encoding="utf-8")
    golden_path("eleven").write_text(stored.replace("winner=0", "winner=1", 1), encoding="utf-8")
    changes = golden.diff("eleven")
    assert "-" in changes and "+" in changes and "winner=1" in changes
    assert golden.main(["eleven"]) == 1
