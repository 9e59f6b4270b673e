"""Names nobody can use to spoil a table: seven players with the longest, nastiest
first names Telegram allows play a whole Oh Hell match in a group, through the fake
Bot API (which refuses what Telegram refuses: malformed HTML, more than 4,096
characters after entity parsing).

Every screen — lobby, table, hands, 📜 Deal, result, 📄 Match record, /top,
/history — must be delivered, kept current, and show the names cleaned: at most
32 characters, no bidi override or zero-width character, escaped.
"""

from __future__ import annotations

from bot.render.text import clean_name
from tests.support.buttons import MOVE, version_of
from tests.support.fake_telegram import MAX_TEXT, Call, FakeUser, parse_html, utf16_length
from tests.support.harness import Harness

# Telegram's first names are up to 64 characters: these are all of them mischief.
NAMES = [
    "&" * 64,
    "<" * 64,
    "\u202e" + "x" * 60,
    "&<" * 32,
    "<b>" * 21,
    "\u202e&\u200b<" * 16,
    "\u2067عمر\u2069 &lt; \u2028" + "&" * 48,
]
TEXT_METHODS = ("sendMessage", "editMessageText", "editEphemeralMessageText", "sendDocument")
def refused(calls: list[Call]) -> list[tuple[str, str | None]]:
    """The bot's texts that the fake Bot API refused."""
    return [(c.method, c.error) for c in calls if c.method in TEXT_METHODS and not c.ok]


def shown(text: str) -> str:
    """What a user reads of an HTML text (it must parse)."""
    visible = parse_html(text)
    assert utf16_length(visible) <= MAX_TEXT
    return visible


def check_names(text: str, users: list[FakeUser]) -> None:
    """Every player is named, as cleaned, and nothing rewrites the line."""
    visible = shown(text)
    for user in users:
        assert clean_name(user.first_name) in visible, (clean_name(user.first_name), visible)
    assert "\u202e" not in visible and "\u200b" not in visible and "\u2028" not in visible


def hand_buttons(harness: Harness, user: FakeUser) -> list[str]:
    """The move buttons on the user's private hand message."""
    hand = harness.fake.last_message(user.id, containing="🃏")
    assert hand is not None, user.first_name
    shown(hand.text)
    return [b["callback_data"] for b in hand.buttons() if MOVE.match(b.get("callback_data", ""))]


async def test_seven_mischievous_names_play_a_whole_match(harness: Harness) -> None:
    fake = harness.fake
    users = [fake.user(name) for name in NAMES]
    group, lobby = await harness.open_lobby("oh_hell", users, "Mischief")
    for user in users[1:]:
        await harness.press(user, lobby, "join:1")
    check_names(lobby.text, users)
    await harness.press(users[0], lobby, "start:1")
    table = lobby  # the lobby message became the table message
    assert not refused(fake.calls)

    by_id = {u.id: u for u in users}
    deals_seen = 0
    while (session := await harness.kol.manager.get(1)).status == "running":
        check_names(table.text, users)
        game = session.game
        assert game is not None and session.to_move is not None
        if game.deal_no > deals_seen:  # a deal is over: its record, as the presser sees it
            deals_seen = game.deal_no
            if deals_seen == 1:
                await harness.press(users[1], table, "📜 Deal")
                (record,) = fake.chat_messages(group.id, ephemeral=True)
                assert record.ephemeral_for == users[1].id
                check_names(record.text, users)
        mover = by_id[session.seats[session.to_move].user_id or 0]
        buttons = hand_buttons(harness, mover)
        assert buttons, "the player to move has no buttons"
        assert all(version_of(b) == session.version for b in buttons)
        hand = fake.last_message(mover.id, "🃏")
        assert hand is not None
        answer = await harness.press(mover, hand, buttons[0])
        assert answer.params.get("text") in (None, ""), answer.params
        assert not refused(fake.calls)
    assert session.status == "finished" and deals_seen >= 1
    check_names(table.text, users)
    assert "🏆" in table.text

    await harness.press(users[2], table, "📄 Match record")
    (document,) = fake.documents
    transcript = document.content.decode()
    for user in users:
        assert clean_name(user.first_name) in transcript
    assert "\u202e" not in transcript and "\u200b" not in transcript

    cleaned = {clean_name(user.first_name) for user in users}
    for command in ("/top", "/history"):
        await harness.command(users[3], group.id, command)
        answer = fake.last_message(group.id)
        assert answer is not None and answer is not table, command
        rows = [line for line in shown(answer.text).splitlines() if line[:1].isdigit()]
        assert rows, answer.text
        for row in rows:  # "1. name — 1,511 · …", "1. Oh Hell · date · 🏆 name, name"
            named = row.partition(" — ")[0] if command == "/top" else row.partition("🏆 ")[2]
            names = named.removeprefix(row.partition(" ")[0] + " ").split(", ")
            assert {name.strip("\u2068\u2069") for name in names} <= cleaned, row
    assert not refused(fake.calls)
