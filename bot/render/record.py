"""Deal and match records on screen and in a text document.

Pure drawing of :class:`games.record.DealRecord` (rebuilt from the stored seed
and move log): every hand as dealt, the contract or trumps, every trick (one
line each) or turn in order, and the deal's points. The same lines make the
📜 Deal message (HTML) and the 📄 Match record document (plain text).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.callback import DealButton, MatchRecordButton
from bot.i18n import t, t_or
from bot.render.common import (
    Button,
    Screen,
    SeatLike,
    action_label,
    cards,
    esc,
    game_name,
    scores_line,
    screen,
    seat_name,
    suit,
)
from bot.render.text import plain
from games import REGISTRY
from games.record import DealRecord, Turn
from games.verify import command, short_hash


def deal_lines(record: DealRecord, game_id: str, seats: Sequence[SeatLike], lang: str) -> list[str]:
    """One finished deal as HTML lines."""
    names = [seat_name(seat, lang) for seat in seats]
    lines = [
        t(lang, "record-deal-title", n=record.deal_no + 1, game=esc(game_name(game_id, lang))),
        t(lang, "record-dealer", name=names[record.dealer]),
        *_setting(record.start, lang),
        t(lang, "record-hands"),
    ]
    for seat, hand in enumerate(record.hands):
        lines.append(f"  {names[seat]}: {cards(hand, lang) if hand else '—'}")
    lines.append(t(lang, "record-play"))
    lines += _turn_lines(record.turns, names, lang)
    points = " · ".join(
        f"{names[seat]} {_signed(value)}" for seat, value in enumerate(record.points)
    )
    lines.append(t(lang, "record-points", points=points))
    return lines


def seed_lines(game_id: str, seats: int, options: dict[str, Any], seed: int | None,
               revealed: bool, lang: str, *, daily: bool = False) -> list[str]:
    """The seed's commitment (while the match is on, or a daily deal's day lasts) or the
    seed itself and the command that re-deals it (once it is over): games/verify.py."""
    if seed is None:
        return []
    if not revealed:
        sealed = "record-sealed-daily" if daily else "record-sealed"
        return ["", t(lang, sealed, hash=short_hash(seed))]
    return [
        "",
        t(lang, "record-seed", seed=str(seed), hash=short_hash(seed)),
        f"<code>{esc(command(game_id, seats, options, seed))}</code>",
    ]


def render_deal(
    record: DealRecord,
    game_id: str,
    seats: Sequence[SeatLike],
    lang: str,
    seed: Sequence[str] = (),
    rows: Sequence[Sequence[Button]] = (),
) -> Screen:
    """The 📜 Deal answer: one finished deal (cut politely at Telegram's limit; the
    whole deal is in the match record), then ``seed`` (:func:`seed_lines`), with
    ``rows`` of buttons (a player's 📈 Review)."""
    return screen("\n".join([*deal_lines(record, game_id, seats, lang), *seed]), rows)


def match_record(
    game_id: str,
    records: Sequence[DealRecord],
    seats: Sequence[SeatLike],
    result: dict[str, Any],
    started: float,
    lang: str,
    seed: Sequence[str] = (),
) -> str:
    """The 📄 Match record document: every deal, the final scores, then ``seed``
    (:func:`seed_lines`), as plain text."""
    lines = [
        t(lang, "record-match-title", game=esc(game_name(game_id, lang)),
          date=_date(started)),
        ", ".join(seat_name(seat, lang) for seat in seats),
        "",
    ]
    for record in records:
        lines += [*deal_lines(record, game_id, seats, lang), ""]
    lines.append(t(lang, "record-final"))
    places = REGISTRY[game_id].ranking(result)
    scores = list(result.get("scores") or [])
    winners = set(result.get("winners") or [])
    for seat in sorted(range(len(scores)), key=lambda s: (places[s], s)):
        cup = " 🏆" if seat in winners else ""
        lines.append(
            f"{places[seat] + 1}. {seat_name(seats[seat], lang)} — "
            f"{scores_line([scores[seat]])[0]}{cup}"
        )
    lines += seed
    return plain("\n".join(lines)) + "\n"


def record_filename(game_id: str, started: float) -> str:
    """``koloda-<game>-<date>.txt``."""
    return f"koloda-{game_id.replace('_', '-')}-{_date(started)}.txt"


def deal_button(session: int, deal_no: int, lang: str) -> Button:
    """📜 Deal: the record of finished deal ``deal_no`` (0 first)."""
    return Button(t(lang, "button-deal"), DealButton(session, deal_no).pack())


def record_button(session: int, lang: str, label: str | None = None) -> Button:
    """📄 Match record: the document of a finished match."""
    return Button(label or t(lang, "button-match-record"), MatchRecordButton(session).pack())


def render_history(
    matches: Sequence[tuple[int, str, float, Sequence[str]]], lang: str
) -> Screen:
    """/history: the chat's last finished matches (id, game, when, winners' names as
    HTML, from ``seat_name``), a record button for each."""
    if not matches:
        return screen(t(lang, "history-empty"))
    lines = [t(lang, "history-title"), ""]
    rows = []
    for number, (session, game_id, when, winners) in enumerate(matches, start=1):
        game = game_name(game_id, lang)
        lines.append(
            t(lang, "history-row", n=number, game=esc(game), date=_date(when),
              winners=", ".join(winners) or "—")
        )
        rows.append([record_button(session, lang, f"📄 {number}. {game} · {_date(when)}")])
    return screen("\n".join(lines), rows)


def _date(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d")


def _signed(value: Any) -> str:
    shown = scores_line([value])[0]
    return f"+{shown}" if isinstance(value, int | float) and value > 0 else shown


def _setting(view: dict[str, Any], lang: str) -> list[str]:
    """The contract or trumps the deal was played under, as far as known at its start."""
    lines = []
    contract = view.get("contract")
    if contract:
        lines.append(
            t(lang, "contract-line", contract=t_or(lang, f"contract-{contract}", contract))
        )
    trumps = view.get("trumps")
    turned = view.get("trump_card")
    if trumps and turned:
        lines.append(t(lang, "trumps-turned", suit=suit(trumps), card=cards([turned], lang)))
    elif trumps:
        lines.append(t(lang, "trumps-line", suit=suit(trumps)))
    starter = view.get("discard_top")
    if starter:
        lines.append(t(lang, "record-starter", card=cards([starter], lang)))
    return lines


def _turn_lines(turns: Sequence[Turn], names: Sequence[str], lang: str) -> list[str]:
    """Tricks one line each ("3. Ann Q♠ · Bob K♠ → Bob"); other moves one line per
    player's turn ("Ann: Draw, 8♦")."""
    lines: list[str] = []
    trick_game = any(e.get("type") == "trick" for turn in turns for e in turn.events)
    tricks = 0
    run: list[str] = []
    run_seat: int | None = None

    def close_run() -> None:
        nonlocal run, run_seat
        if run_seat is not None:
            lines.append(f"  {names[run_seat]}: {', '.join(run)}")
        run, run_seat = [], None

    for turn in turns:
        kinds = {event.get("type") for event in turn.events}
        for event in turn.events:
            if event.get("type") == "trick":
                close_run()
                tricks += 1
                plays = " · ".join(
                    f"{names[seat]} {cards([card], lang)}" for seat, card in event["cards"]
                )
                lines.append(
                    t(lang, "record-trick", n=tricks, plays=plays, winner=names[event["winner"]])
                )
        if trick_game and kinds & {"play", "trick"}:
            continue  # shown with its trick's line
        if run_seat != turn.seat:
            close_run()
            run_seat = turn.seat
        run.append(action_label(turn.action, lang))
        for event in turn.events:
            lines_of = _event_note(event, names, lang)
            if lines_of:
                close_run()
                lines += lines_of
    close_run()
    return lines


def _event_note(event: dict[str, Any], names: Sequence[str], lang: str) -> list[str]:
    """A line for what a move revealed or ended: a showdown, a void deal."""
    kind = event.get("type")
    if kind == "showdown":
        shown = " · ".join(
            f"{names[seat]} {cards(hand, lang)} ({total})"
            for seat, (hand, total) in enumerate(
                zip(event.get("hands", []), event.get("totals", []), strict=False)
            )
        )
        return [t(lang, "record-showdown", hands=shown)]
    if kind == "deal_void":
        return [t(lang, "record-void")]
    return []
