"""What the page shows, as JSON: one seat's view of a session, drawn for the page.

Pure, like :mod:`bot.screens`: a :class:`~sessions.Session` in, a JSON-able dict
out. The cards come from ``session.view(seat)`` alone (``None``: the public
view a spectator gets), so nothing reaches the page that the rules do not let
that seat know; the table's text is the group's own drawing of the public view
(:meth:`bot.screens.Screens.table_text`), as plain text; every button's label
is the chat's own (:func:`bot.render.common.action_label`), in the viewer's
language.
"""

from __future__ import annotations

import re
from typing import Any

from bot.i18n import t
from bot.render.common import action_label, game_name
from bot.render.text import clean_name, plain
from bot.screens import Screens, practice_actions
from games.cards import display, is_card, sort_hand
from sessions import Session

#: The page's own words (each ``miniapp-<key>`` in the catalogs), sent with the view.
WORDS = (
    "play", "your-turn", "wait", "hand", "trick", "last-trick", "spectator", "four-colour",
    "offline", "timer", "stock", "discard", "trumps", "melds", "hint", "take-back",
    "finished", "cancelled", "lobby", "theme", "refused",
)
#: The action of a 📜 Deal extra: ``deal:<deal number>``.
DEAL = "deal:"
#: A run of card codes standing alone in a string ("QS", "meld:7H8H9H").
_CARD_RUN = re.compile(r"(?<![A-Za-z0-9])((?:[AKQJT2-9][SHDC])+)(?![A-Za-z0-9])")
#: The view keys the page draws as cards (the rest it leaves to the table's text).
CARD_KEYS = (
    "hand", "legal", "trick", "last_trick", "trump_card", "trumps", "discard_top", "stock_top",
    "stock", "melds", "rows", "known_cards", "hand_sizes", "to_move", "contract", "phase",
    "total", "scores", "deal_no", "dealer",
)


def words(lang: str) -> dict[str, str]:
    """The page's words in ``lang``; a word with a value keeps ``{name}`` where the page
    puts it."""
    holes = {"name": "{name}", "time": "{time}", "n": "{n}"}
    return {key: t(lang, f"miniapp-{key}", **holes) for key in WORDS}


def card_names(lang: str, codes: list[str]) -> dict[str, str]:
    """Each card's name as the chat writes it (``Q♠`` / ``Д♠``), for its aria-label."""
    return {code: display(code, lang) for code in codes if is_card(code)}


def seat_view(screens: Screens, session: Session, seat: int | None, lang: str) -> dict[str, Any]:
    """The page's JSON for ``seat`` (None: a spectator) at ``session``."""
    payload: dict[str, Any] = {
        "session": session.id,
        "version": session.version,
        "status": session.status,
        "game": session.game_id,
        "game_name": game_name(session.game_id, lang),
        "lang": lang,
        "seat": seat,
        "words": words(lang),
        "seats": [
            {"name": clean_name(p.name) or "?", "computer": p.is_computer}
            for p in session.seats
        ],
        "deadline": session.deadline if session.status == "running" else None,
        "view": None,
        "moves": [],
        "extras": [],
        "table": "",
    }
    if session.status != "running" or session.game is None:
        payload["table"] = plain(screens.table_screen(session, lang).text)
        if session.status == "finished" and session.game is not None:
            payload["extras"] = [deal_extra(session.game.deal_no, lang)]
        return payload
    view = session.view(seat)
    shown = {key: view[key] for key in CARD_KEYS if key in view}
    if shown.get("hand"):
        shown["hand"] = sort_hand(list(shown["hand"]), view.get("trumps"))
    payload["view"] = shown
    payload["table"] = plain(screens.table_text(session, lang, seat, view))
    legal: list[str] = list(view.get("legal") or []) if seat is not None else []
    payload["moves"] = [{"action": a, "label": action_label(a, lang)} for a in legal]
    extras = []
    if seat is not None:  # the chat's 💡 and ↩️, where the hand message offers them
        extras = [{"action": action, "label": t(lang, f"button-{action}")}
                  for action in practice_actions(session, seat)]
    deal_no = int(view.get("deal_no") or 0)
    if deal_no >= 1:  # as the table's 📜 Deal: the deal before this one, for everyone
        extras.append(deal_extra(deal_no - 1, lang))
    payload["extras"] = extras
    payload["names"] = card_names(lang, _cards_of(shown))
    return payload


def deal_extra(deal_no: int, lang: str) -> dict[str, str]:
    """📜 Deal: the record of finished deal ``deal_no`` (0 first), as the chat's button
    (action ``deal:<n>``)."""
    return {"action": f"{DEAL}{deal_no}", "label": t(lang, "button-deal")}


def _cards_of(shown: dict[str, Any]) -> list[str]:
    """Every card code the view's drawn parts hold (for their names)."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            for run in _CARD_RUN.findall(value):
                found.extend(run[i : i + 2] for i in range(0, len(run), 2))
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(shown)
    return found
