"""Property: whatever is pressed, refusals change nothing and the log replays to the state."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from sessions import Refusal, SessionManager
from sessions.replay import replay
from tests.support.helpers_sessions import FirstLegal

#: (user 1-3, version offset -1..1, which legal action or a junk one)
Press = tuple[int, int, int]
presses = st.lists(
    st.tuples(st.integers(1, 3), st.integers(-1, 1), st.integers(-1, 7)), max_size=40
)


async def press_all(script: list[Press]) -> None:
    manager = await SessionManager.open("sqlite:///:memory:", FirstLegal())
    try:
        lobby = await manager.create(-1, "group", 1, "Ann", "eleven")
        await manager.join(lobby.id, 2, "Bob")
        session = (await manager.start(lobby.id, 1)).session
        for user, offset, pick in script:
            seat = session.seat_of(user)
            legal = session.view(seat)["legal"] if seat is not None else []
            action = legal[pick % len(legal)] if legal and pick >= 0 else "ZZ"
            before = await manager.get(session.id)
            try:
                outcome = await manager.act(session.id, user, session.version + offset, action)
            except Refusal as refusal:
                assert refusal.code in {
                    "not_a_player",
                    "applied",  # the press just made, made again
                    "stale",
                    "not_your_turn",
                    "illegal",
                }
                assert await manager.get(session.id) == before
                continue
            assert offset == 0 and seat == before.to_move and action in legal
            session = outcome.session
            assert session.version == before.version + 1 and session.moves == before.moves + 1
        log = await manager.replay_log(session.id)
        assert [m.n for m in log] == list(range(1, session.moves + 1))
        assert session.seed is not None
        played = [(m.seat, m.action) for m in log]
        rebuilt = replay("eleven", 2, session.options, session.seed, played)
        assert rebuilt == session.game
    finally:
        await manager.close()


@settings(max_examples=25, deadline=None)
@given(presses)
def test_any_presses_keep_state_and_log_in_step(script: list[Press]) -> None:
    asyncio.run(press_all(script))
