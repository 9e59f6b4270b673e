"""The store protocols: everything Koloda keeps, as intent-level operations.

One protocol per role, so each consumer can be typed against the few methods it
uses: :class:`SessionStore` (sessions and moves), :class:`MessageStore`
(messages and delivery leases), :class:`PreferenceStore` (names, languages,
reachability), :class:`SendBudget` (the shared flood budget),
:class:`OpenPages` (the Mini App's pages open on any worker); and in
:mod:`storage.protocol_results`, :class:`TallyStore` (tallies and ratings),
:class:`DailyStore` (the daily deal's seeds, plays, boards and posts) and
:class:`SeasonStore` (the monthly boards and posts). :class:`Store` is all of them.

The session layer (``sessions/``) talks to storage only through these: no
driver types, no SQL. One implementation (:class:`storage.store.SqlStore`)
stands behind them on two backends that pass the same contract tests
(``tests/storage/test_store_contract.py``): SQLite (:class:`storage.sqlite.SqliteStore`,
the default) and PostgreSQL (:class:`storage.postgres.PostgresStore`, for
several workers).

Every write method is one transaction: it either happens entirely or not at
all. A session is saved as ``UPDATE … WHERE id = ? AND version = ?``; a store
that finds another version raises :class:`StaleVersion` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from storage.protocol_results import DailyStore, SeasonStore, TallyStore
from storage.ratings import (
    RatingUpdate,
)
from storage.records import (
    Beat,
    DailyPlay,
    DailyScore,
    InviteRecord,
    InviteUse,
    MessageRef,
    MoveRecord,
    ResultRecord,
    SessionRecord,
)


class StaleVersion(Exception):
    """The session's stored version is not the one the change was based on."""


class ChatBusy(Exception):
    """The group chat already has a lobby or a running game."""


class InviteUsed(Exception):
    """The invite code is unknown or was used already (checked inside the transaction)."""


class PressRepeated(Exception):
    """The press (a callback query) was committed already: Telegram delivered it again."""


class DailyPlayed(Exception):
    """The user has a play of that day's deal of that game already (one play a day)."""


class DatabaseUnusable(Exception):
    """The database cannot be used: corrupt, newer schema, locked, unreachable.

    The message is one line an operator can act on.
    """


