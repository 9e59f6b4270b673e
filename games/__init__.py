"""Koloda's rules engines: pure Python, no I/O, one class per game.

``REGISTRY`` maps each game id of docs/rules.md to its class, in the order the
menus list them; it is the one list of games, and everything else derives from
it (the computer players: ``games.ai.PLAYBOOKS``)::

    game = REGISTRY["eleven"].new(players=2, options={"target": 5}, seed=42)

A new game is a module here with its :class:`Game` class added to
:data:`GAMES`, and a module of the same name in ``games.ai`` with its
computer player (``docs/games-api.md``).
"""

from types import MappingProxyType

from games.base import BadOptions, Event, Game, IllegalAction, Option, View
from games.eleven import Eleven
from games.fifteen import Fifteen
from games.king import King
from games.mau_mau import MauMau
from games.oh_hell import OhHell
from games.rummy import Rummy
from games.two_ten_jack import TwoTenJack

#: Every game, in menu order.
GAMES: tuple[type[Game], ...] = (Eleven, TwoTenJack, Fifteen, Rummy, MauMau, OhHell, King)
REGISTRY: MappingProxyType[str, type[Game]] = MappingProxyType({game.id: game for game in GAMES})

__all__ = ["GAMES", "REGISTRY", "BadOptions", "Event", "Game", "IllegalAction", "Option", "View"]
