"""The table message (one per game, edited in place) and the hand message.

Both read the shared view vocabulary of docs/games-api.md, so one renderer
serves every game; game-specific keys (Rummy's ``melds``, Fifteen's ``pot`` and
``chips``, the lottery's ``rows``) are drawn where present.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.callback import ShowHand
from bot.i18n import t, t_or
from bot.render.common import (
    Button,
    Screen,
    SeatLike,
    cards,
    esc,
    game_name,
    mention,
    move_buttons,
    scores_line,
    screen,
    seat_name,
    suit,
)
from bot.render.lobby import timer_name
from games.cards import sort_hand


def _header(view: dict[str, Any], lang: str) -> list[str]:
    deals = view.get("deals") or len(view.get("contracts") or []) or None
    number = view["deal_no"] + 1
    deal = t(lang, "deal-of", n=number, total=deals) if deals else t(lang, "deal-number", n=number)
    lines = [f"🃏 <b>{esc(game_name(view['game'], lang))}</b> · {deal}"]
    if view.get("multiplier", 1) > 1:
        lines.append(t(lang, "multiplier-line", n=view["multiplier"]))
    contract = view.get("contract")
    if contract:
        lines.append(
            t(lang, "contract-line", contract=t_or(lang, f"contract-{contract}", contract))
        )
    trumps = view.get("trumps")
    if trumps:
        turned = view.get("trump_card")
        key = "trumps-turned" if turned else "trumps-line"
        lines.append(t(lang, key, suit=suit(trumps), card=cards([turned], lang) if turned else ""))
    elif "trumps" in view and view.get("phase") in ("play", "bid", None) and not contract:
        lines.append(t(lang, "no-trumps"))
    return lines + _stakes(view, lang)


def _stakes(view: dict[str, Any], lang: str) -> list[str]:
    """King: what each penalized item costs, or what the positive deal pays."""
    lines = []
    penalty = view.get("penalty")
    if penalty:
        costs = [
            t(lang, "stake-numbered-trick", n=str(cost), k=item.removeprefix("trick_"))
            if item.startswith("trick_")
            else t(lang, f"stake-{item}", n=str(cost), card=cards(["KH"], lang))
            for item, cost in penalty.items()
        ]
        lines.append(t(lang, "stakes-line", items=", ".join(costs)))
    prize = view.get("prize")
    if prize:
        paid = [t(lang, f"prize-{item}", n=str(points)) for item, points in prize.items()]
        lines.append(t(lang, "prize-line", items=", ".join(paid)))
    return lines


def _seat_line(view: dict[str, Any], seat: int, who: SeatLike, lang: str) -> str:
    parts = [("▶ " if view.get("to_move") == seat else "   ") + seat_name(who, lang)]
    if view.get("dealer") == seat:
        parts[0] += " " + t(lang, "dealer-mark")
    sizes = view.get("hand_sizes")
    if sizes is not None:
        parts.append(t(lang, "n-cards", n=sizes[seat]))
    won = view.get("tricks_won")
    if won is not None:
        parts.append(t(lang, "n-tricks", n=won[seat]))
    bids = view.get("bids")
    if bids is not None and bids[seat] is not None:
        parts.append(t(lang, "bid-of", n=bids[seat]))
    chips = view.get("chips")
    if chips is not None:
        parts.append(t(lang, "n-chips", n=chips[seat]))
    if (view.get("stood") or [False] * (seat + 1))[seat]:
        parts.append(t(lang, "stood-mark"))
    points = view.get("deal_points")
    if isinstance(points, list) and len(points) == view["players"] and points[seat]:
        parts.append(t(lang, "deal-points", points=scores_line([points[seat]])[0]))
    parts.append(t(lang, "score-of", score=scores_line([view["scores"][seat]])[0]))
    return " · ".join(parts)


def _plays(plays: Sequence[Sequence[Any]], seats: Sequence[SeatLike], lang: str) -> str:
    return ", ".join(f"{seat_name(seats[s], lang)} {cards([c], lang)}" for s, c in plays)


def _board(
    view: dict[str, Any], seats: Sequence[SeatLike], lang: str, viewer: int | None
) -> list[str]:
    lines: list[str] = []
    if view.get("stock") is not None:
        top = view.get("stock_top")
        key = "stock-top" if top else "stock-line"
        lines.append(t(lang, key, n=view["stock"], card=cards([top], lang) if top else ""))
    if view.get("discard_top"):
        lines.append(t(lang, "discard-line", card=cards([view["discard_top"]], lang)))
    if view.get("penalty_left"):
        lines.append(t(lang, "penalty-left-line", n=view["penalty_left"]))
    bids = [bid for bid in view.get("bids") or [] if bid is not None]
    if bids and view.get("deal_size"):
        lines.append(t(lang, "bids-total-line", bid=sum(bids), n=view["deal_size"]))
    if view.get("pot") is not None:
        lines.append(t(lang, "pot-line", n=view["pot"]))
    if view.get("suit") and view.get("discard_top", " ")[0] == "J":  # a jack named the suit
        lines.append(t(lang, "suit-line", suit=suit(view["suit"])))
    for suit_code in "SHDC":
        row = (view.get("rows") or {}).get(suit_code)
        if row:
            ends = [row[0]] if row[0] == row[-1] else [row[0], row[-1]]
            lines.append(f"{suit(suit_code)} {' … '.join(cards([end], lang) for end in ends)}")
    for index, meld in enumerate(view.get("melds") or []):
        shown = meld.get("cards", []) if isinstance(meld, dict) else meld
        lines.append(t(lang, "meld-line", n=index + 1, cards=cards(shown, lang)))
    for seat, known in enumerate(view.get("known_cards") or []):
        if known and seat != viewer:
            lines.append(
                t(lang, "known-line", name=seat_name(seats[seat], lang), cards=cards(known, lang))
            )
    if view.get("trick"):
        lines.append(t(lang, "trick-line", plays=_plays(view["trick"], seats, lang)))
    last = view.get("last_trick")
    if last:
        lines.append(
            t(
                lang,
                "last-trick-line",
                plays=_plays(last["cards"], seats, lang),
                winner=seat_name(seats[last["winner"]], lang),
            )
        )
    return lines


def _last_deal(view: dict[str, Any], seats: Sequence[SeatLike], lang: str) -> list[str]:
    """What the previous deal brought: Fifteen's showdown, Mau-Mau's or Rummy's last deal,
    or (``last_deal_scores``, which the presenter adds) every seat's points."""
    showdown = view.get("last_showdown")
    if showdown:
        shown = ", ".join(
            f"{seat_name(seats[i], lang)} {cards(hand, lang)} ({total})"
            for i, (hand, total) in enumerate(
                zip(showdown["hands"], showdown["totals"], strict=False)
            )
        )
        winner = showdown.get("winner")
        if winner is None or showdown.get("carried"):
            return [t(lang, "showdown-carried", hands=shown)]
        return [
            t(
                lang,
                "showdown-won",
                hands=shown,
                winner=seat_name(seats[winner], lang),
                n=showdown["pot"],
            )
        ]
    last = view.get("last_deal")
    if not last:
        scores = view.get("last_deal_scores")  # added by the front end from deal_end events
        if not scores:
            return []
        shown = ", ".join(
            f"{seat_name(seats[i], lang)} {scores_line([v])[0]}" for i, v in enumerate(scores)
        )
        return [t(lang, "last-deal-scores", scores=shown)]
    winner = last.get("finisher", last.get("winner"))
    if winner is None:
        return [t(lang, "last-deal-void")]
    penalties = last.get("penalties") or []
    scored = ", ".join(
        f"{seat_name(seats[i], lang)} {scores_line([p])[0]}"
        for i, p in enumerate(penalties)
        if i != winner
    )
    key = "last-deal-rummy" if last.get("rummy") else "last-deal-out"
    return [t(lang, key, winner=seat_name(seats[winner], lang), penalties=scored)]