class SessionStore(Protocol):
    """Sessions and their moves: what the session layer loads and commits.

    Also the presses a change was made by, the due background work and its
    claims, hint counts, invites and deep links: all keyed by session."""

    async def create_session(
        self,
        record: SessionRecord,
        *,
        invite: InviteRecord | None = None,
        press: str | None = None,
        daily: DailyPlay | None = None,
    ) -> int:
        """Insert a new session (``record.id`` ignored) with its seats; its new id.

        ``daily``: the session is that user's one play of a day's deal, stored with
        it — :class:`DailyPlayed` (nothing written) if they have one already.

        Seated humans' names are remembered (users). ``invite`` is stored with
        it, for the new session's id (its ``session`` field is ignored).
        Raises :class:`ChatBusy` if ``record`` is a group session and that chat
        already has an open (lobby or running) one. ``press``: as in
        :meth:`save_session`.
        """
        ...

    async def save_session(
        self,
        record: SessionRecord,
        based_on: int,
        *,
        seats: bool = False,
        move: MoveRecord | None = None,
        results: Sequence[ResultRecord] = (),
        invite: InviteUse | None = None,
        wanted: Sequence[str] = (),
        rated: RatingUpdate | None = None,
        press: str | None = None,
        daily: DailyScore | None = None,
    ) -> None:
        """Store ``record`` over the stored version ``based_on``, in one transaction.

        - :class:`StaleVersion` if the stored version is not ``based_on``
          (nothing is written);
        - ``seats``: the seat rows are rewritten and seated humans' names remembered;
        - ``move``: appended to the move log;
        - ``results``: the finished match's tally rows;
        - ``invite``: that code is used up by that user — :class:`InviteUsed`
          (nothing written) if it is unknown or already used;
        - ``wanted``: purposes of this session's messages that must now show
          ``record.version`` (their ``wanted`` is raised to it);
        - ``rated``: the finished match to rate (with ``results``): each rated
          human's rating in each of its scopes is read (``rated.start`` if it has
          none), changed by ``rated.rate`` (the maths is the caller's:
          :mod:`sessions.ratings`) and written with a rating-change row —
          serialized with any other match rating the same users;
        - ``press``: the key of the press that made the change (a callback query
          id), recorded at ``record.updated`` — :class:`PressRepeated` (nothing
          written) if it is recorded already;
        - ``daily``: a finished daily deal's score, on its play row (the first only).
        """
        ...

    async def load_session(self, session_id: int) -> SessionRecord | None:
        """The stored session with its seats, or None."""
        ...

    async def session_version(self, session_id: int) -> int | None:
        """The stored version of a session (cheap: to check a cache), or None."""
        ...

    async def open_session_ids(
        self, *, chat_id: int | None = None, user_id: int | None = None,
        thread: int | None = None,
    ) -> list[int]:
        """Ids of lobby and running sessions, oldest first; only those of group chat
        ``chat_id`` (of its topic ``thread`` too, if given: 0 for none) and/or those
        ``user_id`` sits in (or a computer plays for), when given."""
        ...

    async def ended_session_ids(self, since: float) -> list[int]:
        """Ids of sessions finished or cancelled at ``since`` (a time.time()) or later."""
        ...

    async def chat_session_ids(self, chat_id: int) -> list[int]:
        """Ids of every lobby or running session created in ``chat_id`` (any kind)."""
        ...

    async def finished_session_ids(self, chat_id: int, limit: int) -> list[int]:
        """The chat's last ``limit`` finished sessions, newest first."""
        ...

    async def moves_of(self, session_id: int) -> list[MoveRecord]:
        """The session's move log, oldest first."""
        ...

    async def move_at_version(self, session_id: int, version: int) -> MoveRecord | None:
        """The move made at session ``version``, if one was."""
        ...

    async def pressed(self, key: str) -> bool:
        """True if the press ``key`` made a change that was committed (and not forgotten)."""
        ...

    async def forget_presses(self, before: float) -> int:
        """Forget the presses recorded before ``before`` (a time.time()); how many."""
        ...

    async def due_session_ids(self, now: float) -> list[int]:
        """Running sessions whose background work is due (``record.due <= now``)."""
        ...

    async def claim(
        self, session_id: int, version: int, owner: str, now: float, until: float
    ) -> bool:
        """Take the lease on ``session_id``'s background work at ``version`` (a timer's
        expiry or a computer's turn) for ``owner`` until ``until`` (times are time.time()).

        True if taken: no other owner holds a lease on that version that is
        still valid at ``now``. A newer version replaces any lease. So with
        several workers each piece of due work is done by one, and by another
        if that one dies.
        """
        ...

    async def use_hint(self, session_id: int, seat: int) -> int:
        """Count one hint for ``seat`` of the session (no new session version: a hint
        changes nothing at the table); the seat's count now."""
        ...

    async def hint_uses(self, session_id: int) -> dict[int, int]:
        """How many hints each seat of the session has had (seats with none left out)."""
        ...

    async def insert_invite(self, invite: InviteRecord) -> None:
        """Store a new invite code."""
        ...

    async def load_invite(self, code: str) -> InviteRecord | None:
        """The invite with ``code`` as committed, or None."""
        ...

    async def purge_invites(self, now: float) -> int:
        """Delete the invites used or expired by ``now``; how many went."""
        ...

    async def session_by_link(self, link: str) -> int | None:
        """The id of the session whose deep-link token is ``link``, or None."""
        ...

    async def quiet_lobby_ids(self, before: float) -> list[int]:
        """Ids of lobbies that have not changed since ``before``."""
        ...


class MessageStore(Protocol):
    """The Telegram messages that show sessions, and their delivery leases."""

    async def set_message(self, session_id: int, ref: MessageRef) -> None:
        """Remember (or replace) the message that shows ``session_id`` for ``ref.purpose``
        (with its ``shown`` and ``wanted`` versions; ``wanted`` never goes back: a
        newer version committed meanwhile must still be shown)."""
        ...

    async def drop_message(self, session_id: int, purpose: str) -> None:
        """Forget the message of ``purpose``."""
        ...

    async def messages_of(self, session_id: int) -> list[MessageRef]:
        """Every remembered message of a session, by purpose."""
        ...

    async def mark_shown(self, session_id: int, purpose: str, version: int) -> None:
        """The message of ``purpose`` now shows ``version`` (``shown`` never goes back)."""
        ...

    async def behind_session_ids(self) -> list[int]:
        """Sessions with a message that shows an older version than it should."""
        ...

    async def lease_message(
        self, session_id: int, purpose: str, chat_id: int, owner: str, now: float, until: float
    ) -> MessageRef | None:
        """Take the delivery lease on the message of ``purpose`` for ``owner`` until
        ``until`` (times are time.time()): the message as stored now, or None while
        another owner's lease on it is valid at ``now``.

        A message not stored yet (about to be posted) is leased as a placeholder
        with no message id, shown and wanted -1. So with several workers only one
        sends or edits a message at a time, and a brand-new one is posted once.
        """
        ...

    async def release_message(
        self,
        session_id: int,
        purpose: str,
        owner: str,
        *,
        shown: int | None = None,
        posted: tuple[int, int] | None = None,
    ) -> None:
        """Give back ``owner``'s lease on the message of ``purpose`` (if still theirs).

        ``shown``: the version the message now shows (``shown`` and ``wanted``
        never go back); ``posted``: the (chat id, message id) it was just posted
        as. A placeholder that got no message is forgotten.
        """
        ...


