"""Koloda's rules engines: pure Python, no I/O, one class per game.

``REGISTRY`` maps each game id of docs/rules.md to its class::

    game = REGISTRY["eleven"].new(players=2, options={"target": 5}, seed=42)
"""

from games.base import BadOptions, Event, Game, IllegalAction, Option, View

REGISTRY: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: add a game to ``REGISTRY`` under its ``id``."""
    REGISTRY[cls.id] = cls
    return cls


def _load_games() -> None:
    import importlib

    for name in ("eleven", "two_ten_jack", "fifteen", "rummy", "mau_mau", "oh_hell", "king"):
        try:
            importlib.import_module(f"games.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"games.{name}":
                raise


_load_games()

__all__ = ["REGISTRY", "BadOptions", "Event", "Game", "IllegalAction", "Option", "View", "register"]