def table_text(
    view: dict[str, Any],
    seats: Sequence[SeatLike],
    lang: str,
    viewer: int | None = None,
    seal: str | None = None,
) -> str:
    """The public picture of the table: header, seats, board, whose turn.

    ``viewer`` (default: the view's own seat) is left out of the publicly known
    cards, which that player sees in their hand anyway. ``seal`` is the short hash
    of the match's seed (games/verify.py), shown last: the commitment to the deal.
    """
    if viewer is None:
        viewer = view.get("seat")
    lines = [*_header(view, lang), ""]
    lines += [_seat_line(view, i, who, lang) for i, who in enumerate(seats)]
    board = _board(view, seats, lang, viewer) + _last_deal(view, seats, lang)
    if board:
        lines += ["", *board]
    to_move = view.get("to_move")
    if to_move is not None:
        phase = view.get("phase") or "play"
        lines += [
            "",
            t(
                lang,
                "turn-line",
                who=mention(seats[to_move], lang),
                phase=t_or(
                    lang, f"phase-{view['game']}-{phase}", t_or(lang, f"phase-{phase}", phase)
                ),
            ),
        ]
    if seal:
        lines += ["", t(lang, "seal-line", hash=seal)]
    return "\n".join(lines)


def render_table(
    session: int,
    view: dict[str, Any],
    seats: Sequence[SeatLike],
    lang: str,
    hand_link: str | None,
    timer: int | None = None,
    table: str | None = None,
    seal: str | None = None,
) -> Screen:
    """The group table message: the public view, "My hand" and a private-chat link.

    ``table`` is :func:`table_text` of ``view`` (with ``seal``) when the caller has it.
    """
    rows: list[list[Button]] = [[Button(t(lang, "button-my-hand"), ShowHand(session).pack())]]
    if hand_link:
        rows[0].append(Button(t(lang, "button-private-hand"), url=hand_link))
    text = table if table is not None else table_text(view, seats, lang, seal=seal)
    if timer is not None and view.get("to_move") is not None:
        text += "\n" + t(lang, "timer-line", timer=timer_name(timer, lang))
    return screen(text, rows)


def hand_text(view: dict[str, Any], lang: str) -> str:
    """The viewer's own cards, trumps first."""
    hand = sort_hand(view.get("hand") or [], view.get("trumps"))
    lines = [t(lang, "hand-line", cards=cards(hand, lang))]
    if view.get("total") is not None:
        lines.append(t(lang, "total-line", n=view["total"]))
    return "\n".join(lines)


def render_hand(
    session: int,
    version: int,
    view: dict[str, Any],
    seats: Sequence[SeatLike],
    lang: str,
    table: str | None = None,
) -> Screen:
    """A player's hand with a button per legal action, below ``table`` (the table's
    text, see :func:`table_text`) if given. Without the table (a group game's hand,
    edited only when the player's cards or moves change) it names nothing that
    changes with other players' moves."""
    if table is not None:
        parts = [table, ""]
    else:
        parts = [t(lang, "hand-title", game=esc(game_name(str(view.get("game")), lang)))]
    parts.append(hand_text(view, lang))
    legal = view.get("legal") or []
    if legal:
        parts.append(t(lang, "your-move"))
    elif view.get("to_move") is not None and table is not None:
        parts.append(t(lang, "wait-for", who=seat_name(seats[view["to_move"]], lang)))
    elif view.get("to_move") is not None:
        parts.append(t(lang, "hand-wait"))
    return screen("\n".join(parts), move_buttons(session, version, legal, lang))
