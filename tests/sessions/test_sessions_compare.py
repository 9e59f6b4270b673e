"""⚖️ Compare a daily deal in the session layer: the best other player's differing
decision listed beside yours and the computer's, agreed runs collapsed, the runner-up
as the rival when you top the board, alone without one, a rival's card you never saw
kept out while the day lasts, one search however often it is pressed, and the
refusals."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.render.compare import render_compare
from games.ai.review import Verdict, decision_points
from games.cards import display
from sessions import Refusal, Session, SessionManager
from sessions.compare import Same, Step, action_cards
from sessions.daily import DAY, day_of
from tests.support.helpers_sessions import FakeClock, FirstLegal, open_manager

ANN, BOB, CY = 101, 202, 303
#: The day's seed: fixed, so the deals (and who wins them) are the same on every run.
SEED = 1

Pick = Callable[[int, list[str]], str]


class Judging(FirstLegal):
    """Computers play their first legal move; a review's "best" is the first legal move
    too, except at the ``differ`` review calls (1 first), where it is the last."""

    def __init__(self, differ: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.reviews = 0
        self.differ = differ

    async def review(self, game_id: str, view: dict[str, Any], chosen: str, seed: int) -> Verdict:
        self.reviews += 1
        legal = view["legal"]
        best = legal[-1] if self.reviews in self.differ else legal[0]
        return Verdict(chosen, best, 0.0, 0.0, 1)


@pytest.fixture
def clock() -> FakeClock:
    """Mid-morning of a UTC day."""
    return FakeClock(day_of(1_800_000_000.0) * DAY + 36_000.0)


@pytest.fixture
def computer() -> Judging:
    return Judging(frozenset({5}))


@pytest.fixture
async def manager(
    tmp_path: Path, clock: FakeClock, computer: Judging
) -> AsyncIterator[SessionManager]:
    opened = await open_manager(tmp_path / "compare.sqlite3", computer, clock)
    yield opened
    await opened.close()


def first(_: int, legal: list[str]) -> str:
    return legal[0]


def last(_: int, legal: list[str]) -> str:
    return legal[-1]


def last_at(*numbers: int) -> Pick:
    """The first legal move, but the last one at the given decisions (1 first)."""
    return lambda number, legal: legal[-1] if number in numbers else legal[0]


async def play(
    manager: SessionManager, user: int, game_id: str, pick: Pick, deals: int | None = None
) -> Session:
    """The user's daily deal of ``game_id`` with ``pick`` choosing at each decision with a
    choice, until it is over (or ``deals`` deals are)."""
    await manager.store.daily_seed(manager.daily.today(), game_id, SEED)
    session = (await manager.daily.start(user, user, f"P{user}", game_id)).session
    decided = 0
    for _ in range(5000):
        await manager.idle()
        session = await manager.get(session.id)
        if session.status != "running":
            return session
        if deals is not None and len((await manager.deal_records(session.id, user))[1]) >= deals:
            return session
        seat = session.seat_of(user)
        if session.to_move == seat and seat is not None:
            legal = session.view(seat)["legal"]
            if len(legal) > 1:
                decided += 1
            action = pick(decided, legal) if len(legal) > 1 else legal[0]
            await manager.act(session.id, user, session.version, action)
    raise AssertionError("the daily deal never ended")


async def compared(manager: SessionManager, session: Session, user: int) -> Any:
    """Press ⚖️ Compare and wait for the answer."""
    ticket = await manager.compare_deal(session.id, 0, user)
    if ticket.kept is not None:
        return ticket.kept
    assert ticket.run is not None
    return await ticket.run()


async def test_the_best_players_differing_decision_and_the_computers(
    manager: SessionManager, computer: Judging
) -> None:
    bob = await play(manager, BOB, "eleven", last_at(3))
    ann = await play(manager, ANN, "eleven", first)
    comparison = await compared(manager, ann, ANN)
    assert comparison.rival is not None and comparison.rival.user_id == BOB
    steps = comparison.steps
    assert computer.reviews == len(steps) > 5
    # the same position up to decision 3, where Bob took the last move and Ann the first
    assert bob.status == "finished"
    assert [s.yours for s in steps[:2]] == [s.rival for s in steps[:2]]
    third = steps[2]
    assert third.number == 3 and third.rival != third.yours and not third.agreed
    assert third.computer == third.yours  # the computer took the first legal move there
    # the fifth review said "the last legal move": shown where Ann differed from it
    fifth = steps[4]
    assert fifth.computer != fifth.yours and not fifth.agreed
    runs = list(comparison.runs())
    assert runs[0] == Same(1, 2) and runs[1] == third
    assert not any(isinstance(a, Same) and isinstance(b, Same) for a, b in itertools.pairwise(runs))
    assert sum(1 if isinstance(r, Step) else r.last - r.first + 1 for r in runs) == len(steps)
    text = render_compare(comparison, "en").text
    assert "⚖️ Deal 1 — Eleven: you, P202 and the strong computer" in text
    assert "• Decisions 1–2: the same choices" in text
    assert f"• Decision 3 (trick 3) — you: {display(third.yours, 'en')} · P202: " in text


async def test_the_rival_is_the_runner_up_when_you_top_the_board(
    manager: SessionManager,
) -> None:
    sessions = {
        ANN: await play(manager, ANN, "king", first),
        BOB: await play(manager, BOB, "king", last),
        CY: await play(manager, CY, "king", last_at(2, 4, 6)),
    }
    board = await manager.daily.board("king")
    assert len(board) == 3
    assert [row.user_id for row in board] == [ANN, BOB, CY]  # the seed's deal does that
    assert [row.place for row in board] == [1, 2, 3]
    mine = await compared(manager, sessions[ANN], ANN)
    assert mine.rival.user_id == BOB and mine.rival.place == 2
    for user in (BOB, CY):
        theirs = await compared(manager, sessions[user], user)
        assert theirs.rival.user_id == ANN and theirs.rival.place == 1
    assert "P101 has the best score of this deal: -45." in render_compare(theirs, "en").text
    shown = render_compare(mine, "ru").text
    assert "Лучший результат в этой сдаче — ваш; следом P202: -105 (2-е место)." in shown


async def test_alone_on_the_board_only_the_computer_is_beside_you(
    manager: SessionManager,
) -> None:
    ann = await play(manager, ANN, "eleven", first)
    comparison = await compared(manager, ann, ANN)
    assert comparison.rival is None and all(s.rival is None for s in comparison.steps)
    text = render_compare(comparison, "en").text
    assert "Nobody else has played this deal yet" in text
    assert "⚖️ Deal 1 — Eleven: you and the strong computer" in text


async def test_a_rivals_card_you_never_saw_stays_hidden_while_the_day_lasts(
    manager: SessionManager, clock: FakeClock
) -> None:
    # Rummy: Bob takes and draws otherwise than Ann, so he plays cards from deeper in
    # the stock than she ever got
    bob = await play(manager, BOB, "rummy", last)
    ann = await play(manager, ANN, "rummy", first)
    comparison = await compared(manager, ann, ANN)
    # what Ann may know: her record (every hand as dealt, the starter, every move) and
    # her own hand
    hers = (await manager.deal_records(ann.id, ANN))[1][0]
    known = {c for hand in hers.hands for c in hand} | {hers.start["discard_top"]}
    known |= {c for turn in hers.turns for c in action_cards(turn.action, "rummy")}
    log = [(m.seat, m.action) for m in await manager.replay_log(ann.id)]
    for point in decision_points("rummy", 2, ann.options, SEED, log, 0, 0):
        known |= set(point.view["hand"])
    his = (await manager.deal_records(bob.id, BOB))[1][0]
    unseen = {c for turn in his.turns if turn.seat == 0
              for c in action_cards(turn.action, "rummy")} - known
    assert unseen  # the deal does what this test needs
    hidden = [s for s in comparison.steps if s.hidden]
    assert hidden and all(s.rival == "" for s in hidden)
    for step in comparison.steps:
        assert not set(action_cards(step.rival or "", "rummy")) & unseen
    for lang in ("en", "ru"):
        text = render_compare(comparison, lang).text
        assert "🂠" in text and len(text) <= 4096
        assert not [c for c in unseen if display(c, lang) in text]
    # once the day is over its seed is out, and so are Bob's cards
    clock.advance(DAY)
    after = await compared(manager, ann, ANN)
    assert not any(s.hidden for s in after.steps)
    shown = {c for s in after.steps for c in action_cards(s.rival or "", "rummy")}
    assert shown & unseen


async def test_a_doubled_press_runs_once_and_a_review_waits(
    manager: SessionManager, computer: Judging
) -> None:
    await play(manager, BOB, "eleven", first)
    ann = await play(manager, ANN, "eleven", first)
    ticket = await manager.compare_deal(ann.id, 0, ANN)
    again = await manager.compare_deal(ann.id, 0, ANN)
    assert ticket.run is not None and again.running and again.run is None
    with pytest.raises(Refusal) as refused:
        await manager.review_deal(ann.id, 0, ANN)  # one search per user at a time
    assert refused.value.code == "compare_busy"
    comparison = await ticket.run()
    assert computer.reviews == len(comparison.steps)
    # the review is kept: a second compare and the 📈 Review search nothing more
    assert (await manager.compare_deal(ann.id, 0, ANN)).kept == comparison
    review = await manager.review_deal(ann.id, 0, ANN)
    assert review.kept is not None and len(review.kept.choices) == len(comparison.steps)
    assert computer.reviews == len(comparison.steps)


async def test_refusals(manager: SessionManager) -> None:
    ann = await play(manager, ANN, "eleven", first)
    cases: list[tuple[str, int, int, int]] = [
        ("compare_players_only", ann.id, 0, BOB),  # not his play
        ("deal_not_finished", ann.id, 1, ANN),  # no such deal
    ]
    # a short match (Fifteen: five deals) not over yet: its first deal is, the play is not
    fifteen = await play(manager, ANN, "fifteen", first, deals=1)
    assert fifteen.status == "running"
    cases.append(("compare_not_finished", fifteen.id, 0, ANN))
    # a duel that is no daily deal
    duel = await manager.create(None, "private", CY, "Cy", "eleven")
    await manager.add_computer(duel.id, CY, "easy")
    await manager.set_option(duel.id, CY, "target", 1)
    await manager.start(duel.id, CY)
    for _ in range(500):
        await manager.idle()
        session = await manager.get(duel.id)
        if session.status != "running":
            break
        await manager.act(duel.id, CY, session.version, session.view(0)["legal"][0])
    cases.append(("compare_not_daily", duel.id, 0, CY))
    for code, session_id, deal_no, user in cases:
        with pytest.raises(Refusal) as refused:
            await manager.compare_deal(session_id, deal_no, user)
        assert refused.value.code == code
