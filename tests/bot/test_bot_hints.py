"""💡 Hints through the bot: the setting, the pop-up, the count on the result."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import Harness, start_harness
from tests.support.tables import finish_fifteen, labels, mover, moves, open_table, pop_up


async def test_hints_in_a_group_are_off_until_the_creator_turns_them_on(
    harness: Harness,
) -> None:
    table = await open_table(harness, "fifteen", started=False, title="Hints")
    sid = table.session_id
    assert "💡 Hints: off" in labels(table.message)
    text = await pop_up(harness, table.bob, table.group, table.message.message_id,
                        f"hints:{sid}:on")
    assert text == "Only the creator of the table can do that."
    await harness.press(table.alice, table.message, "💡 Hints: off")
    assert "💡 Hints: on" in labels(table.message)
    await pop_up(harness, table.alice, table.group, table.message.message_id, f"opt:{sid}:deals:1")
    await harness.press(table.alice, table.message, f"back:{sid}")
    await harness.press(table.alice, table.message, f"start:{sid}")
    await harness.settle()
    first, other, _ = await mover(harness, table)
    hand = harness.fake.last_message(first.id, containing="🃏")
    waiting = harness.fake.last_message(other.id, containing="🃏")
    assert hand is not None and waiting is not None
    assert "💡 Hint" in labels(hand) and "💡 Hint" not in labels(waiting)
    answer = await harness.press(first, hand, "💡 Hint")
    text = str(answer.params.get("text"))
    assert text.startswith("💡 The computer would choose: ")
    assert text.removeprefix("💡 The computer would choose: ") in labels(hand)
    text = await pop_up(harness, other, harness.fake.private(other), waiting.message_id,
                        f"hint:{sid}")
    assert text == "It is not your turn."
    await finish_fifteen(harness, table)
    alice, bob = (1, 0) if first is table.alice else (0, 1)
    assert f"💡 Hints used: Alice {alice} · Bob {bob}" in table.message.text


async def test_a_russian_duel_against_the_computer_has_hints(harness: Harness) -> None:
    fake = harness.fake
    vera = fake.user("Вера", "ru")
    await harness.command(vera, fake.private(vera).id, "/new eleven")
    lobby = fake.last_message(vera.id)
    assert lobby is not None and "💡 Подсказки: вкл." in labels(lobby)
    await harness.press(vera, lobby, "vs:1")
    await harness.press(vera, lobby, "comp:1:easy")
    await harness.settle()
    assert "💡 Подсказка" in labels(lobby) and moves(lobby)  # the computer has moved: her turn
    answer = await harness.press(vera, lobby, "💡 Подсказка")
    text = str(answer.params.get("text"))
    assert text.startswith("💡 Компьютер сыграл бы ")
    assert text.removeprefix("💡 Компьютер сыграл бы ") in labels(lobby)


def query_answered(fake: FakeTelegram, query: str) -> bool:
    return any(c.method == "answerCallbackQuery" and str(c.params.get("callback_query_id"))
               == query for c in fake.calls)


class SlowStrongComputer:
    """The strong level thinks until the test lets it; the others play the first move."""

    def __init__(self) -> None:
        self.thinking = asyncio.Event()
        self.go = asyncio.Event()

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        if level == "strong":
            self.thinking.set()
            await self.go.wait()
        return str(view["legal"][0])


async def test_a_hint_being_computed_blocks_nobody(fake: FakeTelegram, db_dir: Path) -> None:
    computer = SlowStrongComputer()
    harness = await start_harness(fake, db_dir / "slow.sqlite3", computer)
    try:
        table = await open_table(harness, "fifteen", started=False, title="Slow")
        sid = table.session_id
        await harness.press(table.alice, table.message, "💡 Hints: off")
        await harness.press(table.alice, table.message, f"start:{sid}")
        first, other, _ = await mover(harness, table)
        hand = fake.last_message(first.id, containing="🃏")
        assert hand is not None
        query = fake.push_press(first, hand, "💡 Hint")
        await asyncio.wait_for(computer.thinking.wait(), 30)
        # while the strong computer thinks, the bot goes on with other people's updates
        # (no settle here: it would wait for the hint too)
        fake.push_command(other, table.group, "/score")
        reply = await fake.wait_for(
            lambda call: call.method == "sendMessage"
            and call.params.get("chat_id") == table.group.id
            and "Score in this chat" in str(call.params.get("text")),
            timeout=30,
        )
        assert reply.ok
        assert not query_answered(fake, query)  # the hint is still being worked out
        computer.go.set()
        answer = await fake.answer(query)
        assert str(answer.params.get("text")).startswith("💡 The computer would choose: ")
    finally:
        computer.go.set()
        await harness.stop()


class CountingStrong(SlowStrongComputer):
    """:class:`SlowStrongComputer` counting its strong searches."""

    def __init__(self) -> None:
        super().__init__()
        self.searches = 0

    async def choose(self, game_id: str, view: dict[str, Any], level: str, seed: int) -> str:
        self.searches += level == "strong"
        return await super().choose(game_id, view, level, seed)


async def test_ten_hint_presses_are_one_search_one_answer_one_hint_used(
    fake: FakeTelegram, db_dir: Path
) -> None:
    computer = CountingStrong()
    harness = await start_harness(fake, db_dir / "count.sqlite3", computer)
    try:
        table = await open_table(harness, "fifteen", started=False, title="Count")
        sid = table.session_id
        await harness.press(table.alice, table.message, "💡 Hints: off")
        await pop_up(harness, table.alice, table.group, table.message.message_id,
                     f"opt:{sid}:deals:1")
        await harness.press(table.alice, table.message, f"back:{sid}")
        await harness.press(table.alice, table.message, f"start:{sid}")
        first, _, _ = await mover(harness, table)
        hand = fake.last_message(first.id, containing="🃏")
        assert hand is not None
        queries = [fake.push_press(first, hand, "💡 Hint") for _ in range(5)]
        await asyncio.wait_for(computer.thinking.wait(), 30)
        computer.go.set()
        queries += [fake.push_press(first, hand, "💡 Hint") for _ in range(5)]
        answers = {str((await fake.answer(q)).params.get("text")) for q in queries}
        assert len(answers) == 1 and answers.pop().startswith("💡 The computer would choose: ")
        assert computer.searches == 1
        await finish_fifteen(harness, table)
        alice, bob = (1, 0) if first is table.alice else (0, 1)
        assert f"💡 Hints used: Alice {alice} · Bob {bob}" in table.message.text
    finally:
        computer.go.set()
        await harness.stop()
