"""Quick smoke: the bot starts against the fake server and opens a lobby."""

from tests.support.harness import Harness


async def test_new_lobby(harness: Harness) -> None:
    fake = harness.fake
    alice = fake.user("Alice")
    group = fake.group("Friends")
    await harness.command(alice, group.id, "/new eleven")
    lobby = fake.last_message(group.id)
    assert lobby is not None
    assert "Eleven" in lobby.text and "Players (1/2):" in lobby.text
    assert [b["callback_data"] for b in lobby.buttons()] == [
        "join:1",
        "leave:1",
        "comps:1",
        "sets:1",
        "start:1",
        "cancel:1",
        "hints:1:on",  # hints are off at a group table until the creator turns them on
    ]
    assert fake.calls_of("getMe") and fake.calls_of("setMyCommands")