class PreferenceStore(Protocol):
    """Users' names, languages and reachability; chats' languages."""

    async def remember_user(self, user_id: int, name: str) -> None:
        """Record a user's current display name (creating the user)."""
        ...

    async def set_language(self, scope: str, key: int, language: str) -> None:
        """Store the language of a user or chat (``scope``: ``user`` | ``chat``)."""
        ...

    async def language(self, scope: str, key: int) -> str | None:
        """The stored language of a user or chat, or None."""
        ...

    async def set_reachable(self, user_id: int, reachable: bool) -> None:
        """Mark whether the bot can write to the user's private chat."""
        ...

    async def reachable(self, user_id: int) -> bool:
        """False only if the user was marked unreachable."""
        ...


class SendBudget(Protocol):
    """The flood budget every worker sends by."""

    async def reserve_send(self, key: int, interval: float, now: float, worker: str) -> float:
        """Take the next free send slot of ``key`` (a chat id; 0 for the bot's overall
        budget) for ``worker`` and move it ``interval`` seconds on, atomically; returns
        when this send may go (a time.time(), ``now`` or later).

        Several workers pacing through one database so never exceed one budget
        together (Telegram's flood limits are per bot token). The key's latest
        booking remembers its worker: if that worker is found dead before the slot
        opens, :meth:`Liveness.beat` gives the slot back.
        """
        ...


class Liveness(Protocol):
    """Which workers sharing the store are alive: each beats while it runs."""

    async def beat(self, worker: str, now: float, silent: float) -> Beat:
        """Note ``worker`` alive at ``now`` (a time.time()) and say whether the store
        still knew it; forget the workers whose last beat is more than ``silent``
        seconds old and return them (each is returned to one caller only: the one
        that finds it dead).

        In the same transaction each key whose latest send slot a dead worker booked
        and which has not opened by ``now`` is moved back by one interval: the next
        reservation gets that slot. Only a key's latest booking can be given back (an
        earlier one has later bookings after it, which cannot move): a dead worker's
        earlier slots stay lost. Giving back never brings two sends of a key closer
        than its interval as long as the dead worker never sends in the slot: a
        worker uses a slot only while its own beats stand (the store knew it at a
        beat less than ``silent`` seconds before the slot opens, and at every beat
        since it booked the slot), and a worker found dead is one whose beats did not.
        The dead worker's open pages (:class:`OpenPages`) are forgotten with it.
        """
        ...


class OpenPages(Protocol):
    """The Mini App's pages open on the workers sharing the store: any worker holds
    back the hand edits of a player whose page is open on any of them."""

    async def keep_pages(
        self, worker: str, pages: Sequence[tuple[int, int]], until: float
    ) -> None:
        """Note ``worker``'s open ``pages`` — (session, user) — as standing until
        ``until`` (a time.time()), and forget the worker's other pages (closed), in one
        transaction. A page not refreshed stops counting once its ``until`` has
        passed; :meth:`Liveness.beat` forgets the pages of a worker it finds dead."""
        ...

    async def page_users(self, session_id: int, now: float) -> list[int]:
        """The users with a page of the session open on some worker at ``now`` (a
        time.time()), in order."""
        ...


class Store(
    SessionStore, MessageStore, PreferenceStore, SendBudget, Liveness, OpenPages, TallyStore,
    DailyStore, SeasonStore, Protocol,
):
    """Koloda's durable state: every role above. Open with ``storage.open_store(url)``;
    ``close()`` when done."""

    async def close(self) -> None:
        """Finish pending writes and release the connections."""
        ...

    async def ping(self, timeout: float) -> None:
        """Check, within ``timeout`` seconds, that the store can take a write now;
        raise (a driver error, OSError or TimeoutError) if it cannot."""
        ...
